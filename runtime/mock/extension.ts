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
 *
 * As in runtime/descriptor.ts, the types are object type aliases written out beside their schemas
 * instead of being `z.infer`red (code naming them would make tsc resolve zod's inference);
 * test/types/extension-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

export * from "./extension-types.js";
import { MOCK_SITUATIONS, type MockSituation } from "./extension-types.js";

const template = z.unknown();
const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "must be an identifier (letters, digits, _)");

/** Validates {@link MockErrorTemplate}. */
export const MockErrorTemplateSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    contentType: z.string().min(1),
    body: template,
    headers: z.record(z.string().min(1), z.string()).optional(),
  })
  .strict();

/** Validates {@link MockAnswer}. */
export const MockAnswerSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().optional(),
    message: z.string().min(1),
    template: MockErrorTemplateSchema.optional(),
  })
  .strict();

/** Validates {@link MockAnswers}. */
const answers = z
  .object(
    Object.fromEntries(MOCK_SITUATIONS.map((s) => [s, MockAnswerSchema.optional()])) as Record<
      MockSituation,
      z.ZodOptional<typeof MockAnswerSchema>
    >,
  )
  .strict();

/** Validates {@link MockLimitAnswer}. */
export const MockLimitAnswerSchema = z
  .object({
    code: z.string().optional(),
    message: z.string().min(1),
    retryAfter: z.boolean().default(false),
    template: MockErrorTemplateSchema.optional(),
  })
  .strict();

/** Validates {@link MockSeed}. */
export const MockSeedSchema = z
  .object({
    operation: z.string().min(1),
    items: z.string().min(1).optional(),
    newestFirst: z.boolean().default(false),
  })
  .strict();

/** Validates {@link MockResource}. */
export const MockResourceSchema = z
  .object({
    idField: z.string().min(1).default("id"),
    id: z
      .object({
        format: z.enum(["hex24", "integer", "uuid", "prefixed", "random"]),
        prefix: z.string().optional(),
        start: z.number().int().optional(),
        alphabet: z.string().min(1).optional(),
        length: z.number().int().min(1).max(256).optional(),
      })
      .strict()
      .refine(
        (id) => id.format !== "random" || (id.alphabet !== undefined && id.length !== undefined),
        "a random id format needs `alphabet` and `length`",
      )
      .refine(
        (id) => id.format === "random" || (id.alphabet === undefined && id.length === undefined),
        "`alphabet` and `length` apply to the random id format only",
      )
      .default({ format: "uuid" }),
    seed: z.array(MockSeedSchema).default([]),
    defaults: z.record(z.string().min(1), template).default({}),
    createdField: z.string().min(1).optional(),
    updatedField: z.string().min(1).optional(),
    parentField: z.string().min(1).optional(),
    position: z
      .object({
        field: z.string().min(1),
        within: z.string().min(1).optional(),
        step: z.number().positive().default(16384),
      })
      .strict()
      .optional(),
    schema: z.unknown().optional(),
  })
  .strict();

/** Validates {@link MockToken}. */
export const MockTokenSchema = z
  .object({
    lifetimeSeconds: z.number().int().positive(),
    response: template,
    reuseUntilExpiry: z.boolean().default(false),
    format: z.string().min(1).default("{uuid}"),
  })
  .strict();

