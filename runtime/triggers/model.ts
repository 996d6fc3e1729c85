/**
 * Triggers as a spec declares them (root extension `x-stepforge-triggers`): how instant events
 * arrive (a signed webhook delivery), how a delivery becomes a normalised event, what a trigger
 * watches (its scope) and what its events point at (its references, by the spec's own names), and
 * each trigger's match rule, options and, for polling triggers, what to poll. The receiver,
 * router and pollers read only this; nothing in them names a service or a service's nouns.
 *
 * As in runtime/descriptor.ts, the types are object type aliases written out beside their schemas
 * instead of being `z.infer`red (code naming them would make tsc resolve zod's inference);
 * test/types/model-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

/** A dotted path into a delivery or an item, e.g. "event.data.ticket.id". */
const DottedPath = z.string().regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/, "a dotted path such as event.data.id");

/** A dotted path, or `.` for the value itself (a polled item that is the thing referred to). */
const RefPath = z.union([z.literal("."), DottedPath]);

/** A name the spec gives a reference, a scope or an option: letters, digits and `_`, starting with a letter. */
const Name = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]*$/, "a name of letters, digits and _ that starts with a letter");

/** How the service signs a webhook delivery. */
export type Signature = {
  header: string;
  algorithm: "sha1" | "sha256";
  encoding: "base64" | "hex";
  /** What is signed: the raw body, optionally followed by the exact callback URL as registered. */
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
  /** Path parameter of `remove` that takes the registration's id. Default `id`. */
  removeParam: string;
  /** Body field of `create` (and field of a listed registration) naming what is watched: a scope value. */
  modelField: string;
  callbackField: string;
  idField: string;
  /** Path parameter of `list` that takes a connection field (a service that lists registrations per token). */
  listPathParam?: { name: string; connectionField: string } | undefined;
};

/** What an event points at, and where it is found. Written as a list of paths, it reads `id` and `name`. */
export type RefSpec = {
  /** Dotted paths; the first that holds a value wins. `.` is the item itself (polling triggers). */
  paths: string[];
  /** Field of an object holding its id (default `id`); a string or number value is the id itself. */
  idField: string;
  /** Fields tried in order for a display name. Default `["name"]`. */
  nameFields: string[];
};

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

/** How instant events arrive: a signed webhook delivery, and where its parts are. Paths are dotted. */
export type Delivery = {
  signature: Signature;
  /**
   * The media type every delivery has (`application/json`). When given, a request with another
   * Content-Type is refused before its body is read; leave it out when the service does not say.
   */
  contentType?: string | undefined;
  /** The service checks the callback with this method before registering; answer it with 200. */
  probeMethod?: "HEAD" | "GET" | undefined;
  /** Unique id of one event: a repeated delivery with the same id is ignored. */
  eventIdPath: string;
  eventTypePath: string;
  timePath: string;
  /** Where the service's own record of what happened is (an event's `raw`); default the whole delivery. */
  recordPath?: string | undefined;
  /** What a webhook event points at, by the spec's names. Default `{}`. */
  refs: Record<string, RefSpec>;
  /** Operations that manage webhook registrations. */
  register: WebhookRegistration;
};

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

/**
 * What a trigger watches: the values a configuration gives under `scope.<name>` (and `webhook
 * serve --scope NAME=VALUE`) — the ids a webhook is registered on and a poll lists.
 */
export type TriggerScope = {
  description: string;
  /**
   * The reference that names the scope in an event. A webhook trigger fires only for events whose
   * reference is one of the values; a polling trigger's events get it (`{id: value}`).
   */
  ref?: string | undefined;
  /** Values used when a configuration gives none. */
  default?: string[] | undefined;
};

