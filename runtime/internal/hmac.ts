/** HMAC of several parts in order (Trello signs the raw body followed by the callback URL). */
import { createHmac } from "node:crypto";

export function hmacOf(
  algorithm: "sha1" | "sha256",
  encoding: "base64" | "hex",
  secret: string,
  parts: ReadonlyArray<string | Buffer>,
): string {
  const hmac = createHmac(algorithm, secret);
  for (const part of parts) hmac.update(typeof part === "string" ? Buffer.from(part, "utf8") : part);
  return hmac.digest(encoding);
}
