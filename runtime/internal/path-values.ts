/**
 * Path parameter values that would change which resource a request reaches. The client encodes
 * every path value (a `/` becomes `%2F`), but `.` and `..` are left as they are, and URL parsing
 * then resolves them: `GET /1/members/{id}` with id ".." goes to `/1/`, with the connection's
 * credentials. An empty value drops a segment (`/1/members/`), another resource again.
 *
 * Refused: the empty value, and any value that is (or, split at `/` or `\`, contains) a `.` or
 * `..` segment as sent, after percent-decoding once or repeatedly (`%2e%2e`, `%252e`), or after
 * Unicode compatibility folding (full-width `．．`, `‥`) that a server normalising Unicode applies.
 */

const MAX_DECODES = 5;
const PLAIN = /^[\x20-\x24\x26-\x2d\x30-\x5b\x5d-\x7e]+$/;

function isDotSegment(text: string): boolean {
  return text.split(/[/\\]/).some((segment) => segment === "." || segment === "..");
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Why `value` must not be sent as a path parameter, or undefined when it is safe. */
export function pathValueProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return "it is missing";
  const text = String(value);
  if (text.length === 0) return "it is empty, which would drop a segment of the address";
  // Printable ASCII with no dot, slash, backslash or percent sign cannot be or become a dot segment
  // (NFKC leaves ASCII as it is): the usual id needs none of the checks below.
  if (PLAIN.test(text)) return undefined;
  let form = text;
  for (let round = 0; round <= MAX_DECODES; round++) {
    if (isDotSegment(form) || isDotSegment(form.normalize("NFKC"))) {
      return round === 0
        ? `"${text}" is a "." or ".." path segment, which would move the request to another address`
        : `"${text}" decodes to a "." or ".." path segment`;
    }
    const next = form.includes("%") ? decodeOnce(form) : undefined;
    if (next === undefined || next === form) return undefined;
    form = next;
  }
  return `"${text}" is percent-encoded too many times`;
}
