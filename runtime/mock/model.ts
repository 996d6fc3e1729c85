/**
 * The mock model: how a service's behavioural mock behaves, declared in the spec's
 * `x-stepforge.mock` (service) and `x-stepforge-mock` (operation) extensions and validated here.
 * The engine (runtime/mock/engine.ts) reads only this shape plus the service descriptor and the
 * spec's schemas and examples; it never looks at a service name.
 *
 * Values called "templates" are JSON values whose strings may hold `{name}` placeholders. A string
 * that is exactly one placeholder takes the value itself (a number, an array, an object); a value
 * that resolves to undefined is left out of its object. Names are dotted paths into the request
 * context: `path.id`, `query.filterType`, `body.input`, `record.idBoard`, `ref.list.idBoard`,
 * `items`, `page.offset`, `requestId`, `now`, `newId`, `message`, `code`, `status`, …
 *
 * Every object is `.strict()`, as in runtime/descriptor.ts.
 */
import * as z from "zod";

const template = z.unknown();
const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "must be an identifier (letters, digits, _)");

/** How the service lays out an error body: content type, body template, optional fixed status. */
export const MockErrorTemplateSchema = z
  .object({
    /** A fixed HTTP status (Marketo answers errors inside HTTP 200); otherwise the answer's status. */
    status: z.number().int().min(100).max(599).optional(),
    contentType: z.string().min(1),
    /** Template; `{message}`, `{code}`, `{status}`, `{requestId}` are filled. A string body is sent as is. */
    body: template,
    headers: z.record(z.string().min(1), z.string()).optional(),
  })
  .strict();

/** One made-up answer: the status or service code and message the real service gives in that case. */
export const MockAnswerSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().optional(),
    /** Template string; `{field}` (the offending field), `{detail}`, `{method}`, `{path}` are filled. */
    message: z.string().min(1),
    /** Overrides the service's error template for this answer. */
    template: MockErrorTemplateSchema.optional(),
  })
  .strict();

export const MOCK_SITUATIONS = [
  "badRequest",
  "invalidJson",
  "noRoute",
  "notFound",
  "unauthorized",
  "expiredToken",
  "server",
  "webhookRejected",
  "tokenRejected",
] as const;
export type MockSituation = (typeof MOCK_SITUATIONS)[number];

const answers = z
  .object(Object.fromEntries(MOCK_SITUATIONS.map((s) => [s, MockAnswerSchema.optional()])) as Record<MockSituation, z.ZodOptional<typeof MockAnswerSchema>>)
  .strict();

export const MockLimitAnswerSchema = z
  .object({
    code: z.string().optional(),
    message: z.string().min(1),
    /** Send Retry-After (seconds until the window has room). */
    retryAfter: z.boolean().default(false),
    template: MockErrorTemplateSchema.optional(),
  })
  .strict();

export const MockSeedSchema = z
  .object({
    /** Take records from this operation's success example(s). */
    operation: z.string().min(1),
    /** Path of the records in the example body; absent means the body (an array or one record). */
    items: z.string().min(1).optional(),
    /** The example lists newest first: records are created in reverse, oldest first. */
    newestFirst: z.boolean().default(false),
  })
  .strict();

