/**
 * Triggers as a spec declares them (root extension `x-stepforge-triggers`): how instant events
 * arrive (a signed webhook delivery), how a delivery becomes a normalised event, and each trigger's
 * match rule, options and, for polling triggers, what to poll. The receiver, matcher and pollers
 * read only this; nothing in them names a service.
 */
import * as z from "zod";

/** A dotted path into a delivery, e.g. "action.data.card.id". */
const DottedPath = z.string().regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, "a dotted path such as action.data.card.id");

export const SignatureSchema = z
  .object({
    header: z.string().min(1),
    algorithm: z.enum(["sha1", "sha256"]),
    encoding: z.enum(["base64", "hex"]),
    /** What is signed: the raw body, optionally followed by the exact callback URL (Trello). */
    message: z.enum(["body", "body+callbackUrl"]),
  })
  .strict();

export const DeliverySchema = z
  .object({
    signature: SignatureSchema,
    /** The service checks the callback with this method before registering; answer it with 200. */
    probeMethod: z.enum(["HEAD", "GET"]).optional(),
    /** Unique id of one event: a repeated delivery with the same id is ignored. */
    eventIdPath: DottedPath,
    eventTypePath: DottedPath,
    timePath: DottedPath,
    /** Where the normalised event's references are found; the first path that exists wins. */
    refs: z.record(z.enum(["board", "list", "card", "member"]), z.array(DottedPath).min(1)),
    /** Operations that manage webhook registrations. */
    register: z
      .object({
        create: z.string().min(1),
        list: z.string().min(1),
        remove: z.string().min(1),
        modelField: z.string().min(1),
        callbackField: z.string().min(1),
        idField: z.string().min(1),
        /** Path parameter of `list` that takes a connection field (Trello lists by token). */
        listPathParam: z.object({ name: z.string().min(1), connectionField: z.string().min(1) }).strict().optional(),
      })
      .strict(),
  })
  .strict();

/** One condition on a delivery: the value at `path` is one of `in`, or exists / is absent. */
export const ConditionSchema = z
  .object({
    path: DottedPath,
    in: z.array(z.union([z.string(), z.boolean(), z.number()])).min(1).optional(),
    exists: z.boolean().optional(),
  })
  .strict()
  .refine((c) => c.in !== undefined || c.exists !== undefined, "give `in` or `exists`");

/** A filter the user configures: keep the event if the value at one of `paths` is among the option's values. */
export const OptionFilterSchema = z
  .object({
    option: z.string().min(1),
    paths: z.array(DottedPath).min(1),
  })
  .strict();

export const TriggerOptionSchema = z
  .object({
    type: z.enum(["string-list", "number", "enum-list"]),
    description: z.string().min(1),
    required: z.boolean().default(false),
    values: z.array(z.string().min(1)).optional(),
    /** Used when a configuration leaves the option out: a number for `number`, a list for the list types. */
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

const TriggerBase = {
  name: z.string().regex(/^[a-z0-9_]{1,64}$/),
  title: z.string().min(1),
  description: z.string().min(1),
  /** The seed's name for it. */
  seedName: z.string().min(1).optional(),
  options: z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9]*$/), TriggerOptionSchema).default({}),
};

export const WebhookTriggerSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("webhook"),
    /** What the webhook is registered on: each configured board, or the account's member. */
    watch: z.enum(["boards", "member"]),
    match: z.array(ConditionSchema).default([]),
    filters: z.array(OptionFilterSchema).default([]),
  })
  .strict();

export const DueDatePollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-due"),
    /** Operation listing a board's items (called with path param `id` = board id). */
    listOperation: z.string().min(1),
    idField: z.string().min(1),
    dueField: z.string().min(1),
    /** Items with any of these fields true do not fire. */
    skipWhen: z.array(z.string().min(1)).default([]),
    intervalSeconds: z.number().positive(),
  })
  .strict();

export const FeedPollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-feed"),
    /** Operation listing new items newest first (called with `pathParams`). */
    listOperation: z.string().min(1),
    pathParams: z.record(z.string(), z.string()).default({}),
    idField: z.string().min(1),
    /** Query parameter that asks for items newer than a given id. */
    sinceParam: z.string().min(1).optional(),
    intervalSeconds: z.number().positive(),
  })
  .strict();

export const TriggerSchema = z.discriminatedUnion("kind", [WebhookTriggerSchema, DueDatePollSchema, FeedPollSchema]);

export const TriggersExtensionSchema = z
  .object({
    delivery: DeliverySchema,
    triggers: z.array(TriggerSchema).min(1),
  })
  .strict();

export type Signature = z.infer<typeof SignatureSchema>;
export type Delivery = z.infer<typeof DeliverySchema>;
export type Condition = z.infer<typeof ConditionSchema>;
export type TriggerSpec = z.infer<typeof TriggerSchema>;
export type WebhookTriggerSpec = z.infer<typeof WebhookTriggerSchema>;
export type DueDatePollSpec = z.infer<typeof DueDatePollSchema>;
export type FeedPollSpec = z.infer<typeof FeedPollSchema>;
export type TriggersExtension = z.infer<typeof TriggersExtensionSchema>;
