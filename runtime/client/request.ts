/**
 * Request building: one call's address, headers and body from the operation descriptor and the
 * call's `params` and `body`, built once per call and sent by every attempt (the credentials part
 * adds the credentials to each attempt's copy). The body is serialised once, so a retry resends
 * the same bytes. A string, not a Request object: fetch makes its own, and a Request built here
 * only to be copied cost a third of the client's time per call.
 *
 * Values are encoded as openapi-fetch's serialisers do by default (query `form` exploded, `simple`
 * paths) and bodies as JSON; declared styles, other body media types and operation servers come
 * from the client's `wire` part (wire.ts) when its spec declares them.
 */
import { defaultBodySerializer, defaultPathSerializer, mergeHeaders } from "openapi-fetch";
import type { HttpMethod, OperationDescriptor } from "../descriptor.js";
import { pathValueProblem } from "../internal/path-values.js";
import { defaultQuery, headerValues, type QuerySerializer } from "./params.js";
import type { WireFormats } from "./wire.js";

export { querySerializerFor } from "./params.js";

/** What the builder needs of the declared wire formats (wire.ts), with the client's own server base. */
export type BuilderWire = Omit<WireFormats, "operationBase"> & {
  /** The base of an operation with its own server (path- or operation-level `servers`). */
  serverBase(server: string, baseUrl: string): string;
};

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
   * `wire` encodes what operations declare beyond the defaults (styles, non-JSON bodies, their own
   * server); without it every operation uses the defaults and `baseUrl` (the client refuses a spec
   * that declares more without it: client.ts).
   */
  constructor(
    baseUrl: string,
    private readonly wire?: BuilderWire,
  ) {
    const normalised = normalisedBase(baseUrl);
    this.baseUrl = normalised ?? baseUrl;
    this.baseInvalid = normalised === undefined;
  }

  /** The base address of an operation's requests: its own server when it declares one, else the client's. */
  baseOf(op: OperationDescriptor): string {
    if (op.server === undefined || !this.wire || this.baseInvalid) return this.baseUrl;
    let base = this.bases.get(op);
    if (base === undefined) {
      base = normalisedBase(this.wire.serverBase(op.server, this.baseUrl)) ?? this.baseUrl;
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
      querySerializer = this.wire?.querySerializer(op) ?? defaultQuery;
      this.serializers.set(op, querySerializer);
    }
    return prepareRequest(this.baseOf(op), op, this.template(op), init, querySerializer, this.wire);
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

/** The address with the path values in: in their declared styles, else as openapi-fetch's simple style does. */
function fillPath(
  baseUrl: string,
  op: OperationDescriptor,
  template: PathTemplate,
  values: Record<string, unknown> | undefined,
  wire: BuilderWire | undefined,
): string {
  if (!values || template.names.length === 0) return baseUrl + op.path;
  const styles = op.serialization?.path;
  // Declared styles (label, matrix, explode, JSON) are the wire's to encode, objects included.
  if (styles && wire)
    return joinPath(baseUrl, template, values, (name, value) => wire.pathValue(name, value, styles[name]));
  if (!template.simple || template.names.some((name) => values[name] !== null && typeof values[name] === "object"))
    return defaultPathSerializer(baseUrl + op.path, values);
  return joinPath(baseUrl, template, values, encodeSimple);
}

const encodeSimple = (_name: string, value: unknown) => encodeURIComponent(value as string | number | boolean);

/** The template's literals with each path value's text between them. */
function joinPath(
  baseUrl: string,
  template: PathTemplate,
  values: Record<string, unknown>,
  text: (name: string, value: unknown) => string,
): string {
  let url = baseUrl + template.literals[0]!;
  for (let i = 0; i < template.names.length; i++) {
    const name = template.names[i]!;
    const value = values[name];
    // A value left out keeps its placeholder, as openapi-fetch leaves it (the path check refuses it first).
    url += value === undefined || value === null ? `{${name}}` : text(name, value);
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
  wire: BuilderWire | undefined,
): PreparedRequest {
  const params = init.params ?? {};
  const method = op.method.toUpperCase();
  let url = fillPath(baseUrl, op, template, params.path, wire);
  let search = querySerializer(params.query ?? {});
  if (search.startsWith("?")) search = search.substring(1);
  if (search) url += `?${search}`;
  // Nothing to send in headers: no Headers object at all (the credentials part adds its own).
  if (init.headers === undefined && params.header === undefined && init.body === undefined) {
    return { method, url, headers: undefined, body: undefined, pathValues: params.path };
  }
  const given = mergeHeaders(init.headers, headerValues(op, params.header));
  const raw =
    init.body === undefined || init.body instanceof FormData || !wire
      ? undefined
      : wire.rawBody(op.requestMediaType, init.body);
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