export const MockResourceSchema = z
  .object({
    idField: z.string().min(1).default("id"),
    /**
     * How new ids look: 24 hex characters (Trello), integers counting up, a uuid, prefix + 16 hex
     * (`prefixed`), or prefix + `length` characters drawn from `alphabet` (`random`: Airtable's
     * `rec` + 14 alphanumerics is `{format: random, prefix: rec, alphabet: "A-Za-z0-9", length: 14}`).
     */
    id: z
      .object({
        format: z.enum(["hex24", "integer", "uuid", "prefixed", "random"]),
        prefix: z.string().optional(),
        start: z.number().int().optional(),
        /** Characters of `random` ids: literal characters and `a-z` style ranges. */
        alphabet: z.string().min(1).optional(),
        length: z.number().int().min(1).max(256).optional(),
      })
      .strict()
      .refine((id) => id.format !== "random" || (id.alphabet !== undefined && id.length !== undefined), "a random id format needs `alphabet` and `length`")
      .refine((id) => id.format === "random" || (id.alphabet === undefined && id.length === undefined), "`alphabet` and `length` apply to the random id format only")
      .default({ format: "uuid" }),
    seed: z.array(MockSeedSchema).default([]),
    /** Template of fields every new record starts with (request fields override them). */
    defaults: z.record(z.string().min(1), template).default({}),
    /** Field set to the time on create / on every update. */
    createdField: z.string().min(1).optional(),
    updatedField: z.string().min(1).optional(),
    /**
     * Records live under a parent (a board, a base): this field holds the parent's id. An operation
     * with `parent` sees only that parent's records, and its creates are put under it.
     */
    parentField: z.string().min(1).optional(),
    /**
     * Records are ordered by a numeric position field (Trello's `pos`): lists come back sorted by
     * it; a write of `top` puts the record before its siblings (half the smallest), `bottom` or
     * nothing after them (largest + `step`). Siblings share the `within` field (cards: `idList`).
     */
    position: z
      .object({ field: z.string().min(1), within: z.string().min(1).optional(), step: z.number().positive().default(16384) })
      .strict()
      .optional(),
  })
  .strict();

export const MockTokenSchema = z
  .object({
    /** Seconds an issued access token lives (options.tokenLifetimeSeconds overrides). */
    lifetimeSeconds: z.number().int().positive(),
    /** Template of the token endpoint's success body; `{accessToken}`, `{refreshToken}`, `{expiresIn}`, `{nowSeconds}`. */
    response: template,
    /** Calling the token endpoint again before expiry returns the same token (Marketo). */
    reuseUntilExpiry: z.boolean().default(false),
    /** How new access tokens look: `{uuid}`, `{hex}` placeholders. */
    format: z.string().min(1).default("{uuid}"),
  })
  .strict();