/** Validates {@link TriggerScope}. */
export const TriggerScopeSchema = z
  .object({
    description: z.string().min(1),
    ref: Name.optional(),
    default: z.array(z.string().min(1)).min(1).optional(),
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
    in: z
      .array(z.union([z.string(), z.boolean(), z.number()]))
      .min(1)
      .optional(),
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
  /** What it watches: the name of one of the extension's `scopes`. None: the whole account. */
  scope?: string | undefined;
  /** By option name. Default `{}`. */
  options: Record<string, TriggerOption>;
};

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

/** An instant trigger: fired by webhook deliveries that match; its events carry the delivery's refs. */
export type WebhookTriggerSpec = Flat<
  TriggerSpecBase & {
    kind: "webhook";
    /** Default `[]`. */
    match: Condition[];
    /** Default `[]`. */
    filters: OptionFilter[];
  }
>;

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
 * A polling trigger: fires when an item's due date comes. The lead time is the number option
 * `minutesBefore` (60 when the trigger declares no default).
 */
export type DueDatePollSpec = Flat<
  TriggerSpecBase & {
    kind: "poll-due";
    /** Operation listing the items, called with `pathParams`. */
    listOperation: string;
    /** Default `{}`. */
    pathParams: Record<string, string>;
    idField: string;
    dueField: string;
    /** Items with any of these fields true do not fire. Default `[]`. */
    skipWhen: string[];
    /** The events' `type`. Default `dueReminder`. */
    eventType: string;
    /** What an event points at, read from its item (`.` is the item itself). Default `{}`. */
    refs: Record<string, RefSpec>;
    intervalSeconds: number;
  }
>;

/** Validates {@link DueDatePollSpec}. */
export const DueDatePollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-due"),
    listOperation: z.string().min(1),
    pathParams: PathParams,
    idField: z.string().min(1),
    dueField: z.string().min(1),
    skipWhen: z.array(z.string().min(1)).default([]),
    eventType: z.string().min(1).default("dueReminder"),
    refs: RefsSchema.default({}),
    intervalSeconds: z.number().positive(),
  })
  .strict();

/** A polling trigger: fires for each new item of a feed. */
export type FeedPollSpec = Flat<
  TriggerSpecBase & {
    kind: "poll-feed";
    /** Operation listing new items newest first, called with `pathParams`. */
    listOperation: string;
    /** Default `{}`. */
    pathParams: Record<string, string>;
    idField: string;
    /** Query parameter that asks for items newer than a given id. */
    sinceParam?: string | undefined;
    /** Where an item says what happened (the event's `type`; `item` when absent). */
    typePath?: string | undefined;
    /** Where an item says when (the event's `time`; the time of the poll when absent). */
    timePath?: string | undefined;
    /** What an event points at, read from its item (`.` is the item itself). Default `{}`. */
    refs: Record<string, RefSpec>;
    intervalSeconds: number;
  }
>;

/** Validates {@link FeedPollSpec}. */
export const FeedPollSchema = z
  .object({
    ...TriggerBase,
    kind: z.literal("poll-feed"),
    listOperation: z.string().min(1),
    pathParams: PathParams,
    idField: z.string().min(1),
    sinceParam: z.string().min(1).optional(),
    typePath: DottedPath.optional(),
    timePath: DottedPath.optional(),
    refs: RefsSchema.default({}),
    intervalSeconds: z.number().positive(),
  })
  .strict();

/** One trigger, by `kind`. */
export type TriggerSpec = WebhookTriggerSpec | DueDatePollSpec | FeedPollSpec;

/** Validates {@link TriggerSpec}. */
export const TriggerSchema = z.discriminatedUnion("kind", [WebhookTriggerSchema, DueDatePollSchema, FeedPollSchema]);

/** The spec's root `x-stepforge-triggers`. */
export type TriggersExtension = {
  /** What triggers watch, by name (`project`, `queue`, `repository` …). Default `{}`. */
  scopes: Record<string, TriggerScope>;
  delivery: Delivery;
  /** At least one. */
  triggers: TriggerSpec[];
};

/** Validates {@link TriggersExtension}. */
export const TriggersExtensionSchema = z
  .object({
    scopes: z.record(Name, TriggerScopeSchema).default({}),
    delivery: DeliverySchema,
    triggers: z.array(TriggerSchema).min(1),
  })
  .strict();
