/**
 * The service descriptor: everything service-specific that the runtime needs, declared in a spec's
 * `x-stepforge` extensions and validated here. The generator validates the YAML against these
 * schemas (so a typo is an error with file:line:col) and emits the parsed result into
 * `generated/<service>/descriptor.ts`; the runtime reads only this shape, never a service name.
 *
 * Every object is `.strict()`: an unknown key is a mistake the author must hear about, not a
 * silently ignored setting.
 */
import * as z from "zod";
import { MockOperationSchema, MockServiceSchema } from "./mock/model.js";
import { OperationToolSchema, ServiceToolsSchema } from "./tools/model.js";

const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "must be an identifier (letters, digits, _)");

/** Where a value travels on the wire. `{field}` placeholders name connection fields or `accessToken`. */
export const PlacementSchema = z
  .object({
    in: z.enum(["query", "header"]),
    name: z.string().min(1),
    value: z.string().min(1).describe("template; {field} is replaced by the connection field of that name"),
  })
  .strict();

export const ConnectionFieldSchema = z
  .object({
    description: z.string().min(1),
    secret: z.boolean(),
    required: z.boolean().default(true),
    pattern: z.string().optional().describe("regular expression the value must match"),
    /** Removed from the end of the value before use (e.g. the "/rest" Marketo's admin page shows). */
    trimSuffix: z.string().min(1).optional(),
    example: z.string().optional(),
  })
  .strict();

export const ConnectionSchema = z
  .object({
    /** Base address of every request; `{field}` placeholders are connection fields. */
    baseUrl: z.string().min(1),
    fields: z.record(identifier, ConnectionFieldSchema),
  })
  .strict();

const ApiKeyAuthSchema = z
  .object({
    kind: z.literal("api-key"),
    /** Named ways of sending the credentials; the connection picks one, `defaultMode` otherwise. */
    modes: z.record(identifier, z.array(PlacementSchema).min(1)),
    defaultMode: identifier,
    /**
     * Where a user sends their browser to mint a token for this key (Trello's /1/authorize).
     * `query` values are templates; `{name}` is filled from the values the caller passes to
     * `authorizeUrl()` (for example `{apiKey}`, `{appName}`).
     */
    authorize: z
      .object({
        url: z.string().url(),
        query: z.record(z.string().min(1), z.string()).default({}),
      })
      .strict()
      .optional(),
  })
  .strict();

const ClientCredentialsAuthSchema = z
  .object({
    kind: z.literal("oauth2-client-credentials"),
    tokenUrl: z.string().min(1).describe("template, may use {field} placeholders such as the instance endpoint"),
    tokenMethod: z.enum(["GET", "POST"]).default("GET"),
    clientIdField: identifier,
    clientSecretField: identifier,
    /** Where client_id / client_secret / grant_type go on the token request. */
    credentialsIn: z.enum(["query", "form", "json"]),
    renewBeforeSeconds: z.number().int().nonnegative().default(300),
    send: PlacementSchema,
  })
  .strict();

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
    /** The service hands back a new refresh token on every refresh; the caller's store must keep it. */
    rotatesRefreshToken: z.boolean().default(true),
    send: PlacementSchema,
  })
  .strict();

/** A service that takes no credentials (public APIs; foreign specs without security). */
const NoAuthSchema = z.object({ kind: z.literal("none") }).strict();

export const AuthSchema = z.discriminatedUnion("kind", [
  NoAuthSchema,
  ApiKeyAuthSchema,
  ClientCredentialsAuthSchema,
  AuthorizationCodeAuthSchema,
]);

/** How the service says "no" when a limit is crossed: an HTTP status or a service error code. */
export const RejectionSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().optional(),
  })
  .strict()
  .refine((r) => r.status !== undefined || r.code !== undefined, "give `status` or `code`");

const LimitBase = {
  id: identifier,
  description: z.string().min(1),
  /** Which requests count: all, or only reads (GET/HEAD) or writes (everything else). */
  applies: z.enum(["all", "read", "write"]).default("all"),
  /**
   * What the limit is counted per: the whole connection, one credential field shared by
   * connections (`field:apiKey`), or one path parameter's value shared by every connection of
   * the service (`path:idBoard`: per board, workspace or base). A `path:` limit applies only to
   * operations whose path template has that parameter.
   */
  per: z.union([z.literal("connection"), z.string().regex(/^field:[a-zA-Z][a-zA-Z0-9_]*$/), z.string().regex(/^path:[a-zA-Z][a-zA-Z0-9_]*$/)]).default("connection"),
  /** Requests whose path starts with one of these neither count nor wait (routes the limit does not cover). */
  excludePathPrefixes: z.array(z.string().startsWith("/")).optional(),
  /** After the service refuses a request under this limit, it refuses every request under the same key for this long. */
  penaltySeconds: z.number().positive().optional(),
  /** Only requests whose path starts with this count (a route with its own budget). */
  pathPrefix: z.string().startsWith("/").optional(),
  rejection: RejectionSchema,
};

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
      /** Response headers that report what is left; the client stops before it reaches zero. */
      remainingHeader: z.string().min(1),
      usedHeader: z.string().min(1).optional(),
      costHeader: z.string().min(1).optional(),
      resetTimeZone: z.string().min(1),
    })
    .strict(),
]);

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

