/**
 * Request building: one call's address, headers and body from the operation descriptor and the
 * call's `params` and `body`, built once per call and sent by every attempt (the credentials part
 * adds the credentials to each attempt's copy). The body is serialised once, so a retry resends
 * the same bytes. A string, not a Request object: fetch makes its own, and a Request built here
 * only to be copied cost a third of the client's time per call.
 *
 * Values are encoded as OpenAPI's style and explode say (params.ts, with openapi-fetch's
 * serialisers), and parameters declared with JSON content as JSON.
 */
import { defaultBodySerializer, defaultPathSerializer, mergeHeaders } from "openapi-fetch";
import { FORM_MEDIA_TYPE, type HttpMethod, OCTET_MEDIA_TYPE, type OperationDescriptor } from "../descriptor.js";
import { pathValueProblem } from "../internal/path-values.js";
import { defaultQuery, headerValues, pathValue, type QuerySerializer, querySerializerFor } from "./params.js";

export { querySerializerFor } from "./params.js";

/** What a generated operation passes: openapi-fetch's `params` and `body` shapes. */
export interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  headers?: Record<string, string>;
}

/** One call's request, built once and sent by every attempt. */
export interface PreparedRequest {
  method: string;
  url: string;
  /** Undefined when the call sends no header of its own. */
  headers: Headers | undefined;
  body: string | FormData | Blob | undefined;
  /** The call's path parameters (per-board or per-workspace limits count by them). */
  pathValues: Record<string, unknown> | undefined;
}

/** Builds requests for one base address, keeping what it works out per operation. */
export class RequestBuilder {
  private readonly serializers = new Map<OperationDescriptor, QuerySerializer>();
  private readonly templates = new Map<OperationDescriptor, PathTemplate>();
  private readonly bases = new Map<OperationDescriptor, string>();

  /**
   * The base address as fetch would see it (host lower-cased, default port dropped): requests
   * are built as strings, never parsed again, so they start from the normalised form. The rest of
   * a request is encoded already (path values, the query) or checked (API Call endpoints).
   */
  readonly baseUrl: string;
  /** The base address does not parse (an override): every call is refused before sending. */
  readonly baseInvalid: boolean;

  /**
   * `serverBase` gives the base of an operation with its own server (path- or operation-level
   * `servers`, the descriptor's `server`); without it every operation uses `baseUrl`.
   */
  constructor(
    baseUrl: string,
    private readonly serverBase?: (server: string, baseUrl: string) => string,
  ) {
    const normalised = normalisedBase(baseUrl);
    this.baseUrl = normalised ?? baseUrl;
    this.baseInvalid = normalised === undefined;
  }

  /** The base address of an operation's requests: its own server when it declares one, else the client's. */
  baseOf(op: OperationDescriptor): string {
    if (op.server === undefined || !this.serverBase || this.baseInvalid) return this.baseUrl;
    let base = this.bases.get(op);
    if (base === undefined) {
      base = normalisedBase(this.serverBase(op.server, this.baseUrl)) ?? this.baseUrl;
      this.bases.set(op, base);
    }
    return base;
  }

  /**
   * A path parameter whose value would resolve to another address (`.`, `..`, empty), with why;
   * undefined when every value is safe to send.
   */
  unsafePathValue(op: OperationDescriptor, init: CallInit): { name: string; problem: string } | undefined {
    for (const name of this.template(op).names) {
      const problem = pathValueProblem(init.params?.path?.[name]);
      if (problem) return { name, problem };
    }
    return undefined;
  }

  build(op: OperationDescriptor, init: CallInit): PreparedRequest {
    let querySerializer = this.serializers.get(op);
    if (!querySerializer) {
      querySerializer = querySerializerFor(op) ?? defaultQuery;
      this.serializers.set(op, querySerializer);
    }
    return prepareRequest(this.baseOf(op), op, this.template(op), init, querySerializer);
  }

  private template(op: OperationDescriptor): PathTemplate {
    let template = this.templates.get(op);
    if (!template) {
      template = compilePath(op, this.baseOf(op));
      this.templates.set(op, template);
    }
    return template;
  }
}

