/**
 * Where a spec's error answers are and which fields of them carry the message: read by the
 * derived descriptor (derive.ts) and the mock's error answers (mock-errors.ts). A leaf, so
 * deriving loads none of the mock's modules (parts.ts).
 */
import { asObject, type Json, type RefResolver } from "../refs.js";

/** Fields an error body says what went wrong in, the most telling first (RFC 7807's detail before its title). */
export const MESSAGE_FIELDS = [
  "message",
  "msg",
  "error_description",
  "errorMessage",
  "detail",
  "error",
  "title",
  "description",
  "reason",
];

/**
 * An operation's JSON error responses (4xx, 5xx, the ranges `4XX` and `5XX` OpenAPI allows, and
 * `default`): status, media type and media object.
 */
export function* jsonErrorMedia(
  refs: RefResolver,
  operation: Json | undefined,
): Generator<{ status: string; contentType: string; media: Json }> {
  for (const [status, response] of Object.entries(asObject(operation?.responses) ?? {})) {
    if (!/^[45](?:\d\d|xx)$|^default$/i.test(status)) continue;
    const content = asObject(refs.deref(response).content) ?? {};
    const contentType = Object.keys(content).find((t) => /json/i.test(t));
    if (contentType) yield { status, contentType, media: asObject(content[contentType]) ?? {} };
  }
}
