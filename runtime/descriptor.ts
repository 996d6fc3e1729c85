/**
 * The service descriptor: everything service-specific that the runtime needs, declared in a spec's
 * `x-stepforge` extensions and validated here. The generator validates the YAML against these
 * schemas (so a typo is an error with file:line:col) and emits the parsed result into
 * `generated/<service>/descriptor.ts`; the runtime reads only this shape, never a service name.
 *
 * Every object is `.strict()`: an unknown key is a mistake the author must hear about, not a
 * silently ignored setting.
 *
 * The types are written out beside their schemas instead of being `z.infer`red from them: every
 * project that compiles generated code names them, and resolving zod's inference for one
 * `ServiceExtension` cost its type-check ~4,700 types and ~150 ms. test/types/model-types.ts proves
 * each type identical to the `z.infer` of its schema, so changing one without the other fails
 * `tsc`. They are object type aliases, not interfaces, as zod's inferred types are (an interface
 * is not assignable to `Record<string, unknown>`). Fields are documented on the types; a schema's
 * constraints are on the schema, and its defaults on both.
 */
import * as z from "zod";
import { MockOperationSchema, MockServiceSchema } from "./mock/model.js";
import type { MockService } from "./mock/model.js";
import { OperationToolSchema, ServiceToolsSchema } from "./tools/model.js";
import type { ServiceTools } from "./tools/model.js";

const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "must be an identifier (letters, digits, _)");

/** Where a value travels on the wire. `{field}` placeholders name connection fields or `accessToken`. */
export type Placement = {
  /** A cookie placement travels as `name=value` in the Cookie header, beside the call's own cookies. */
  in: "query" | "header" | "cookie";
  name: string;
  /** Template; `{field}` is replaced by the connection field of that name. */
  value: string;
};

/** Validates {@link Placement}. */
export const PlacementSchema = z
  .object({
    in: z.enum(["query", "header", "cookie"]),
    name: z.string().min(1),
    value: z.string().min(1).describe("template; {field} is replaced by the connection field of that name"),
  })
  .strict();

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

/** Validates {@link ConnectionField}. */
export const ConnectionFieldSchema = z
  .object({
    description: z.string().min(1),
    secret: z.boolean(),
    required: z.boolean().default(true),
    pattern: z.string().optional().describe("regular expression the value must match"),
    trimSuffix: z.string().min(1).optional(),
    example: z.string().optional(),
  })
  .strict();

/** What a connection to the service holds: its base address and its fields. */
export type ConnectionSpec = {
  /** Base address of every request; `{field}` placeholders are connection fields. */
  baseUrl: string;
  /** The connection's fields, by identifier. */
  fields: Record<string, ConnectionField>;
};

/** Validates {@link ConnectionSpec}. */
export const ConnectionSchema = z
  .object({
    baseUrl: z.string().min(1),
    fields: z.record(identifier, ConnectionFieldSchema),
  })
  .strict();

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

/** Validates {@link ApiKeyAuth}. */
const ApiKeyAuthSchema = z
  .object({
    kind: z.literal("api-key"),
    modes: z.record(identifier, z.array(PlacementSchema).min(1)),
    defaultMode: identifier,
    authorize: z
      .object({
        url: z.string().url(),
        query: z.record(z.string().min(1), z.string()).default({}),
      })
      .strict()
      .optional(),
  })
  .strict();

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

/** Validates {@link ClientCredentialsAuth}. */
const ClientCredentialsAuthSchema = z
  .object({
    kind: z.literal("oauth2-client-credentials"),
    tokenUrl: z.string().min(1).describe("template, may use {field} placeholders such as the instance endpoint"),
    tokenMethod: z.enum(["GET", "POST"]).default("GET"),
    clientIdField: identifier,
    clientSecretField: identifier,
    credentialsIn: z.enum(["query", "form", "json"]),
    renewBeforeSeconds: z.number().int().nonnegative().default(300),
    send: PlacementSchema,
  })
  .strict();

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

/** Validates {@link AuthorizationCodeAuth}. */
const AuthorizationCodeAuthSchema = z
  .object({
    kind: z.literal("oauth2-authorization-code"),
    authorizeUrl: z.string().url(),
    tokenUrl: z.string().url(),
    clientIdField: identifier,
    clientSecretField: identifier,
    accessTokenField: identifier,
    refreshTokenField: identifier,
    expiresAtField: identifier.optional(),
    credentialsIn: z.enum(["form", "json"]),
    scopes: z.array(z.string().min(1)).default([]),
    renewBeforeSeconds: z.number().int().nonnegative().default(300),
    rotatesRefreshToken: z.boolean().default(true),
    send: PlacementSchema,
  })
  .strict();

/** A service that takes no credentials (public APIs; foreign specs without security). */
export type NoAuth = {
  kind: "none";
};

/** Validates {@link NoAuth}. */
const NoAuthSchema = z.object({ kind: z.literal("none") }).strict();

/** How the service authenticates a connection, by `kind`. */
export type AuthSpec = NoAuth | ApiKeyAuth | ClientCredentialsAuth | AuthorizationCodeAuth;

