/**
 * Triggers as a spec declares them (root extension `x-stepforge-triggers`): how instant events
 * arrive (a signed webhook delivery), how a delivery becomes a normalised event, what a trigger
 * watches (its scope) and what its events point at (its references, by the spec's own names), and
 * each trigger's match rule, options and, for polling triggers, what to poll. The receiver,
 * router and pollers read only this; nothing in them names a service or a service's nouns.
 *
 * As in runtime/descriptor.ts, the types are object type aliases written out beside their schemas
 * instead of being `z.infer`red (code naming them would make tsc resolve zod's inference);
 * test/types/extension-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

export * from "./extension-types.js";
import type { RefSpec } from "./extension-types.js";

/** A dotted path into a delivery or an item, e.g. "event.data.ticket.id". */
const DottedPath = z.string().regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, "a dotted path such as event.data.id");

/** A dotted path, or `.` for the value itself (a polled item that is the thing referred to). */
const RefPath = z.union([z.literal("."), DottedPath]);

/** A name the spec gives a reference, a scope or an option: letters, digits and `_`, starting with a letter. */
const Name = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "a name of letters, digits and _ that starts with a letter");

/** Validates {@link Signature}. */
export const SignatureSchema = z
  .object({
    header: z.string().min(1),
    algorithm: z.enum(["sha1", "sha256"]),
    encoding: z.enum(["base64", "hex"]),
    message: z.enum(["body", "body+callbackUrl"]),
  })
  .strict();

const RefObjectSchema = z
  .object({
    paths: z.array(RefPath).min(1),
    idField: z.string().min(1).default("id"),
    nameFields: z.array(z.string().min(1)).default(["name"]),
  })
  .strict();

/** Validates {@link RefSpec}; a bare list of paths is the short form. */
export const RefSpecSchema = z
  .union([z.array(RefPath).min(1), RefObjectSchema])
  .transform((ref): RefSpec => (Array.isArray(ref) ? { paths: ref, idField: "id", nameFields: ["name"] } : ref));

/** References by the spec's names (`project`, `ticket`, `assignee` …). */
const RefsSchema = z.record(Name, RefSpecSchema);

/** Validates {@link Delivery}. */
export const DeliverySchema = z
  .object({
    signature: SignatureSchema,
    contentType: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, "a media type such as application/json")
      .optional(),
    probeMethod: z.enum(["HEAD", "GET"]).optional(),
    eventIdPath: DottedPath,
    eventTypePath: DottedPath,
    timePath: DottedPath,
    recordPath: DottedPath.optional(),
    refs: RefsSchema.default({}),
    register: z
      .object({
        create: z.string().min(1),
        list: z.string().min(1),
        remove: z.string().min(1),
        removeParam: z.string().min(1).default("id"),
        modelField: z.string().min(1),
        callbackField: z.string().min(1),
        idField: z.string().min(1),
        listPathParam: z
          .object({ name: z.string().min(1), connectionField: z.string().min(1) })
          .strict()
          .optional(),
      })
      .strict(),
  })
  .strict();

/** Validates {@link TriggerScope}. */
export const TriggerScopeSchema = z
  .object({
    description: z.string().min(1),
    ref: Name.optional(),
    default: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

/** Validates {@link Condition}. */
export const ConditionSchema = z
  .object({
    path: DottedPath,
    in: z
      .array(z.union([z.string(), z.boolean(), z.number()]))
      .min(1)
      .optional(),
    exists: z.boolean().optional(),
  })
  .strict()
  .refine((c) => c.in !== undefined || c.exists !== undefined, "give `in` or `exists`");

/** Validates {@link OptionFilter}. */
export const OptionFilterSchema = z
  .object({
    option: z.string().min(1),
    paths: z.array(DottedPath).min(1),
  })
  .strict();

/** Validates {@link TriggerOption}. */
export const TriggerOptionSchema = z
  .object({
    type: z.enum(["string-list", "number", "enum-list"]),
    description: z.string().min(1),
    required: z.boolean().default(false),
    values: z.array(z.string().min(1)).optional(),
    default: z.union([z.number(), z.array(z.string())]).optional(),
  })
  .strict()
  .refine((o) => o.default === undefined || (o.type === "number") === (typeof o.default === "number"), {
    message: "`default` must be a number for a number option and a list of strings for a list option",
    path: ["default"],
  })
  .refine((o) => o.type !== "enum-list" || !Array.isArray(o.default) || o.default.every((v) => o.values?.includes(v)), {
    message: "every `default` value of an enum-list option must be one of its `values`",
    path: ["default"],
  });

/** The fields of {@link TriggerSpecBase}. */
const TriggerBase = {
  name: z.string().regex(/^[a-z0-9_]{1,64}$/),
  title: z.string().min(1),
  description: z.string().min(1),
  seedName: z.string().min(1).optional(),
  scope: Name.optional(),
  options: z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9]*$/), TriggerOptionSchema).default({}),
};

/**
 * Path parameters of a polling trigger's list operation. A value that is exactly `{NAME}`, NAME
 * being the trigger's scope, takes each of the configured scope values in turn (one list call each).
 */
const PathParams = z.record(z.string().min(1), z.string()).default({});

/** Validates {@link WebhookTriggerSpec}. */
export const WebhookTriggerSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("webhook"),
    match: z.array(ConditionSchema).default([]),
    filters: z.array(OptionFilterSchema).default([]),
  })
  .strict();

/**
 * A polling trigger's schema: what every polling trigger declares (see PollSpecBase) around the
 * fields of its kind, in the order the parsed spec keeps (generated triggers list them so).
 */
function pollSchema<Kind extends string, Fields extends z.ZodRawShape>(kind: Kind, fields: Fields) {
  return z
    .object({
      ...TriggerBase,
      kind: z.literal(kind),
      listOperation: z.string().min(1),
      pathParams: PathParams,
      idField: z.string().min(1),
      ...fields,
      refs: RefsSchema.default({}),
      intervalSeconds: z.number().positive(),
    })
    .strict();
}

/** Validates {@link DueDatePollSpec}. */
export const DueDatePollSchema = pollSchema("poll-due", {
  dueField: z.string().min(1),
  skipWhen: z.array(z.string().min(1)).default([]),
  eventType: z.string().min(1).default("dueReminder"),
});

/** Validates {@link FeedPollSpec}. */
export const FeedPollSchema = pollSchema("poll-feed", {
  sinceParam: z.string().min(1).optional(),
  typePath: DottedPath.optional(),
  timePath: DottedPath.optional(),
});

export const TriggerSchema = z.discriminatedUnion("kind", [WebhookTriggerSchema, DueDatePollSchema, FeedPollSchema]);

/** Validates {@link TriggersExtension}. */
export const TriggersExtensionSchema = z
  .object({
    scopes: z.record(Name, TriggerScopeSchema).default({}),
    delivery: DeliverySchema,
    triggers: z.array(TriggerSchema).min(1),
  })
  .strict();
