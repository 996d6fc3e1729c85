/**
 * The service descriptor: everything service-specific that the runtime needs, declared in a spec's
 * `x-stepforge` extensions; the runtime reads only this shape, never a service name. The generator
 * validates the YAML against the schemas in descriptor-schemas.ts (so a typo is an error with
 * file:line:col) and emits the parsed result into `generated/<service>/descriptor.ts`.
 *
 * This file is plain types and constants, with no zod: every generated client imports it, so a zod
 * import here put zod into every application bundle (~97 KB minified) and its declaration files
 * into every consumer's type-check. The types are written out instead of being `z.infer`red from
 * the schemas (resolving zod's inference for one `ServiceExtension` cost ~4,700 types);
 * test/types/extension-types.ts proves each identical to the `z.infer` of its schema, so changing one
 * without the other fails `tsc`. They are object type aliases, not interfaces, as zod's inferred
 * types are (an interface is not assignable to `Record<string, unknown>`).
 */
import type { MockService } from "./mock/extension-types.js";
import type { ServiceTools } from "./tools/extension-types.js";

/** Where a value travels on the wire. `{field}` placeholders name connection fields or `accessToken`. */
export type Placement = {
  /** A cookie placement travels as `name=value` in the Cookie header, beside the call's own cookies. */
  in: "query" | "header" | "cookie";
  name: string;
  /** Template; `{field}` is replaced by the connection field of that name. */
  value: string;
};

/** One field of a connection (an API key, a token, an instance endpoint). */
export type ConnectionField = {
  description: string;
  secret: boolean;
  /** Default true. */
  required: boolean;
  /** Regular expression the value must match. */
  pattern?: string | undefined;
  /** Removed from the end of the value before use (e.g. the "/rest" Marketo's admin page shows). */
  trimSuffix?: string | undefined;
  example?: string | undefined;
};

/** What a connection to the service holds: its base address and its fields. */
export type ConnectionSpec = {
  /** Base address of every request; `{field}` placeholders are connection fields. */
  baseUrl: string;
  /** The connection's fields, by identifier. */
  fields: Record<string, ConnectionField>;
};

/** Credentials sent as they are: an API key (and a token), in the query or a header. */
export type ApiKeyAuth = {
  kind: "api-key";
  /** Named ways of sending the credentials; the connection picks one, `defaultMode` otherwise. */
  modes: Record<string, Placement[]>;
  defaultMode: string;
  /**
   * Where a user sends their browser to mint a token for this key (Trello's /1/authorize).
   * `query` values are templates; `{name}` is filled from the values the caller passes to
   * `authorizeUrl()` (for example `{apiKey}`, `{appName}`).
   */
  authorize?:
    | {
        url: string;
        /** Default `{}`. */
        query: Record<string, string>;
      }
    | undefined;
};

/** OAuth 2 client credentials: the runtime fetches and renews access tokens itself. */
export type ClientCredentialsAuth = {
  kind: "oauth2-client-credentials";
  /** Template; may use `{field}` placeholders such as the instance endpoint. */
  tokenUrl: string;
  /** Default GET. */
  tokenMethod: "GET" | "POST";
  clientIdField: string;
  clientSecretField: string;
  /** Where client_id / client_secret / grant_type go on the token request. */
  credentialsIn: "query" | "form" | "json";
  /** Default 300. */
  renewBeforeSeconds: number;
  send: Placement;
};

/** OAuth 2 authorization code: a user grants access once; the runtime refreshes the token. */
export type AuthorizationCodeAuth = {
  kind: "oauth2-authorization-code";
  authorizeUrl: string;
  tokenUrl: string;
  clientIdField: string;
  clientSecretField: string;
  accessTokenField: string;
  refreshTokenField: string;
  expiresAtField?: string | undefined;
  credentialsIn: "form" | "json";
  /** Default `[]`. */
  scopes: string[];
  /** Default 300. */
  renewBeforeSeconds: number;
  /** The service hands back a new refresh token on every refresh; the caller's store must keep it. Default true. */
  rotatesRefreshToken: boolean;
  send: Placement;
};

/** A service that takes no credentials (public APIs; foreign specs without security). */
export type NoAuth = {
  kind: "none";
};

/** How the service authenticates a connection, by `kind`. */
export type AuthSpec = NoAuth | ApiKeyAuth | ClientCredentialsAuth | AuthorizationCodeAuth;

/** How the service says "no" when a limit is crossed: an HTTP status or a service error code (at least one). */
export type Rejection = {
  status?: number | undefined;
  code?: string | undefined;
};