/** Validates {@link AuthSpec}. */
export const AuthSchema = z.discriminatedUnion("kind", [
  NoAuthSchema,
  ApiKeyAuthSchema,
  ClientCredentialsAuthSchema,
  AuthorizationCodeAuthSchema,
]);

/** How the service says "no" when a limit is crossed: an HTTP status or a service error code (at least one). */
export type Rejection = {
  status?: number | undefined;
  code?: string | undefined;
};

/** Validates {@link Rejection}. */
export const RejectionSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().optional(),
  })
  .strict()
  .refine((r) => r.status !== undefined || r.code !== undefined, "give `status` or `code`");

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
  /** After the service refuses a request under this limit, it refuses every request under the same key for this long. */
  penaltySeconds?: number | undefined;
  /** Only requests whose path starts with this count (a route with its own budget). */
  pathPrefix?: string | undefined;
  rejection: Rejection;
};

/** At most `requests` per `windowSeconds`. */
export type WindowLimit = Flat<LimitSpecBase & {
  kind: "window";
  requests: number;
  windowSeconds: number;
}>;

/** At most `max` requests in flight at once. */
export type ConcurrencyLimit = Flat<LimitSpecBase & {
  kind: "concurrency";
  max: number;
}>;

/** At most `requests` per day. */
export type DailyQuotaLimit = Flat<LimitSpecBase & {
  kind: "daily-quota";
  requests: number;
  /** IANA zone whose midnight resets the quota. */
  resetTimeZone: string;
}>;

/** At most `requests` per month. */
export type MonthlyQuotaLimit = Flat<LimitSpecBase & {
  kind: "monthly-quota";
  requests: number;
  /** IANA zone whose midnight on the 1st resets the quota. */
  resetTimeZone: string;
}>;

/** A quota the service reports in response headers. */
export type HeaderQuotaLimit = Flat<LimitSpecBase & {
  kind: "header-quota";
  /** Response headers that report what is left; the client stops before it reaches zero. */
  remainingHeader: string;
  usedHeader?: string | undefined;
  costHeader?: string | undefined;
  resetTimeZone: string;
}>;

/** One limit of the service, by `kind`. */
export type LimitSpec = WindowLimit | ConcurrencyLimit | DailyQuotaLimit | MonthlyQuotaLimit | HeaderQuotaLimit;

/** The fields of {@link LimitSpecBase}. */
const LimitBase = {
  id: identifier,
  description: z.string().min(1),
  applies: z.enum(["all", "read", "write"]).default("all"),
  per: z.union([z.literal("connection"), z.string().regex(/^field:[a-zA-Z][a-zA-Z0-9_]*$/), z.string().regex(/^path:[a-zA-Z][a-zA-Z0-9_]*$/)]).default("connection"),
  excludePathPrefixes: z.array(z.string().startsWith("/")).optional(),
  penaltySeconds: z.number().positive().optional(),
  pathPrefix: z.string().startsWith("/").optional(),
  rejection: RejectionSchema,
};

/** Validates {@link LimitSpec}. */
export const LimitSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("window"), ...LimitBase, requests: z.number().int().positive(), windowSeconds: z.number().positive() }).strict(),
  z.object({ kind: z.literal("concurrency"), ...LimitBase, max: z.number().int().positive() }).strict(),
  z
    .object({
      kind: z.literal("daily-quota"),
      ...LimitBase,
      requests: z.number().int().positive(),
      resetTimeZone: z.string().min(1).describe("IANA zone whose midnight resets the quota"),
    })
    .strict(),
  z.object({ kind: z.literal("monthly-quota"), ...LimitBase, requests: z.number().int().positive(),
    resetTimeZone: z.string().min(1).describe("IANA zone whose midnight on the 1st resets the quota") }).strict(),
  z
    .object({
      kind: z.literal("header-quota"),
      ...LimitBase,
      remainingHeader: z.string().min(1),
      usedHeader: z.string().min(1).optional(),
      costHeader: z.string().min(1).optional(),
      resetTimeZone: z.string().min(1),
    })
    .strict(),
]);

/** What kind of failure an error is; decides retries, renewals and what a caller is told. */
export type ErrorKind =
  | "auth"
  | "permission"
  | "not_found"
  | "validation"
  | "conflict"
  | "rate_limited"
  | "quota_exhausted"
  | "timeout"
  | "network"
  | "server";

/** Validates {@link ErrorKind}. */
export const ErrorKindSchema = z.enum([
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
]);

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

/** Validates {@link ErrorRule}. */
export const ErrorRuleSchema = z
  .object({
    kind: ErrorKindSchema,
    retry: z.boolean().default(false),
    reauth: z.boolean().default(false),
    resendSafe: z.boolean().optional(),
    description: z.string().min(1),
  })
  .strict();

/** Errors reported inside a successful HTTP response (Marketo's `success: false`). */
export type ErrorEnvelope = {
  successField: string;
  errorsField: string;
  codeField: string;
  messageField: string;
};

