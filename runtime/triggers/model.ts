/**
 * Triggers as a spec declares them (root extension `x-stepforge-triggers`): how instant events
 * arrive (a signed webhook delivery), how a delivery becomes a normalised event, and each trigger's
 * match rule, options and, for polling triggers, what to poll. The receiver, matcher and pollers
 * read only this; nothing in them names a service.
 *
 * As in runtime/descriptor.ts, the types are object type aliases written out beside their schemas
 * instead of being `z.infer`red (code naming them would make tsc resolve zod's inference);
 * test/types/model-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

/** A dotted path into a delivery, e.g. "action.data.card.id". */
const DottedPath = z.string().regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, "a dotted path such as action.data.card.id");

/** How the service signs a webhook delivery. */
export type Signature = {
  header: string;
  algorithm: "sha1" | "sha256";
  encoding: "base64" | "hex";
  /** What is signed: the raw body, optionally followed by the exact callback URL (Trello). */
  message: "body" | "body+callbackUrl";
};

/** Validates {@link Signature}. */
export const SignatureSchema = z
  .object({
    header: z.string().min(1),
    algorithm: z.enum(["sha1", "sha256"]),
    encoding: z.enum(["base64", "hex"]),
    message: z.enum(["body", "body+callbackUrl"]),
  })
  .strict();

/** Operations that manage webhook registrations, and the fields of a registration. */
export type WebhookRegistration = {
  create: string;
  list: string;
  remove: string;
  modelField: string;
  callbackField: string;
  idField: string;
  /** Path parameter of `list` that takes a connection field (Trello lists by token). */
  listPathParam?: { name: string; connectionField: string } | undefined;
};

/** How instant events arrive: a signed webhook delivery, and where its parts are. Paths are dotted (`action.data.card.id`). */
export type Delivery = {
  signature: Signature;
  /** The service checks the callback with this method before registering; answer it with 200. */
  probeMethod?: "HEAD" | "GET" | undefined;
  /** Unique id of one event: a repeated delivery with the same id is ignored. */
  eventIdPath: string;
  eventTypePath: string;
  timePath: string;
  /** Where the normalised event's references are found; the first path that exists wins. */
  refs: Record<"board" | "list" | "card" | "member", string[]>;
  /** Operations that manage webhook registrations. */
  register: WebhookRegistration;
};

/** Validates {@link Delivery}. */
export const DeliverySchema = z
  .object({
    signature: SignatureSchema,
    probeMethod: z.enum(["HEAD", "GET"]).optional(),
    eventIdPath: DottedPath,
    eventTypePath: DottedPath,
    timePath: DottedPath,
    refs: z.record(z.enum(["board", "list", "card", "member"]), z.array(DottedPath).min(1)),
    register: z
      .object({
        create: z.string().min(1),
        list: z.string().min(1),
        remove: z.string().min(1),
        modelField: z.string().min(1),
        callbackField: z.string().min(1),
        idField: z.string().min(1),
        listPathParam: z.object({ name: z.string().min(1), connectionField: z.string().min(1) }).strict().optional(),
      })
      .strict(),
  })
  .strict();

/** One condition on a delivery: the value at `path` is one of `in`, or exists / is absent (give `in` or `exists`). */
export type Condition = {
  /** A dotted path into the delivery. */
  path: string;
  in?: Array<string | boolean | number> | undefined;
  exists?: boolean | undefined;
};

/** Validates {@link Condition}. */
export const ConditionSchema = z
  .object({
    path: DottedPath,
    in: z.array(z.union([z.string(), z.boolean(), z.number()])).min(1).optional(),
    exists: z.boolean().optional(),
  })
  .strict()
  .refine((c) => c.in !== undefined || c.exists !== undefined, "give `in` or `exists`");

/** A filter the user configures: keep the event if the value at one of `paths` is among the option's values. */
export type OptionFilter = {
  option: string;
  /** Dotted paths into the delivery. */
  paths: string[];
};

/** Validates {@link OptionFilter}. */
export const OptionFilterSchema = z
  .object({
    option: z.string().min(1),
    paths: z.array(DottedPath).min(1),
  })
  .strict();

