/**
 * The zod schemas of the spec's `x-stepforge` extensions (the service root and each operation),
 * composing the tool-step and mock schemas. Only the generator validates with them; the runtime
 * and generated clients use the plain types in descriptor.ts, so zod stays out of their bundles.
 *
 * Every object is `.strict()`: an unknown key is a mistake the author must hear about, not a
 * silently ignored setting. Fields are documented on the types in descriptor.ts; a schema's
 * constraints are here, and its defaults in both.
 */
import * as z from "zod";
import { ERROR_KINDS } from "./descriptor.js";
import { MockOperationSchema, MockServiceSchema } from "./mock/extension.js";
import { OperationToolSchema, ServiceToolsSchema } from "./tools/extension.js";

const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "must be an identifier (letters, digits, _)");

/** Validates {@link Placement}. */
export const PlacementSchema = z
  .object({
    in: z.enum(["query", "header", "cookie"]),
    name: z.string().min(1),
    value: z.string().min(1).describe("template; {field} is replaced by the connection field of that name"),
  })
  .strict();

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

/** Validates {@link ConnectionSpec}. */
export const ConnectionSchema = z
  .object({
    baseUrl: z.string().min(1),
    fields: z.record(identifier, ConnectionFieldSchema),
  })
  .strict();

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

/** Validates {@link NoAuth}. */
const NoAuthSchema = z.object({ kind: z.literal("none") }).strict();

/** Validates {@link AuthSpec}. */
export const AuthSchema = z.discriminatedUnion("kind", [
  NoAuthSchema,
  ApiKeyAuthSchema,
  ClientCredentialsAuthSchema,
  AuthorizationCodeAuthSchema,
]);

/** Validates {@link Rejection}. */
export const RejectionSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().optional(),
  })
  .strict()
  .refine((r) => r.status !== undefined || r.code !== undefined, "give `status` or `code`");

/** The fields of {@link LimitSpecBase}. */
const LimitBase = {
  id: identifier,
  description: z.string().min(1),
  applies: z.enum(["all", "read", "write"]).default("all"),
  per: z
    .union([
      z.literal("connection"),
      z.string().regex(/^field:[a-zA-Z][a-zA-Z0-9_]*$/),
      z.string().regex(/^path:[a-zA-Z][a-zA-Z0-9_]*$/),
    ])
    .default("connection"),
  excludePathPrefixes: z.array(z.string().startsWith("/")).optional(),
  penaltySeconds: z.number().positive().optional(),
  pathPrefix: z.string().startsWith("/").optional(),
  rejection: RejectionSchema,
};

/** A quota of `requests` per calendar day or month, reset at the midnight `resetsAt` describes. */
function calendarQuota<Kind extends "daily-quota" | "monthly-quota">(kind: Kind, resetsAt: string) {
  return z
    .object({
      kind: z.literal(kind),
      ...LimitBase,
      requests: z.number().int().positive(),
      resetTimeZone: z.string().min(1).describe(resetsAt),
    })
    .strict();
}

/** Validates {@link LimitSpec}. */
export const LimitSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("window"),
      ...LimitBase,
      requests: z.number().int().positive(),
      windowSeconds: z.number().positive(),
    })
    .strict(),
  z.object({ kind: z.literal("concurrency"), ...LimitBase, max: z.number().int().positive() }).strict(),
  calendarQuota("daily-quota", "IANA zone whose midnight resets the quota"),
  calendarQuota("monthly-quota", "IANA zone whose midnight on the 1st resets the quota"),
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

/** Validates {@link ErrorKind}. */
export const ErrorKindSchema = z.enum(ERROR_KINDS);

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
    /** This operation's agent tool step: name, wording, fixed values, hints, or skip (runtime/tools/extension.ts). */
    "x-stepforge-tool": OperationToolSchema.optional(),
    /** What the behavioural mock does for this operation (runtime/mock/extension.ts); optional. */
    "x-stepforge-mock": MockOperationSchema.optional(),
  })
  .strict();
