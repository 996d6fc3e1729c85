/**
 * What an operation sends and gets back: its request body (the JSON media type when it has one,
 * else the one the client sends, and how a tool step takes it) and its lowest 2xx response (status,
 * media type, schema and example).
 */
import { baseMediaType, FORM_MEDIA_TYPE, JSON_MEDIA_TYPE, RAW_REQUEST_MEDIA_TYPES } from "../../runtime/descriptor.js";
import { setOwn } from "../../runtime/internal/values.js";
import type { BodyModel, RawBodyKind, SuccessModel } from "../model.js";
import { asObject, type Json } from "../refs.js";
import { kindOf } from "../schema.js";
import type { CheckContext } from "./context.js";

function preferJson(content: Json): string | undefined {
  const types = Object.keys(content);
  return types.find((t) => /json/i.test(t)) ?? types[0];
}

/**
 * A body's media type when it has no JSON one (the descriptor's requestMediaType): one the client
 * can send, else the first.
 */
export function requestMediaTypeOf(body: BodyModel | undefined): string | undefined {
  if (!body || body.mediaType) return undefined;
  return body.contentTypes.find((t) => RAW_REQUEST_MEDIA_TYPES.includes(t.toLowerCase())) ?? body.contentTypes[0];
}

/**
 * The media type the client names when it sends a body (the descriptor's requestMediaType): the
 * raw one above, or a JSON one other than plain application/json (merge-patch, JSON:API), which
 * is sent as JSON under its own Content-Type. Undefined: application/json.
 */
export function sentMediaTypeOf(body: BodyModel | undefined): string | undefined {
  if (body?.mediaType !== undefined)
    return baseMediaType(body.mediaType) === JSON_MEDIA_TYPE ? undefined : body.mediaType;
  return requestMediaTypeOf(body);
}

/** The JSON media type a body is sent in: plain application/json when the spec offers it, else its first JSON one. */
function jsonMediaTypeOf(content: Json): string | undefined {
  const types = Object.keys(content);
  return types.find((t) => baseMediaType(t) === JSON_MEDIA_TYPE) ?? types.find((t) => /json/i.test(t));
}

export function bodyOf(context: CheckContext, raw: unknown): BodyModel | undefined {
  if (raw === undefined) return undefined;
  const body = asObject(context.refs.target(raw));
  if (!body) return undefined;
  const content = asObject(body.content) ?? {};
  const mediaType = jsonMediaTypeOf(content);
  const schema = mediaType ? asObject(content[mediaType])?.schema : undefined;
  const model: BodyModel = {
    required: body.required === true,
    description: typeof body.description === "string" ? body.description : "",
    contentTypes: Object.keys(content),
    ...(mediaType ? { mediaType } : {}),
    ...(schema !== undefined ? { schema } : {}),
  };
  const sent = requestMediaTypeOf(model);
  if (sent !== undefined) {
    const media = asObject(content[sent]) ?? {};
    const partTypes: Record<string, string> = {};
    for (const [part, encoding] of Object.entries(asObject(media.encoding) ?? {})) {
      const type = asObject(encoding)?.contentType;
      if (typeof type === "string") setOwn(partTypes, part, type);
    }
    model.raw = {
      mediaType: sent,
      kind: rawBodyKind(context, sent, media.schema),
      ...(media.schema !== undefined ? { schema: media.schema } : {}),
      partTypes,
    };
  }
  return model;
}

/** How a tool step takes a body of `mediaType` (not JSON). */
function rawBodyKind(context: CheckContext, mediaType: string, schema: unknown): RawBodyKind {
  const type = mediaType.toLowerCase().split(";")[0]!.trim();
  // Fields come from an object schema (one without properties is an empty form: nothing to take).
  const fields = () => kindOf(context.refs, schema) === "object";
  if (type === FORM_MEDIA_TYPE) return fields() ? "form" : "other";
  if (type.startsWith("multipart/")) return fields() ? "multipart" : "other";
  if (
    type.startsWith("text/") ||
    /[/+]xml$/.test(type) ||
    type === "application/csv" ||
    type === "application/x-ndjson"
  )
    return "text";
  // Any other media type is bytes when its schema is one string (or none): images, PDFs, archives, octet-stream.
  const s = context.refs.deref(schema);
  return schema === undefined || (s.type === "string" && s.properties === undefined) || Object.keys(s).length === 0
    ? "bytes"
    : "other";
}

/** The lowest 2xx response: its status, description, preferred media type, schema and example. */
export function successOf(context: CheckContext, raw: unknown): SuccessModel {
  const responses = asObject(raw) ?? {};
  const code = Object.keys(responses)
    .filter((c) => /^2\d\d$/.test(c))
    .sort()[0];
  if (code === undefined) return { status: 200, description: "" };
  const response = context.refs.deref(responses[code]);
  const content = asObject(response.content) ?? {};
  const mediaType = preferJson(content);
  const media = mediaType ? asObject(content[mediaType]) : undefined;
  let example = media?.example;
  if (example === undefined && media && asObject(media.examples))
    example = asObject(context.refs.target(Object.values(asObject(media.examples)!)[0]))?.value;
  return {
    status: Number(code),
    description: typeof response.description === "string" ? response.description : "",
    ...(mediaType ? { mediaType } : {}),
    ...(media?.schema !== undefined ? { schema: media.schema } : {}),
    ...(mediaType && example !== undefined ? { example } : {}),
  };
}
