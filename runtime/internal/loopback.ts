/**
 * "Only this machine": the one check behind the MCP HTTP server's Host/Origin guard and the mock's
 * webhook callbacks. 127.0.0.0/8, ::1 and localhost; the URL parser has already turned other
 * spellings of an address (`0x7f.1`, `2130706433`) into dotted quads.
 */

/** A host name (brackets around IPv6 allowed) that names this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Whether the mock may call `url`: http(s) on this machine only. The mock calls whatever a
 * registration names, so any other address would let a test or a stray client make it reach
 * cloud metadata (169.254.169.254), an intranet or the internet, signed with the webhook secret.
 */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (parsed.protocol === "http:" || parsed.protocol === "https:") && isLoopbackHost(parsed.hostname);
}
