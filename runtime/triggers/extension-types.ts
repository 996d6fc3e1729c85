/**
 * The types of triggers as a spec declares them (`x-stepforge-triggers`), with no zod in them. The
 * runtime's public index names TriggersExtension, so every project that compiles a generated client
 * reads this file: it must not pull zod's declaration files into that program. The schemas
 * validating these shapes are in extension.ts beside it; test/types/extension-types.ts proves each type
 * identical to its schema's `z.infer`.
 */
/** How the service signs a webhook delivery. */
export type Signature = {
  header: string;
  algorithm: "sha1" | "sha256";
  encoding: "base64" | "hex";
  /** What is signed: the raw body, optionally followed by the exact callback URL as registered. */
  message: "body" | "body+callbackUrl";
};

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
/** One condition on a delivery: the value at `path` is one of `in`, or exists / is absent (give `in` or `exists`). */
export type Condition = {
  /** A dotted path into the delivery. */
  path: string;
  in?: Array<string | boolean | number> | undefined;
  exists?: boolean | undefined;
};

/** A filter the user configures: keep the event if the value at one of `paths` is among the option's values. */
export type OptionFilter = {
  option: string;
  /** Dotted paths into the delivery. */
  paths: string[];
};

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

/** What every polling trigger declares: the list it calls each interval and how it reads the items. */
type PollSpecBase = TriggerSpecBase & {
  /** Operation listing the items, called with `pathParams`. */
  listOperation: string;
  /** Default `{}`. */
  pathParams: Record<string, string>;
  idField: string;
  /** What an event points at, read from its item (`.` is the item itself). Default `{}`. */
  refs: Record<string, RefSpec>;
  intervalSeconds: number;
};

/**
 * A polling trigger: fires when an item's due date comes. The lead time is the number option
 * `minutesBefore` (60 when the trigger declares no default).
 */
export type DueDatePollSpec = Flat<
  PollSpecBase & {
    kind: "poll-due";
    dueField: string;
    /** Items with any of these fields true do not fire. Default `[]`. */
    skipWhen: string[];
    /** The events' `type`. Default `dueReminder`. */
    eventType: string;
  }
>;

/** A polling trigger: fires for each new item of a feed (its list operation answers newest first). */
export type FeedPollSpec = Flat<
  PollSpecBase & {
    kind: "poll-feed";
    /** Query parameter that asks for items newer than a given id. */
    sinceParam?: string | undefined;
    /** Where an item says what happened (the event's `type`; `item` when absent). */
    typePath?: string | undefined;
    /** Where an item says when (the event's `time`; the time of the poll when absent). */
    timePath?: string | undefined;
  }
>;

/** One trigger, by `kind`. */
export type TriggerSpec = WebhookTriggerSpec | DueDatePollSpec | FeedPollSpec;

/** The spec's root `x-stepforge-triggers`. */
export type TriggersExtension = {
  /** What triggers watch, by name (`project`, `queue`, `repository` …). Default `{}`. */
  scopes: Record<string, TriggerScope>;
  delivery: Delivery;
  /** At least one. */
  triggers: TriggerSpec[];
};