export const MockWebhooksSchema = z
  .object({
    /** The resource whose records are webhook registrations. */
    resource: identifier,
    callbackField: z.string().min(1),
    modelField: z.string().min(1),
    activeField: z.string().min(1).optional(),
    /** Method of the probe sent to the callback before a registration is accepted (must answer 200). */
    probeMethod: z.enum(["HEAD", "GET"]).optional(),
    signature: z
      .object({
        header: z.string().min(1),
        algorithm: z.enum(["sha1", "sha256"]),
        encoding: z.enum(["base64", "hex"]),
        /** What is signed, in order: the raw body, then the callback URL as registered. */
        message: z.array(z.enum(["body", "callbackUrl"])).min(1),
      })
      .strict(),
    /** Record fields whose values name the models a change concerns (the webhook's model field is matched against them). */
    matchFields: z.array(z.string().min(1)).min(1),
    /** Template of a delivery; `{event}`, `{eventData}`, `{model}`, `{webhook}`, `{newId}`, `{now}`, `{actorId}`. */
    payload: template,
    /** A callback answering this status makes the service delete the webhook (Trello: 410). */
    goneStatus: z.number().int().optional(),
    /**
     * A delivery that fails (no 2xx, or no answer within `timeoutSeconds`) is sent again after
     * each of `delaysSeconds`; every failed delivery adds one to the webhook's `failuresField` and
     * sets `firstFailureField` at the first failure of a run; a delivered one resets both.
     */
    retry: z
      .object({
        delaysSeconds: z.array(z.number().nonnegative()).default([]),
        timeoutSeconds: z.number().positive().default(30),
        failuresField: z.string().min(1).optional(),
        firstFailureField: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** How a token-paged list writes its opaque page tokens: the encoding of the position, behind a prefix. */
export const MockPageTokenSchema = z
  .object({
    encoding: z.enum(["base64url", "base32", "hex"]).default("base64url"),
    prefix: z.string().default(""),
  })
  .strict();

/** Page size of one operation's lists: used when the call gives none, and the most it may ask for. */
export const MockPageSizeSchema = z
  .object({ default: z.number().int().positive(), max: z.number().int().positive() })
  .strict()
  .refine((p) => p.default <= p.max, "pageSize.default must not exceed pageSize.max");

export const MockServiceSchema = z
  .object({
    /** Default loopback ports: the behavioural mock and the Prism contract mock. */
    ports: z.object({ mock: z.number().int().min(1024).max(65535), prism: z.number().int().min(1024).max(65535) }).strict().optional(),
    /** Connection field values the mock accepts by default (fake, for tests). */
    credentials: z.record(identifier, z.string()),
    /** Id the mock reports as the acting user/member (`{actorId}`). */
    actorId: z.string().optional(),
    error: MockErrorTemplateSchema,
    answers,
    /** Per limit id of the descriptor: the code, message and headers of its rejection. */
    limits: z.record(identifier, MockLimitAnswerSchema).default({}),
    /** Points a `header-quota` limit grants per day, and what a call costs. */
    quota: z
      .object({ points: z.number().positive(), perCall: z.number().nonnegative(), perResult: z.number().nonnegative() })
      .strict()
      .optional(),
    token: MockTokenSchema.optional(),
    /** Default response templates: `{record}` for one record, `{items}` for a list. */
    envelopes: z.object({ record: template.optional(), list: template.optional() }).strict().default({}),
    /** Page size when a token-paged call does not give one. */
    pageSize: z.number().int().positive().default(300),
    /** How token-paged lists write their tokens (default base64url, no prefix). */
    pageToken: MockPageTokenSchema.optional(),
    resources: z.record(identifier, MockResourceSchema).default({}),
    webhooks: MockWebhooksSchema.optional(),
  })
  .strict();

export const MockRefSchema = z
  .object({
    resource: identifier,
    id: z.string().min(1).describe("template naming the record"),
    /** Without the record the call fails with this answer (default notFound); absent: optional. */
    missing: z.enum(["badRequest", "notFound"]).optional(),
    /** `{field}` in the answer's message. */
    field: z.string().optional(),
  })
  .strict();

export const MockOperationSchema = z
  .object({
    action: z.enum(["example", "create", "read", "update", "delete", "list", "push", "pull", "updateItem", "upsert", "link", "unlink", "linked", "isLinked", "pageToken"]),
    resource: identifier.optional(),
    /** Template naming the record (read, update, delete, push, pull); default `{path.id}`. */
    id: z.string().min(1).optional(),
    /** Records another must exist for the call to go on; `ref.<name>.<field>` in templates. */
    refs: z.record(identifier, MockRefSchema).default({}),
    /** Where the record's fields come from on create/update: the body (default), a body field, or nowhere. */
    from: z.string().min(1).default("body"),
    /** Extra fields set on create/update (dotted paths → templates). */
    set: z.record(z.string().min(1), template).default({}),
    /** List filters: field (dotted; `a|b` tries several, `~` prefix: contains, case-insensitive) → template. Undefined values filter nothing; commas mean "any of". */
    where: z.record(z.string().min(1), z.string()).default({}),
    newestFirst: z.boolean().default(false),
    /**
     * list: request values of a `where` filter translated to record values, per field
     * (`{unread: {unread: "true", read: "false", all: ""}}`); a value mapped to "" filters nothing,
     * one the map lacks is kept as it is.
     */
    whereMap: z.record(z.string().min(1), z.record(z.string(), z.string())).optional(),
    /** list: only records created after (`newerThan`) / before (`olderThan`) the record this id template names. */
    newerThan: z.string().min(1).optional(),
    olderThan: z.string().min(1).optional(),
    /** push/pull: the array field and the value template. */
    field: z.string().min(1).optional(),
    value: template.optional(),
    /** upsert/link/unlink/isLinked: where the inputs are (`body.input`, `query.id`) and which field of an input is its key. */
    inputs: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    /** upsert: template of the lookup field name (e.g. `{body.lookupField}`), default the key. */
    lookupField: z.string().optional(),
    /** link/unlink/linked/isLinked: the relation's name and its owner's id template. */
    relation: identifier.optional(),
    owner: z.string().min(1).optional(),
    /** Per-input result template (`{input}`, `{record}`, `{status}`); and the statuses used. */
    result: template.optional(),
    statuses: z.record(z.string().min(1), z.string()).default({}),
    /** Result of an input whose record does not exist (`{input}`). */
    missingResult: template.optional(),
    /** Response template; default: the service envelope for records/lists, the spec example otherwise. */
    respond: template.optional(),
    /** Webhook event fired when the call changes state; `eventData` is its data template. */
    event: z.string().min(1).optional(),
    eventData: template.optional(),
    /** update: `shallow` replaces top-level fields; `deep` merges nested objects field by field (a PATCH of `prefs.color` keeps the other prefs). */
    merge: z.enum(["shallow", "deep"]).default("shallow"),
    /** Template of the parent id the call works under (`{path.baseId}`); needs the resource's `parentField`. */
    parent: z.string().min(1).optional(),
    /** list: page size of this operation, over the service's `pageSize` and the paging's `maxLimit`. */
    pageSize: MockPageSizeSchema.optional(),
    /** list: how this operation's page tokens look, over the service's `pageToken`. */
    pageToken: MockPageTokenSchema.optional(),
    /** push/updateItem: array elements ordered by a position field (`top`, `bottom`, a number). */
    position: z.object({ field: z.string().min(1), step: z.number().positive().default(16384) }).strict().optional(),
    /** updateItem: template of the id of the array element to change (matched against its `id`). */
    itemId: z.string().min(1).optional(),
    /** pageToken: the field compared with `since` (the token points at the first record at or after it). */
    sinceField: z.string().min(1).optional(),
    since: z.string().min(1).optional(),
    /**
     * Records the call also writes to another resource, one per record it touched (an activity log,
     * notifications): `{record}`, `{status}` (upsert/link outcome), `{input}`, `{now}` are filled.
     * `when` limits it to some outcomes (`created`, `updated`, `added`…).
     */
    log: z
      .array(z.object({ resource: identifier, record: template, when: z.array(z.string().min(1)).optional() }).strict())
      .default([]),
  })
  .strict()
  .superRefine((op, ctx) => {
    // A key the action does not read would do nothing: refuse it, naming the actions that read it.
    const onlyFor: Array<[keyof typeof op, readonly string[]]> = [
      ["pageSize", ["list", "linked"]],
      ["pageToken", ["list", "linked", "pageToken"]],
      ["whereMap", ["list", "updateItem", "pageToken"]],
      ["newerThan", ["list", "pageToken"]],
      ["olderThan", ["list", "pageToken"]],
      ["itemId", ["updateItem"]],
      ["position", ["push", "updateItem"]],
      ["sinceField", ["pageToken"]],
      ["since", ["pageToken"]],
    ];
    for (const [key, actions] of onlyFor) {
      if (op[key] !== undefined && !actions.includes(op.action)) {
        ctx.addIssue({ code: "custom", path: [key], message: `"${String(key)}" applies to the ${actions.join("/")} action${actions.length > 1 ? "s" : ""}, not ${op.action}` });
      }
    }
    if (op.merge === "deep" && !["update", "updateItem"].includes(op.action)) ctx.addIssue({ code: "custom", path: ["merge"], message: `"merge" applies to the update/updateItem actions, not ${op.action}` });
    if (op.action === "updateItem" && (op.itemId === undefined || op.field === undefined)) ctx.addIssue({ code: "custom", path: ["itemId"], message: "updateItem needs `field` (the array) and `itemId` (the element's id template)" });
    for (const field of Object.keys(op.whereMap ?? {})) {
      if (!(field in op.where)) ctx.addIssue({ code: "custom", path: ["whereMap", field], message: `whereMap.${field} maps a filter that \`where\` does not have` });
    }
  });

export type MockErrorTemplate = z.infer<typeof MockErrorTemplateSchema>;
export type MockAnswer = z.infer<typeof MockAnswerSchema>;
export type MockService = z.infer<typeof MockServiceSchema>;
export type MockResource = z.infer<typeof MockResourceSchema>;
export type MockOperation = z.infer<typeof MockOperationSchema>;
export type MockWebhooks = z.infer<typeof MockWebhooksSchema>;
export type MockPageToken = z.infer<typeof MockPageTokenSchema>;

/** What the generator hands the engine about one operation, besides the descriptor. */
export interface MockOperationSpec {
  operationId: string;
  method: string;
  path: string;
  parameters: Array<{ name: string; in: "path" | "query" | "header" | "cookie"; required: boolean; schema?: unknown; explode?: boolean }>;
  body?: { required: boolean; contentTypes: string[]; schema?: unknown } | undefined;
  success: { status: number; contentType?: string | undefined; example?: unknown; schema?: unknown };
  mock?: MockOperation | undefined;
}