/** How the service reports errors, and what each one means. */
export type ErrorsSpec = {
  /** Errors reported inside a successful HTTP response (Marketo's `success: false`). */
  envelope?: ErrorEnvelope | undefined;
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

/** Validates {@link ErrorsSpec}. */
export const ErrorsSchema = z
  .object({
    envelope: z
      .object({
        successField: z.string().min(1),
        errorsField: z.string().min(1),
        codeField: z.string().min(1),
        messageField: z.string().min(1),
      })
      .strict()
      .optional(),
    messageFields: z.array(z.string().min(1)).default(["message", "error"]),
    requestIdHeaders: z.array(z.string().min(1)).default([]),
    requestIdField: z.string().min(1).optional(),
    retryAfterHeaders: z.array(z.string().min(1)).default(["retry-after"]),
    codes: z.record(z.string().regex(/^[0-9A-Za-z_]+$/), ErrorRuleSchema).default({}),
    statuses: z.record(z.string().regex(/^[1-5][0-9][0-9]$/, "an HTTP status code"), ErrorRuleSchema).default({}),
  })
  .strict();

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
  /** Agent tool steps beyond one per operation: composite/legacy steps and the API Call step (runtime/tools/model.ts). */
  tools?: ServiceTools | undefined;
  /** How the behavioural mock behaves (runtime/mock/model.ts); optional. */
  mock?: MockService | undefined;
};

/** Validates {@link ServiceExtension}. */
export const ServiceExtensionSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9]{1,30}$/, "lower-case letters and digits, starting with a letter"),
    title: z.string().min(1),
    connection: ConnectionSchema,
    auth: AuthSchema,
    limits: z.array(LimitSchema).default([]),
    errors: ErrorsSchema,
    tools: ServiceToolsSchema.optional(),
    mock: MockServiceSchema.optional(),
  })
  .strict();

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

/** Validates {@link PagingSpec}. */
export const PagingSchema = z.discriminatedUnion("style", [
  z
    .object({
      style: z.literal("token"),
      tokenParam: z.string().min(1),
      tokenField: z.string().min(1),
      itemsField: z.string().min(1),
      sizeParam: z.string().min(1).optional(),
      moreField: z.string().min(1).optional(),
    })
    .strict(),
  z
    .object({
      style: z.literal("offset"),
      offsetParam: z.string().min(1),
      limitParam: z.string().min(1),
      itemsField: z.string().min(1).describe("field of the response holding the items; `.` for a bare array"),
      maxLimit: z.number().int().positive(),
      totalField: z.string().min(1).optional(),
    })
    .strict(),
  z
    .object({
      style: z.literal("page"),
      pageParam: z.string().min(1),
      sizeParam: z.string().min(1).optional(),
      itemsField: z.string().min(1).describe("field of the response holding the items; `.` for a bare array"),
      firstPage: z.number().int().min(0).default(1),
      maxSize: z.number().int().positive().optional(),
      totalField: z.string().min(1).optional(),
      totalPagesField: z.string().min(1).optional(),
      moreField: z.string().min(1).optional(),
    })
    .strict(),
]);

/** Where the seed document and the public API disagree; kept in the spec so a reader sees it. */
export const SeedNoteSchema = z
  .object({
    name: z.string().min(1).describe("the operation's name in the seed document"),
    differs: z.string().min(1).optional().describe("how the real API differs from the seed, and what we did"),
  })
  .strict();

export const OperationExtensionsSchema = z
  .object({
    "x-stepforge-paging": PagingSchema.optional(),
    /** Safe to send again after a timeout. Defaults: GET/HEAD/PUT/DELETE yes, POST/PATCH no. */
    "x-stepforge-idempotent": z.boolean().optional(),
    /** Which limit class the call counts against. Defaults: GET/HEAD read, others write. */
    "x-stepforge-limit-class": z.enum(["read", "write"]).optional(),
    "x-stepforge-seed": SeedNoteSchema.optional(),
    /** The agent tool step of this operation: name, wording, fixed values, hints, or skip (runtime/tools/model.ts). */
    "x-stepforge-tool": OperationToolSchema.optional(),
    /** What the behavioural mock does for this operation (runtime/mock/model.ts); optional. */
    "x-stepforge-mock": MockOperationSchema.optional(),
  })
  .strict();

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

/** Request media types a body is sent in by preference when the spec offers no JSON one (runtime/client/request.ts rawBody). */
export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";
export const OCTET_MEDIA_TYPE = "application/octet-stream";
export const RAW_REQUEST_MEDIA_TYPES = [FORM_MEDIA_TYPE, OCTET_MEDIA_TYPE];

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
   * The request body's media type when the spec gives it no JSON one. The client sends
   * application/x-www-form-urlencoded bodies as form fields, multipart/* as parts (files as
   * Blob/Uint8Array), and any other type (octet-stream, text/plain, …) as the string or bytes given.
   */
  requestMediaType?: string;
}

/** The whole of what generated code hands the runtime for one service. */
export interface ServiceDescriptor extends ServiceExtension {
  operations: Record<string, OperationDescriptor>;
}