/**
 * One object type with the fields of an intersection, as zod's inferred types are; a variant is
 * `Flat<Base & { … }>` so that it stays identical to the `z.infer` of its schema.
 */
type Flat<T> = { [K in keyof T]: T[K] };

/** What every kind of limit has. */
export type LimitSpecBase = {
  id: string;
  description: string;
  /** Which requests count: all (the default), or only reads (GET/HEAD) or writes (everything else). */
  applies: "all" | "read" | "write";
  /**
   * What the limit is counted per: the whole connection (`connection`, the default), one
   * credential field shared by connections (`field:apiKey`), or one path parameter's value shared
   * by every connection of the service (`path:idBoard`: per board, workspace or base). A `path:`
   * limit applies only to operations whose path template has that parameter.
   */
  per: string;
  /** Requests whose path starts with one of these neither count nor wait (routes the limit does not cover). */
  excludePathPrefixes?: string[] | undefined;
  /**
   * After the service refuses a request under this limit, it refuses every request under the same key for this long.
   */
  penaltySeconds?: number | undefined;
  /** Only requests whose path starts with this count (a route with its own budget). */
  pathPrefix?: string | undefined;
  rejection: Rejection;
};

/** A limit of one `kind`: what every limit has, and its own fields. */
type LimitOf<Kind extends string, Fields> = Flat<LimitSpecBase & { kind: Kind } & Fields>;

/** At most `requests` per `windowSeconds`. */
export type WindowLimit = LimitOf<"window", { requests: number; windowSeconds: number }>;

/** At most `max` requests in flight at once. */
export type ConcurrencyLimit = LimitOf<"concurrency", { max: number }>;

/** At most `requests` per day; `resetTimeZone`: the IANA zone whose midnight resets the quota. */
export type DailyQuotaLimit = LimitOf<"daily-quota", { requests: number; resetTimeZone: string }>;

/** At most `requests` per month; `resetTimeZone`: the IANA zone whose midnight on the 1st resets it. */
export type MonthlyQuotaLimit = LimitOf<"monthly-quota", { requests: number; resetTimeZone: string }>;

/** A quota the service reports in response headers. */
export type HeaderQuotaLimit = LimitOf<
  "header-quota",
  {
    /** Response headers that report what is left; the client stops before it reaches zero. */
    remainingHeader: string;
    usedHeader?: string | undefined;
    costHeader?: string | undefined;
    resetTimeZone: string;
  }
>;

/** One limit of the service, by `kind`. */
export type LimitSpec = WindowLimit | ConcurrencyLimit | DailyQuotaLimit | MonthlyQuotaLimit | HeaderQuotaLimit;

/**
 * Every kind of service error, once: {@link ErrorKind}, its schema and the log command's outcomes
 * derive from this list (a plain array, so the clients that import this file stay zod-free).
 */
export const ERROR_KINDS = [
  "auth",
  "permission",
  "not_found",
  "validation",
  "conflict",
  "rate_limited",
  "quota_exhausted",
  "timeout",
  "network",
  "server",
] as const;

/** What kind of failure an error is; decides retries, renewals and what a caller is told. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** What a service error code or HTTP status means and what to do about it. */
export type ErrorRule = {
  kind: ErrorKind;
  /** Default false. */
  retry: boolean;
  /** Renew the credentials once and repeat the call. Default false. */
  reauth: boolean;
  /**
   * The service did not act on the request (it was refused before any work), so resending is
   * safe even for an operation that is not idempotent. Default: true for `rate_limited` and
   * `quota_exhausted` kinds and HTTP 503, false otherwise (a POST that failed with 502/504 or a
   * timeout may have been carried out, and is resent only when the operation is idempotent).
   */
  resendSafe?: boolean | undefined;
  description: string;
};

/** How the service reports errors, and what each one means. */
export type ErrorsSpec = {
  /** Errors reported inside a successful HTTP response (Marketo's `success: false`). */
  envelope?:
    | {
        /** The body's key whose `false` marks the answer as failed. */
        successField: string;
        /** The body's key of the list of errors; the first one is reported. */
        errorsField: string;
        /** The key of an error's code, looked up in `codes`. */
        codeField: string;
        /** The key of an error's message (else the message is "request failed"). */
        messageField: string;
      }
    | undefined;
  /**
   * Where a human-readable message sits in a JSON error body, first match wins: a top-level key,
   * or a dotted path into nested objects (`error.message`). Plain-text bodies are used whole.
   * Default `["message", "error"]`.
   */
  messageFields: string[];
  /** Response headers carrying the service's request id (first present wins). Default `[]`. */
  requestIdHeaders: string[];
  /** Body field (key or dotted path, as in messageFields) carrying the request id when no header does. */
  requestIdField?: string | undefined;
  /** Default `["retry-after"]`. */
  retryAfterHeaders: string[];
  /** By service error code. Default `{}`. */
  codes: Record<string, ErrorRule>;
  /** By HTTP status code (`"404"`). Default `{}`. */
  statuses: Record<string, ErrorRule>;
};

