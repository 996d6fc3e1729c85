/**
 * The wire formats a spec may declare beyond the defaults every client has: query and path
 * parameters in their declared styles (params.ts), bodies that are not JSON (form fields, multipart
 * parts, raw strings or bytes) and operations with their own server. A client gets them as a part
 * (`wire: declaredWire`), which generated code passes when an operation of its spec declares one
 * of them (`declaredWireOf`), so a client whose operations all take JSON under the default styles
 * does not carry them (issue 22).
 */
import type { Connection } from "../credentials/auth.js";
import { FORM_MEDIA_TYPE, OCTET_MEDIA_TYPE, type ServiceDescriptor } from "../descriptor.js";
import { operationBase } from "./address.js";
import { pathValue, querySerializerFor } from "./params.js";

export interface WireFormats {
  /** The query serialiser of an operation with declared styles; undefined when the default does. */
  querySerializer: typeof querySerializerFor;
  /** One path value in its declared style. */
  pathValue: typeof pathValue;
  /** A body in the operation's non-JSON media type; undefined: send it as JSON. */
  rawBody(mediaType: string | undefined, body: unknown): string | Blob | FormData | undefined;
  /** Where an operation with its own server sends its requests (address.ts). */
  operationBase(
    descriptor: ServiceDescriptor,
    connection: Connection,
    server: string,
    baseUrl: string,
    overridden: boolean,
  ): string;
}

/**
 * A body the operation takes in a media type that is not JSON (the descriptor's requestMediaType):
 * form fields (arrays repeat the key, as form style explodes them), multipart parts (files as
 * Blob, Uint8Array or ArrayBuffer), or, for any other type (octet-stream, text/plain, XML, an
 * image), the string or bytes as given. A Blob, unlike a stream, can be sent again by a retry.
 * Undefined: send it as JSON.
 */
function rawBody(mediaType: string | undefined, body: unknown): string | Blob | FormData | undefined {
  const type = mediaType?.toLowerCase().split(";")[0]?.trim();
  if (type === undefined || /json/.test(type)) return undefined;
  const fields = body !== null && typeof body === "object" && !isBinary(body) && !Array.isArray(body);
  if (type === FORM_MEDIA_TYPE && fields) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== undefined && item !== null) form.append(name, String(item));
      }
    }
    return form.toString();
  }
  if (type.startsWith("multipart/") && fields) return multipartBody(body as Record<string, unknown>);
  if (typeof body === "string" || isBinary(body)) {
    if (typeof body === "string" && type !== OCTET_MEDIA_TYPE) return body;
    return body instanceof Blob ? body : new Blob([body as string | ArrayBuffer | Uint8Array<ArrayBuffer>]);
  }
  return undefined;
}

/**
 * Multipart parts from an object: each property a part (an array, one part per item); bytes as
 * file parts (a File keeps its name), objects as JSON text, other values as text.
 */
function multipartBody(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof Blob) form.append(name, item);
      else if (isBinary(item)) form.append(name, new Blob([item as Uint8Array<ArrayBuffer>]), name);
      else form.append(name, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
  return form;
}

function isBinary(value: unknown): value is Blob | ArrayBuffer | Uint8Array {
  return value instanceof Blob || value instanceof ArrayBuffer || value instanceof Uint8Array;
}

/** The declared wire formats, for a spec with an operation that declares one (see `declaredWireOf`). */
export const declaredWire: WireFormats = { querySerializer: querySerializerFor, pathValue, rawBody, operationBase };
