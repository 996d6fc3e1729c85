/**
 * Request bodies an agent can send that are not JSON. A model speaks JSON, so a step takes:
 *
 * - form fields (application/x-www-form-urlencoded) as fields, handed to the client as an object
 *   (it encodes them by the operation's media type);
 * - multipart parts as fields, a file part as `{ base64 | text, filename?, contentType? }`, handed
 *   to the client as FormData (a file part a Blob with its name and type);
 * - raw bytes (application/octet-stream, image/png, …) as one base64 string, handed over as a
 *   Uint8Array;
 * - text (text/plain, text/csv, application/xml, …) as one string, handed over as it is.
 *
 * A file part or a bytes body holds at most `MAX_FILE_BYTES` decoded bytes; the input check says so
 * with the field's name, before anything is sent.
 */
import * as z from "zod";
import { baseMediaType, MERGE_PATCH_MEDIA_TYPE } from "../descriptor.js";
import type { StepSchema, ToolDefinition } from "./types.js";

/**
 * Decoded bytes one file part or bytes body may hold: 700 KiB. A step's whole input is capped at
 * 1 MiB of JSON (input-limits.ts) and base64 takes 4 characters per 3 bytes, so this much fits with
 * room for the other fields, and a file over it gets this message, naming the field, rather than
 * the input's.
 */
export const MAX_FILE_BYTES = 716_800;

/** How a generated step's body is encoded (`StepWire.encoding`); absent: JSON or form fields, sent as they are. */
export type BodyEncoding = "multipart" | "base64" | "text";

/** Standard or URL-safe base64, padding optional. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decoded size of base64 text, without decoding it. */
function base64Bytes(text: string): number {
  const body = text.replace(/=+$/, "");
  return Math.floor((body.length * 3) / 4);
}

const tooLarge = (bytes: number) =>
  `is ${bytes} bytes; at most ${MAX_FILE_BYTES} bytes can be sent through a step (upload larger files another way)`;

/** A base64 string of at most MAX_FILE_BYTES decoded bytes. */
export function base64Schema(): StepSchema {
  return base64String();
}

function base64String() {
  return z
    .string()
    .regex(BASE64, "must be base64 (A-Z, a-z, 0-9, +, / or - and _, = padding)")
    .superRefine((text, ctx) => {
      const bytes = base64Bytes(text);
      if (bytes > MAX_FILE_BYTES) ctx.addIssue({ code: "custom", message: tooLarge(bytes) });
    });
}

/** A file part as a model sends it: its content as base64 or as text (exactly one), a file name and a media type. */
export function filePartSchema(): StepSchema {
  return z
    .strictObject({
      base64: base64String().optional().describe("The file's bytes as base64 (for binary files)."),
      text: z.string().optional().describe("The file's content as text (for text files), instead of base64."),
      filename: z.string().min(1).max(255).optional().describe("The file name the service sees."),
      contentType: z.string().min(1).max(255).optional().describe("The file's media type, e.g. image/png."),
    })
    .superRefine((part, ctx) => {
      if ((part.base64 === undefined) === (part.text === undefined))
        ctx.addIssue({ code: "custom", message: "give the file's content as base64 or as text (one of them)" });
      const bytes = part.text === undefined ? 0 : Buffer.byteLength(part.text);
      if (bytes > MAX_FILE_BYTES) ctx.addIssue({ code: "custom", path: ["text"], message: tooLarge(bytes) });
    })
    .describe("A file: { base64 } or { text }, with an optional filename and contentType.");
}

interface FilePart {
  base64?: string | undefined;
  text?: string | undefined;
  filename?: string | undefined;
  contentType?: string | undefined;
}

export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const buffer = Buffer.from(text, "base64");
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
}

/** A file part as a Blob, with the part's media type (or `fallbackType`, the spec's encoding, else a default). */
function fileBlob(part: FilePart, fallbackType: string | undefined): Blob {
  const type =
    part.contentType ?? fallbackType ?? (part.text !== undefined ? "text/plain" : "application/octet-stream");
  return new Blob([part.base64 !== undefined ? decodeBase64(part.base64) : (part.text ?? "")], { type });
}

/**
 * The parts as multipart/form-data: files (the wire names in `files`, with the spec's content
 * type when it gives one) as Blobs with their names, lists repeated, objects as JSON (OpenAPI's
 * default for a part that is an object), other values as text.
 */
export function multipartBody(
  fields: Record<string, unknown>,
  files: Record<string, { contentType?: string | undefined }>,
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const file = Object.hasOwn(files, name) ? files[name]! : undefined;
    for (const item of Array.isArray(value) && (file || !value.some((v) => typeof v === "object")) ? value : [value]) {
      if (file) {
        const part = item as FilePart;
        form.append(name, fileBlob(part, file.contentType), part.filename ?? name);
      } else form.append(name, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
  return form;
}

/**
 * The step's body is a JSON merge patch (RFC 7396): `null` removes the field it names, so a null
 * the schema accepts is sent, not dropped as "not given". Strict-mode exports of such a step are
 * not strict (export.ts): strict mode sends null for every field left out.
 */
export function nullRemovesField(tool: ToolDefinition): boolean {
  if (tool.kind !== "operation") return false;
  const mediaType = tool.descriptor.operations[tool.operationId]?.requestMediaType;
  return mediaType !== undefined && baseMediaType(mediaType) === MERGE_PATCH_MEDIA_TYPE;
}