/** The spec's root `x-stepforge` extension: the service as the runtime sees it. */
export type ServiceExtension = {
  /** Service id: the module name (`stepforge/<id>`) and the prefix of every tool name. */
  id: string;
  title: string;
  connection: ConnectionSpec;
  auth: AuthSpec;
  /** Default `[]`. */
  limits: LimitSpec[];
  errors: ErrorsSpec;
  /**
   * Agent tool steps beyond one per operation: composite/legacy steps and the API Call step
   * (runtime/tools/extension.ts).
   */
  tools?: ServiceTools | undefined;
  /** How the behavioural mock behaves (runtime/mock/extension.ts); optional. */
  mock?: MockService | undefined;
};

/** Paging by an opaque token the service returns with each page. */
export type TokenPaging = {
  style: "token";
  tokenParam: string;
  tokenField: string;
  itemsField: string;
  sizeParam?: string | undefined;
  /** Some services always return a token; this boolean field says whether more pages exist. */
  moreField?: string | undefined;
};

/** Paging by offset and limit. */
export type OffsetPaging = {
  style: "offset";
  offsetParam: string;
  limitParam: string;
  /** Field of the response holding the items; `.` for a bare array. */
  itemsField: string;
  maxLimit: number;
  totalField?: string | undefined;
};

/**
 * Paging by page number (`page` + `per_page`): pages are numbered from `firstPage`; the walk ends
 * at a short or empty page, or when `totalField`, `totalPagesField` or `moreField` says so.
 */
export type PagePaging = {
  style: "page";
  pageParam: string;
  sizeParam?: string | undefined;
  /** Field of the response holding the items; `.` for a bare array. */
  itemsField: string;
  /** Number of the first page (1 unless the spec's page parameter starts at 0). */
  firstPage: number;
  /** The most items a page may ask for; the walk asks for it when the call gives no page size. */
  maxSize?: number | undefined;
  totalField?: string | undefined;
  totalPagesField?: string | undefined;
  moreField?: string | undefined;
};

/** How an operation's results are paged, by `style`. */
export type PagingSpec = TokenPaging | OffsetPaging | PagePaging;

export type DelimitedStyle = "form" | "spaceDelimited" | "pipeDelimited";

/** OpenAPI parameter styles (query: form, spaceDelimited, pipeDelimited, deepObject; path: simple, label, matrix). */
export type ParamStyle = DelimitedStyle | "deepObject" | "simple" | "label" | "matrix";

/**
 * How one parameter travels when it is not its place's default (query: form, exploded; path
 * and header: simple, not exploded): its style and explode, or `json` for a parameter declared
 * with `content: application/json` (the value JSON-encoded).
 */
export interface ParamSerialization {
  style?: ParamStyle;
  explode?: boolean;
  json?: true;
}

/**
 * Request media types a body is sent in by preference when the spec offers no JSON one (runtime/client/request.ts
 * rawBody).
 */
export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";
export const OCTET_MEDIA_TYPE = "application/octet-stream";
export const RAW_REQUEST_MEDIA_TYPES = [FORM_MEDIA_TYPE, OCTET_MEDIA_TYPE];
export const JSON_MEDIA_TYPE = "application/json";
/** RFC 7396: a JSON body in which `null` removes the field it names. */
export const MERGE_PATCH_MEDIA_TYPE = "application/merge-patch+json";

/** A media type without its parameters, lower-cased (`Application/JSON; charset=utf-8` → `application/json`). */
export const baseMediaType = (mediaType: string): string => mediaType.split(";")[0]!.trim().toLowerCase();

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/** What the runtime knows about one operation. */
export interface OperationDescriptor {
  operationId: string;
  method: HttpMethod;
  path: string;
  idempotent: boolean;
  limitClass: "read" | "write";
  paging?: PagingSpec;
  /**
   * Parameters that do not travel as their place's default, by place and wire name (runtime/client/params.ts):
   * `explode: false` arrays as one delimited value, deepObject, label and matrix paths, JSON content.
   */
  serialization?: Partial<Record<"query" | "path" | "header", Record<string, ParamSerialization>>>;
  /**
   * The operation's own server (OpenAPI `servers` at operation level, else path level; the first,
   * variables at their defaults): absolute, or relative to the base address's origin.
   */
  server?: string;
  /**
   * The request body's media type when it is not plain application/json. A JSON one
   * (application/merge-patch+json, application/vnd.api+json, …) is sent as JSON under that Content-Type:
   * servers of those types refuse application/json (JSON:API answers 415). Without a JSON one the
   * client sends application/x-www-form-urlencoded bodies as form fields, multipart/* as parts (files
   * as Blob/Uint8Array), and any other type (octet-stream, text/plain, …) as the string or bytes given.
   */
  requestMediaType?: string;
}

