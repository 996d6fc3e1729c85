/**
 * Signed deliveries: computing and comparing a signature the way the spec's `delivery.signature`
 * says, and the checks that need only a request's method and headers — so a sender that cannot be
 * the service (no signature header, one of the wrong shape, the wrong media type, a body declared
 * too large) is answered before a byte of its body is read or held.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { hmacOf } from "../internal/hmac.js";
import type { Delivery } from "./extension-types.js";

export type Headers = Record<string, string | string[] | undefined>;

/** What the receiver answers; a status and a short plain-text body. */
export interface WebhookResponse {
  status: number;
  body: string;
  headers?: Record<string, string> | undefined;
}

export function signPayload(
  secret: string,
  delivery: Pick<Delivery, "signature">,
  rawBody: Buffer | string,
  callbackUrl: string,
): string {
  const { signature } = delivery;
  const parts = signature.message === "body+callbackUrl" ? [rawBody, callbackUrl] : [rawBody];
  return hmacOf(signature.algorithm, signature.encoding, secret, parts);
}

/** Constant-time: both sides are HMAC'd again so the compare never depends on where they differ or their length. */
export function sameSignature(expected: string, given: string, secret: string): boolean {
  const a = createHmac("sha256", secret).update(expected).digest();
  const b = createHmac("sha256", secret).update(given).digest();
  return timingSafeEqual(a, b);
}

const DIGEST_BYTES = { sha1: 20, sha256: 32 } as const;

/**
 * Exactly the strings a signature can be: the digest of the spec's algorithm in its encoding
 * (HMAC-SHA1 in base64 is 27 characters and one `=`). The compare that follows accepts only the
 * exact digest, so a value of another shape could never pass it: refusing it early loses nothing.
 */
export function signatureShape(signature: Delivery["signature"]): RegExp {
  let shape = shapes.get(signature);
  if (!shape) shapes.set(signature, (shape = shapeOf(signature)));
  return shape;
}

const shapes = new WeakMap<Delivery["signature"], RegExp>();

function shapeOf(signature: Delivery["signature"]): RegExp {
  const bytes = DIGEST_BYTES[signature.algorithm];
  if (signature.encoding === "hex") return new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`);
  const padding = (3 - (bytes % 3)) % 3;
  const chars = Math.ceil(bytes / 3) * 4 - padding;
  return new RegExp(`^[A-Za-z0-9+/]{${chars}}${"=".repeat(padding)}$`);
}

export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The media type of a Content-Type value, lower-cased, without parameters. */
function mediaType(value: string | undefined): string | undefined {
  return value?.split(";")[0]?.trim().toLowerCase() || undefined;
}

export interface PreflightCounts {
  probes: number;
  rejectedSize: number;
  rejectedSignature: number;
  rejectedMediaType: number;
}

/**
 * Everything that can be decided from the method and headers, in the order a full request is
 * judged: the service's probe (200), another method (405), a declared body over the cap (413),
 * another media type than the spec's (415), a missing or ill-formed signature header (401).
 * Undefined: the body must be read and verified.
 */
export function preflight(
  delivery: Delivery,
  request: { method: string; headers: Headers; bodyBytes: number | undefined },
  maxBody: number,
  counts: PreflightCounts,
): WebhookResponse | undefined {
  const method = request.method.toUpperCase();
  if (delivery.probeMethod && method === delivery.probeMethod) {
    counts.probes++;
    return { status: 200, body: "" };
  }
  if (method !== "POST") return { status: 405, body: "method not allowed" };
  if (request.bodyBytes !== undefined && request.bodyBytes > maxBody) {
    counts.rejectedSize++;
    return { status: 413, body: "payload too large" };
  }
  const type = mediaType(header(request.headers, "content-type"));
  if (delivery.contentType && type !== delivery.contentType.toLowerCase()) {
    counts.rejectedMediaType++;
    return { status: 415, body: `expected content-type ${delivery.contentType}` };
  }
  const given = header(request.headers, delivery.signature.header);
  if (!given || !signatureShape(delivery.signature).test(given)) {
    counts.rejectedSignature++;
    return { status: 401, body: "invalid signature" };
  }
  return undefined;
}