/** Validates {@link MockWebhooks}. */
export const MockWebhooksSchema = z
  .object({
    resource: identifier,
    callbackField: z.string().min(1),
    modelField: z.string().min(1),
    activeField: z.string().min(1).optional(),
    probeMethod: z.enum(["HEAD", "GET"]).optional(),
    signature: z
      .object({
        header: z.string().min(1),
        algorithm: z.enum(["sha1", "sha256"]),
        encoding: z.enum(["base64", "hex"]),
        message: z.array(z.enum(["body", "callbackUrl"])).min(1),
      })
      .strict(),
    matchFields: z.array(z.string().min(1)).min(1),
    payload: template,
    goneStatus: z.number().int().optional(),
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

/** Validates {@link MockPageToken}. */
export const MockPageTokenSchema = z
  .object({
    encoding: z.enum(["base64url", "base32", "hex"]).default("base64url"),
    prefix: z.string().default(""),
  })
  .strict();

/** Validates {@link MockPageSize}. */
export const MockPageSizeSchema = z
  .object({ default: z.number().int().positive(), max: z.number().int().positive() })
  .strict()
  .refine((p) => p.default <= p.max, "pageSize.default must not exceed pageSize.max");

/** Validates {@link MockService}. */
export const MockServiceSchema = z
  .object({
    ports: z
      .object({ mock: z.number().int().min(1024).max(65535), prism: z.number().int().min(1024).max(65535) })
      .strict()
      .optional(),
    credentials: z.record(identifier, z.string()),
    anyCredential: z.boolean().optional(),
    actorId: z.string().optional(),
    error: MockErrorTemplateSchema,
    answers,
    limits: z.record(identifier, MockLimitAnswerSchema).default({}),
    quota: z
      .object({ points: z.number().positive(), perCall: z.number().nonnegative(), perResult: z.number().nonnegative() })
      .strict()
      .optional(),
    token: MockTokenSchema.optional(),
    envelopes: z.object({ record: template.optional(), list: template.optional() }).strict().default({}),
    pageSize: z.number().int().positive().default(300),
    pageToken: MockPageTokenSchema.optional(),
    resources: z.record(identifier, MockResourceSchema).default({}),
    webhooks: MockWebhooksSchema.optional(),
  })
  .strict();

/** Validates {@link MockRef}. */
export const MockRefSchema = z
  .object({
    resource: identifier,
    id: z.string().min(1).describe("template naming the record"),
    missing: z.enum(["badRequest", "notFound"]).optional(),
    field: z.string().optional(),
  })
  .strict();

/** Validates {@link MockOperation}. */
export const MockOperationSchema = z
  .object({
    action: z.enum([
      "example",
      "create",
      "read",
      "update",
      "delete",
      "list",
      "push",
      "pull",
      "updateItem",
      "upsert",
      "link",
      "unlink",
      "linked",
      "isLinked",
      "pageToken",
    ]),
    resource: identifier.optional(),
    id: z.string().min(1).optional(),
    refs: z.record(identifier, MockRefSchema).default({}),
    from: z.string().min(1).default("body"),
    set: z.record(z.string().min(1), template).default({}),
    where: z.record(z.string().min(1), z.string()).default({}),
    newestFirst: z.boolean().default(false),
    whereMap: z.record(z.string().min(1), z.record(z.string(), z.string())).optional(),
    newerThan: z.string().min(1).optional(),
    olderThan: z.string().min(1).optional(),
    field: z.string().min(1).optional(),
    value: template.optional(),
    inputs: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    lookupField: z.string().optional(),
    relation: identifier.optional(),
    owner: z.string().min(1).optional(),
    result: template.optional(),
    statuses: z.record(z.string().min(1), z.string()).default({}),
    missingResult: template.optional(),
    respond: template.optional(),
    event: z.string().min(1).optional(),
    eventData: template.optional(),
    merge: z.enum(["shallow", "deep", "replace"]).default("shallow"),
    parent: z.string().min(1).optional(),
    parentField: z.string().min(1).optional(),
    pageSize: MockPageSizeSchema.optional(),
    pageToken: MockPageTokenSchema.optional(),
    position: z
      .object({ field: z.string().min(1), step: z.number().positive().default(16384) })
      .strict()
      .optional(),
    itemId: z.string().min(1).optional(),
    sinceField: z.string().min(1).optional(),
    since: z.string().min(1).optional(),
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
        ctx.addIssue({
          code: "custom",
          path: [key],
          message:
            `"${String(key)}" applies to the ${actions.join("/")} action` +
            `${actions.length > 1 ? "s" : ""}, not ${op.action}`,
        });
      }
    }
    if (op.merge === "deep" && !["update", "updateItem"].includes(op.action)) {
      ctx.addIssue({
        code: "custom",
        path: ["merge"],
        message: `"merge" applies to the update/updateItem actions, not ${op.action}`,
      });
    }
    if (op.merge === "replace" && op.action !== "update") {
      ctx.addIssue({
        code: "custom",
        path: ["merge"],
        message: `"merge: replace" applies to the update action, not ${op.action}`,
      });
    }
    if (op.parentField !== undefined && op.parent === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["parentField"],
        message: "`parentField` names where `parent` is kept; give `parent` too",
      });
    }
    if (op.action === "updateItem" && (op.itemId === undefined || op.field === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["itemId"],
        message: "updateItem needs `field` (the array) and `itemId` (the element's id template)",
      });
    for (const field of Object.keys(op.whereMap ?? {})) {
      if (!(field in op.where))
        ctx.addIssue({
          code: "custom",
          path: ["whereMap", field],
          message: `whereMap.${field} maps a filter that \`where\` does not have`,
        });
    }
  });