/**
 * What of an operation's wire format goes beyond the defaults every client has (JSON bodies, query
 * `form` exploded, `simple` paths, the base address): declared query or path styles, a body that
 * is not JSON, its own server. Such operations need the client's `wire` part (runtime/client/wire.ts);
 * undefined when none of that is declared.
 */
export function declaredWireOf(op: OperationDescriptor): string | undefined {
  if (op.serialization?.query || op.serialization?.path) return "parameter styles";
  if (op.requestMediaType !== undefined && !/json/i.test(op.requestMediaType)) return `a ${op.requestMediaType} body`;
  if (op.server !== undefined) return "its own server";
  return undefined;
}

/**
 * The kind of a declared quota (daily, monthly, reported in headers), undefined when the limits
 * are windows and concurrency only: a quota needs the client's quota part (runtime/limits/quotas.ts).
 */
export function declaredQuotaOf(limits: ReadonlyArray<{ kind: string }>): string | undefined {
  return limits.find((limit) => limit.kind !== "window" && limit.kind !== "concurrency")?.kind;
}

/**
 * `T` as a client ships it: without its description, which stays in the spec and its docs. Every
 * client bundles its descriptor, and the runtime never reads these texts (a limit's is the mock's
 * refusal message, which the generator puts in the mock's own data).
 */
type Undescribed<T> = T extends unknown ? Flat<Omit<T, "description"> & { description?: string | undefined }> : never;

/** A limit as the descriptor ships it (see Undescribed). */
export type ShippedLimit = Undescribed<LimitSpec>;
/** An error rule as the descriptor ships it (see Undescribed). */
export type ShippedErrorRule = Undescribed<ErrorRule>;
/** How the service reports errors, as the descriptor ships it. */
export type ShippedErrors = Flat<
  Omit<ErrorsSpec, "codes" | "statuses"> & {
    codes: Record<string, ShippedErrorRule>;
    statuses: Record<string, ShippedErrorRule>;
  }
>;

/**
 * The whole of what generated code hands the runtime for one service: the spec's extension with
 * what the runtime reads of it (the parsed extension, with its texts, is one too).
 */
export interface ServiceDescriptor extends Omit<ServiceExtension, "limits" | "errors"> {
  limits: ShippedLimit[];
  errors: ShippedErrors;
  operations: Record<string, OperationDescriptor>;
}

/** The descriptor with the spec's texts: what the generator reads, and prints without them (emit/descriptor.ts). */
export interface DeclaredDescriptor extends ServiceDescriptor {
  limits: LimitSpec[];
  errors: ErrorsSpec;
}

/** An operation's idempotence unless the spec says otherwise: HTTP's (every method but POST and PATCH). */
export const idempotentByMethod = (method: string): boolean => method !== "POST" && method !== "PATCH";

/** An operation's limit class unless the spec says otherwise: reads are GET and HEAD. */
export const limitClassByMethod = (method: string): OperationDescriptor["limitClass"] =>
  method === "GET" || method === "HEAD" ? "read" : "write";

/** An operation as a generated descriptor ships it: no id (its key), no idempotence or class that its method gives. */
export type ShippedOperation = Omit<OperationDescriptor, "operationId" | "idempotent" | "limitClass"> &
  Partial<Pick<OperationDescriptor, "idempotent" | "limitClass">>;

/**
 * The operations with what a generated descriptor leaves out filled in: each id from its key, and
 * idempotence and limit class from the method where the spec did not say otherwise (every client
 * ships its descriptor; these were a third of Trello's).
 */
export function withOperationDefaults(
  operations: Record<string, ShippedOperation>,
): Record<string, OperationDescriptor> {
  const complete: Record<string, OperationDescriptor> = {};
  for (const [operationId, op] of Object.entries(operations)) {
    const idempotent = op.idempotent ?? idempotentByMethod(op.method);
    complete[operationId] = {
      operationId,
      ...op,
      idempotent,
      limitClass: op.limitClass ?? limitClassByMethod(op.method),
    };
  }
  return complete;
}