/** The base address normalised; undefined when it does not parse. */
function normalisedBase(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    if (url.search || url.hash) return baseUrl;
    return url.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/**
 * An operation's path split once into literal text and parameter names, so a call fills it by
 * joining strings rather than by matching the template again. `simple` is false when the template
 * or the base address needs openapi-fetch's own serialiser (label, matrix or exploded
 * parameters, braces in the base address), which then fills it exactly as before.
 */
interface PathTemplate {
  names: string[];
  /** Literal text around the parameters: `literals.length === names.length + 1`. */
  literals: string[];
  simple: boolean;
}

const PATH_PARAM = /\{([^{}]+)\}/g;

function compilePath(op: OperationDescriptor, baseUrl: string): PathTemplate {
  const path = op.path;
  const names: string[] = [];
  const literals: string[] = [];
  let simple = !baseUrl.includes("{");
  let last = 0;
  for (const match of path.matchAll(PATH_PARAM)) {
    const name = match[1]!;
    if (name.startsWith(".") || name.startsWith(";") || name.endsWith("*")) simple = false;
    if (op.serialization?.path?.[name]) simple = false;
    literals.push(path.slice(last, match.index));
    names.push(name);
    last = match.index! + match[0].length;
  }
  literals.push(path.slice(last));
  return { names, literals, simple };
}

/** The address with the path values in: each encoded as openapi-fetch's simple style does. */
function fillPath(
  baseUrl: string,
  op: OperationDescriptor,
  template: PathTemplate,
  values: Record<string, unknown> | undefined,
): string {
  if (!values || template.names.length === 0) return baseUrl + op.path;
  if (op.serialization?.path) return styledPath(baseUrl, op, template, values);
  if (!template.simple) return defaultPathSerializer(baseUrl + op.path, values);
  let url = baseUrl + template.literals[0]!;
  for (let i = 0; i < template.names.length; i++) {
    const name = template.names[i]!;
    const value = values[name];
    if (value !== null && typeof value === "object") return defaultPathSerializer(baseUrl + op.path, values);
    // A value left out keeps its placeholder, as openapi-fetch leaves it (the path check refuses it first).
    url += value === undefined || value === null ? `{${name}}` : encodeURIComponent(value as string | number | boolean);
    url += template.literals[i + 1]!;
  }
  return url;
}

/** The address with path values in their declared styles (label, matrix, explode, JSON). */
function styledPath(
  baseUrl: string,
  op: OperationDescriptor,
  template: PathTemplate,
  values: Record<string, unknown>,
): string {
  let url = baseUrl + template.literals[0]!;
  for (let i = 0; i < template.names.length; i++) {
    const name = template.names[i]!;
    const value = values[name];
    url += value === undefined || value === null ? `{${name}}` : pathValue(name, value, op.serialization?.path?.[name]);
    url += template.literals[i + 1]!;
  }
  return url;
}

function prepareRequest(
  baseUrl: string,
  op: OperationDescriptor,
  template: PathTemplate,
  init: CallInit,
  querySerializer: QuerySerializer,
): PreparedRequest {
  const params = init.params ?? {};
  const method = op.method.toUpperCase();
  let url = fillPath(baseUrl, op, template, params.path);
  let search = querySerializer(params.query ?? {});
  if (search.startsWith("?")) search = search.substring(1);
  if (search) url += `?${search}`;
  // Nothing to send in headers: no Headers object at all (the credentials part adds its own).
  if (init.headers === undefined && params.header === undefined && init.body === undefined) {
    return { method, url, headers: undefined, body: undefined, pathValues: params.path };
  }
  const given = mergeHeaders(init.headers, headerValues(op, params.header));
  const raw =
    init.body === undefined || init.body instanceof FormData ? undefined : rawBody(op.requestMediaType, init.body);
  if (raw instanceof FormData) {
    // fetch writes the multipart Content-Type itself, with the boundary; a type the call sets wins.
    return { method, url, headers: given, body: raw, pathValues: params.path };
  }
  if (raw !== undefined) {
    const headers = mergeHeaders({ "Content-Type": op.requestMediaType! }, given);
    return { method, url, headers, body: raw, pathValues: params.path };
  }
  // The implementation also reads the headers (a form content type gets a form body); its .d.ts omits them.
  const serializeBody = defaultBodySerializer as (body: unknown, headers: Headers) => string | FormData;
  const body = init.body === undefined ? undefined : serializeBody(init.body, given);
  // Only a JSON body gets a content type; FormData brings its own with the boundary.
  const jsonBody = body !== undefined && !(body instanceof FormData);
  // A JSON type of the operation's own (merge-patch, JSON:API) is named as the spec names it.
  const jsonType =
    op.requestMediaType !== undefined && /json/i.test(op.requestMediaType) ? op.requestMediaType : "application/json";
  const headers = jsonBody ? mergeHeaders({ "Content-Type": jsonType }, given) : given;
  return { method, url, headers, body, pathValues: params.path };
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

/** An operation for a request to any path (the API Call step's), declared for this one call. */
export function adHocOperation(operationId: string, method: HttpMethod, path: string): OperationDescriptor {
  return {
    operationId,
    method,
    path,
    // Only methods that mean "same effect when repeated" are resent after an ambiguous failure.
    idempotent: method !== "POST" && method !== "PATCH",
    limitClass: method === "GET" || method === "HEAD" ? "read" : "write",
  };
}