/** An option a trigger's configuration may set. */
export type TriggerOption = {
  type: "string-list" | "number" | "enum-list";
  description: string;
  /** Default false. */
  required: boolean;
  values?: string[] | undefined;
  /**
   * Used when a configuration leaves the option out: a number for `number`, a list for the list
   * types (for `enum-list`, of its `values`).
   */
  default?: number | string[] | undefined;
};

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

/**
 * One object type with the fields of an intersection, as zod's inferred types are; a variant is
 * `Flat<Base & { … }>` so that it stays identical to the `z.infer` of its schema.
 */
type Flat<T> = { [K in keyof T]: T[K] };

/** What every kind of trigger has. */
export type TriggerSpecBase = {
  name: string;
  title: string;
  description: string;
  /** The seed's name for it. */
  seedName?: string | undefined;
  /** By option name. Default `{}`. */
  options: Record<string, TriggerOption>;
};

/** The fields of {@link TriggerSpecBase}. */
const TriggerBase = {
  name: z.string().regex(/^[a-z0-9_]{1,64}$/),
  title: z.string().min(1),
  description: z.string().min(1),
  seedName: z.string().min(1).optional(),
  options: z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9]*$/), TriggerOptionSchema).default({}),
};

/** An instant trigger: fired by webhook deliveries that match. */
export type WebhookTriggerSpec = Flat<TriggerSpecBase & {
  kind: "webhook";
  /** What the webhook is registered on: each configured board, or the account's member. */
  watch: "boards" | "member";
  /** Default `[]`. */
  match: Condition[];
  /** Default `[]`. */
  filters: OptionFilter[];
}>;

/** Validates {@link WebhookTriggerSpec}. */
export const WebhookTriggerSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("webhook"),
    watch: z.enum(["boards", "member"]),
    match: z.array(ConditionSchema).default([]),
    filters: z.array(OptionFilterSchema).default([]),
  })
  .strict();

/** A polling trigger: fires when an item's due date comes. */
export type DueDatePollSpec = Flat<TriggerSpecBase & {
  kind: "poll-due";
  /** Operation listing a board's items (called with path param `id` = board id). */
  listOperation: string;
  idField: string;
  dueField: string;
  /** Items with any of these fields true do not fire. Default `[]`. */
  skipWhen: string[];
  intervalSeconds: number;
}>;

/** Validates {@link DueDatePollSpec}. */
export const DueDatePollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-due"),
    listOperation: z.string().min(1),
    idField: z.string().min(1),
    dueField: z.string().min(1),
    skipWhen: z.array(z.string().min(1)).default([]),
    intervalSeconds: z.number().positive(),
  })
  .strict();

/** A polling trigger: fires for each new item of a feed. */
export type FeedPollSpec = Flat<TriggerSpecBase & {
  kind: "poll-feed";
  /** Operation listing new items newest first (called with `pathParams`). */
  listOperation: string;
  /** Default `{}`. */
  pathParams: Record<string, string>;
  idField: string;
  /** Query parameter that asks for items newer than a given id. */
  sinceParam?: string | undefined;
  intervalSeconds: number;
}>;

/** Validates {@link FeedPollSpec}. */
export const FeedPollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-feed"),
    listOperation: z.string().min(1),
    pathParams: z.record(z.string(), z.string()).default({}),
    idField: z.string().min(1),
    sinceParam: z.string().min(1).optional(),
    intervalSeconds: z.number().positive(),
  })
  .strict();

/** One trigger, by `kind`. */
export type TriggerSpec = WebhookTriggerSpec | DueDatePollSpec | FeedPollSpec;

/** Validates {@link TriggerSpec}. */
export const TriggerSchema = z.discriminatedUnion("kind", [WebhookTriggerSchema, DueDatePollSchema, FeedPollSchema]);

/** The spec's root `x-stepforge-triggers`. */
export type TriggersExtension = {
  delivery: Delivery;
  /** At least one. */
  triggers: TriggerSpec[];
};

/** Validates {@link TriggersExtension}. */
export const TriggersExtensionSchema = z
  .object({
    delivery: DeliverySchema,
    triggers: z.array(TriggerSchema).min(1),
  })
  .strict();