export const ErrorRuleSchema = z
  .object({
    kind: ErrorKindSchema,
    retry: z.boolean().default(false),
    /** Renew the credentials once and repeat the call. */
    reauth: z.boolean().default(false),
    /**
     * The service did not act on the request (it was refused before any work), so resending is
     * safe even for an operation that is not idempotent. Default: true for `rate_limited` and
     * `quota_exhausted` kinds and HTTP 503, false otherwise (a POST that failed with 502/504 or a
     * timeout may have been carried out, and is resent only when the operation is idempotent).
     */
    resendSafe: z.boolean().optional(),
    description: z.string().min(1),
  })
  .strict();

export const ErrorsSchema = z
  .object({
    /** Errors reported inside a successful HTTP response (Marketo's `success: false`). */
    envelope: z
      .object({
        successField: z.string().min(1),
        errorsField: z.string().min(1),
        codeField: z.string().min(1),
        messageField: z.string().min(1),
      })
      .strict()
      .optional(),
    /**
     * Where a human-readable message sits in a JSON error body, first match wins: a top-level key,
     * or a dotted path into nested objects (`error.message`). Plain-text bodies are used whole.
     */
    messageFields: z.array(z.string().min(1)).default(["message", "error"]),
    /** Response headers carrying the service's request id (first present wins). */
    requestIdHeaders: z.array(z.string().min(1)).default([]),
    /** Body field (key or dotted path, as in messageFields) carrying the request id when no header does. */
    requestIdField: z.string().min(1).optional(),
    retryAfterHeaders: z.array(z.string().min(1)).default(["retry-after"]),
    codes: z.record(z.string().regex(/^[0-9A-Za-z_]+$/), ErrorRuleSchema).default({}),
    statuses: z.record(z.string().regex(/^[1-5][0-9][0-9]$/, "an HTTP status code"), ErrorRuleSchema).default({}),
  })
  .strict();

export const ServiceExtensionSchema = z
  .object({
    /** Service id: the module name (`stepforge/<id>`) and the prefix of every tool name. */
    id: z.string().regex(/^[a-z][a-z0-9]{1,30}$/, "lower-case letters and digits, starting with a letter"),
    title: z.string().min(1),
    connection: ConnectionSchema,
    auth: AuthSchema,
    limits: z.array(LimitSchema).default([]),
    errors: ErrorsSchema,
    /** Agent tool steps beyond one per operation: composite/legacy steps and the API Call step (runtime/tools/model.ts). */
    tools: ServiceToolsSchema.optional(),
    /** How the behavioural mock behaves (runtime/mock/model.ts); optional. */
    mock: MockServiceSchema.optional(),
  })
  .strict();

export const PagingSchema = z.discriminatedUnion("style", [
  z
    .object({
      style: z.literal("token"),
      tokenParam: z.string().min(1),
      tokenField: z.string().min(1),
      itemsField: z.string().min(1),
      sizeParam: z.string().min(1).optional(),
      /** Some services always return a token; this boolean field says whether more pages exist. */
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

export type Placement = z.infer<typeof PlacementSchema>;
export type ConnectionField = z.infer<typeof ConnectionFieldSchema>;
export type AuthSpec = z.infer<typeof AuthSchema>;
export type LimitSpec = z.infer<typeof LimitSchema>;
export type ErrorKind = z.infer<typeof ErrorKindSchema>;
export type ErrorRule = z.infer<typeof ErrorRuleSchema>;
export type ErrorsSpec = z.infer<typeof ErrorsSchema>;
export type PagingSpec = z.infer<typeof PagingSchema>;
export type ServiceExtension = z.infer<typeof ServiceExtensionSchema>;

export type DelimitedStyle = "form" | "spaceDelimited" | "pipeDelimited";

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
   * Array query parameters sent as one delimited value (OpenAPI `explode: false`), by their
   * style: form `a,b`, spaceDelimited `a b`, pipeDelimited `a|b`; others repeat the key.
   */
  delimitedQuery?: Record<string, DelimitedStyle>;
}

/** The whole of what generated code hands the runtime for one service. */
export interface ServiceDescriptor extends ServiceExtension {
  operations: Record<string, OperationDescriptor>;
}
