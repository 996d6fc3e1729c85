/**
 * The types of the mock model (`x-stepforge.mock`, `x-stepforge-mock`), with no zod in them. The service
 * descriptor names them, so every project that compiles a generated client reads this file: it must
 * not pull zod's declaration files into that program. The schemas validating these shapes are in
 * extension.ts beside it; test/types/extension-types.ts proves each type identical to its schema's `z.infer`.
 */
/** How the service lays out an error body: content type, body template, optional fixed status. */
export type MockErrorTemplate = {
  /** A fixed HTTP status (Marketo answers errors inside HTTP 200); otherwise the answer's status. */
  status?: number | undefined;
  contentType: string;
  /** Template; `{message}`, `{code}`, `{status}`, `{requestId}` are filled. A string body is sent as is. */
  body: unknown;
  headers?: Record<string, string> | undefined;
};

/** One made-up answer: the status or service code and message the real service gives in that case. */
export type MockAnswer = {
  status?: number | undefined;
  code?: string | undefined;
  /** Template string; `{field}` (the offending field), `{detail}`, `{method}`, `{path}` are filled. */
  message: string;
  /** Overrides the service's error template for this answer. */
  template?: MockErrorTemplate | undefined;
};

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
  "tooLarge",
] as const;
export type MockSituation = (typeof MOCK_SITUATIONS)[number];

/** The service's answer in each situation it has one for. */
export type MockAnswers = { [S in MockSituation]?: MockAnswer | undefined };

/** How the service rejects a call under one of its limits. */
export type MockLimitAnswer = {
  code?: string | undefined;
  message: string;
  /** Send Retry-After (seconds until the window has room). Default false. */
  retryAfter: boolean;
  template?: MockErrorTemplate | undefined;
};

/** Where a resource's first records come from. */
export type MockSeed = {
  /** Take records from this operation's success example(s). */
  operation: string;
  /** Path of the records in the example body; absent means the body (an array or one record). */
  items?: string | undefined;
  /** The example lists newest first: records are created in reverse, oldest first. Default false. */
  newestFirst: boolean;
};

/**
 * How new ids look: 24 hex characters (Trello), integers counting up, a uuid, prefix + 16 hex
 * (`prefixed`), or prefix + `length` characters drawn from `alphabet` (`random`: Airtable's
 * `rec` + 14 alphanumerics is `{format: random, prefix: rec, alphabet: "A-Za-z0-9", length: 14}`).
 */
export type MockIdFormat = {
  format: "hex24" | "integer" | "uuid" | "prefixed" | "random";
  prefix?: string | undefined;
  start?: number | undefined;
  /** Characters of `random` ids (required for them, refused otherwise): literal characters and `a-z` style ranges. */
  alphabet?: string | undefined;
  /** Length of `random` ids (required for them, refused otherwise). */
  length?: number | undefined;
};

/** A resource of the mock: records of one kind, with their ids, defaults and order. */
export type MockResource = {
  /** Default `id`. */
  idField: string;
  /** How new ids look. Default `{format: uuid}`. */
  id: MockIdFormat;
  /** Default `[]`. */
  seed: MockSeed[];
  /** Template of fields every new record starts with (request fields override them). Default `{}`. */
  defaults: Record<string, unknown>;
  /** Field set to the time on create / on every update. */
  createdField?: string | undefined;
  updatedField?: string | undefined;
  /**
   * Records live under a parent (a board, a base): this field holds the parent's id. An operation
   * with `parent` sees only that parent's records, and its creates are put under it.
   */
  parentField?: string | undefined;
  /**
   * Records are ordered by a numeric position field (Trello's `pos`): lists come back sorted by
   * it; a write of `top` puts the record before its siblings (half the smallest), `bottom` or
   * nothing after them (largest + `step`, default 16384). Siblings share the `within` field
   * (cards: `idList`).
   */
  position?: { field: string; within?: string | undefined; step: number } | undefined;
  /**
   * JSON Schema of one record as the service answers it. With it, a created or changed record gets
   * a sampled value for each required field the request did not give (and for a top-level value
   * the schema refuses), and answers leave out fields the schema closes (`additionalProperties:
   * false`), such as the parent field the mock keeps. Derived for specs without `x-stepforge.mock`.
   */
  schema?: unknown;
};

/** The service's token endpoint (OAuth 2 services). */
export type MockToken = {
  /** Seconds an issued access token lives (options.tokenLifetimeSeconds overrides). */
  lifetimeSeconds: number;
  /**
   * Template of the token endpoint's success body; `{accessToken}`, `{refreshToken}`, `{expiresIn}`, `{nowSeconds}`.
   */
  response: unknown;
  /** Calling the token endpoint again before expiry returns the same token (Marketo). Default false. */
  reuseUntilExpiry: boolean;
  /** How new access tokens look: `{uuid}`, `{hex}` placeholders. Default `{uuid}`. */
  format: string;
};

/** How the service signs webhook deliveries. */
export type MockWebhookSignature = {
  header: string;
  algorithm: "sha1" | "sha256";
  encoding: "base64" | "hex";
  /** What is signed, in order: the raw body, then the callback URL as registered. */
  message: Array<"body" | "callbackUrl">;
};

/**
 * A delivery that fails (no 2xx, or no answer within `timeoutSeconds`) is sent again after each of
 * `delaysSeconds`; every failed delivery adds one to the webhook's `failuresField` and sets
 * `firstFailureField` at the first failure of a run; a delivered one resets both.
 */
export type MockWebhookRetry = {
  /** Default `[]`. */
  delaysSeconds: number[];
  /** Default 30. */
  timeoutSeconds: number;
  failuresField?: string | undefined;
  firstFailureField?: string | undefined;
};

/** The service's webhooks: which resource holds registrations, and how deliveries are made. */
export type MockWebhooks = {
  /** The resource whose records are webhook registrations. */
  resource: string;
  callbackField: string;
  modelField: string;
  activeField?: string | undefined;
  /** Method of the probe sent to the callback before a registration is accepted (must answer 200). */
  probeMethod?: "HEAD" | "GET" | undefined;
  signature: MockWebhookSignature;
  /**
   * Record fields whose values name the models a change concerns (the webhook's model field is matched against them).
   */
  matchFields: string[];
  /** Template of a delivery; `{event}`, `{eventData}`, `{model}`, `{webhook}`, `{newId}`, `{now}`, `{actorId}`. */
  payload: unknown;
  /** A callback answering this status makes the service delete the webhook (Trello: 410). */
  goneStatus?: number | undefined;
  /** Resending failed deliveries. */
  retry?: MockWebhookRetry | undefined;
};

/** How a token-paged list writes its opaque page tokens: the encoding of the position, behind a prefix. */
export type MockPageToken = {
  /** Default base64url. */
  encoding: "base64url" | "base32" | "hex";
  /** Default "". */
  prefix: string;
};

/**
 * Page size of one operation's lists: used when the call gives none, and the most it may ask for (`default` ≤ `max`).
 */
export type MockPageSize = {
  default: number;
  max: number;
};

/** The spec's `x-stepforge.mock`: how the service's behavioural mock behaves. */
export type MockService = {
  /** Default loopback ports: the behavioural mock and the Prism contract mock. */
  ports?: { mock: number; prism: number } | undefined;
  /** Connection field values the mock accepts by default (fake, for tests). */
  credentials: Record<string, string>;
  /**
   * Accept any well-formed credential in the auth placements (a bearer token after `Bearer `, a
   * non-empty key), not only `credentials`: what a spec without `x-stepforge.mock` gets, since it
   * names no mock credentials. A request without one is still `unauthorized`.
   */
  anyCredential?: boolean | undefined;
  /** Id the mock reports as the acting user/member (`{actorId}`). */
  actorId?: string | undefined;
  error: MockErrorTemplate;
  answers: MockAnswers;
  /** Per limit id of the descriptor: the code, message and headers of its rejection. Default `{}`. */
  limits: Record<string, MockLimitAnswer>;
  /** Points a `header-quota` limit grants per day, and what a call costs. */
  quota?: { points: number; perCall: number; perResult: number } | undefined;
  token?: MockToken | undefined;
  /** Default response templates: `{record}` for one record, `{items}` for a list. Default `{}`. */
  envelopes: { record?: unknown; list?: unknown };
  /** Page size when a token-paged call does not give one. Default 300. */
  pageSize: number;
  /** How token-paged lists write their tokens (default base64url, no prefix). */
  pageToken?: MockPageToken | undefined;
  /** Default `{}`. */
  resources: Record<string, MockResource>;
  webhooks?: MockWebhooks | undefined;
};

/** A record another must exist for a call to go on. */
export type MockRef = {
  resource: string;
  /** Template naming the record. */
  id: string;
  /** Without the record the call fails with this answer (default notFound); absent: optional. */
  missing?: "badRequest" | "notFound" | undefined;
  /** `{field}` in the answer's message. */
  field?: string | undefined;
};

/** What an operation does to the mock's records. */
export type MockAction =
  | "example"
  | "create"
  | "read"
  | "update"
  | "delete"
  | "list"
  | "push"
  | "pull"
  | "updateItem"
  | "upsert"
  | "link"
  | "unlink"
  | "linked"
  | "isLinked"
  | "pageToken";

/** A record an operation also writes to another resource (an activity log, notifications). */
export type MockLogEntry = {
  resource: string;
  /** Template of the record. */
  record: unknown;
  /** Only for these outcomes (`created`, `updated`, `added`…). */
  when?: string[] | undefined;
};

/**
 * The spec's `x-stepforge-mock` on an operation: what the behavioural mock does for it. Keys an
 * action does not read are refused (their docs name the actions that read them).
 */
export type MockOperation = {
  action: MockAction;
  resource?: string | undefined;
  /** Template naming the record (read, update, delete, push, pull); default `{path.id}`. */
  id?: string | undefined;
  /** Records another must exist for the call to go on; `ref.<name>.<field>` in templates. Default `{}`. */
  refs: Record<string, MockRef>;
  /** Where the record's fields come from on create/update: the body (default), a body field, or nowhere. */
  from: string;
  /** Extra fields set on create/update (dotted paths → templates). Default `{}`. */
  set: Record<string, unknown>;
  /**
   * List filters: field (dotted; `a|b` tries several, `~` prefix: contains, case-insensitive) → template. Undefined
   * values filter nothing; commas mean "any of". Default `{}`.
   */
  where: Record<string, string>;
  /** Default false. */
  newestFirst: boolean;
  /**
   * list: request values of a `where` filter translated to record values, per field
   * (`{unread: {unread: "true", read: "false", all: ""}}`); a value mapped to "" filters nothing,
   * one the map lacks is kept as it is.
   */
  whereMap?: Record<string, Record<string, string>> | undefined;
  /** list: only records created after (`newerThan`) / before (`olderThan`) the record this id template names. */
  newerThan?: string | undefined;
  olderThan?: string | undefined;
  /** push/pull: the array field and the value template. */
  field?: string | undefined;
  value?: unknown;
  /**
   * upsert/link/unlink/isLinked: where the inputs are (`body.input`, `query.id`) and which field of an input is its
   * key.
   */
  inputs?: string | undefined;
  key?: string | undefined;
  /** upsert: template of the lookup field name (e.g. `{body.lookupField}`), default the key. */
  lookupField?: string | undefined;
  /** link/unlink/linked/isLinked: the relation's name and its owner's id template. */
  relation?: string | undefined;
  owner?: string | undefined;
  /** Per-input result template (`{input}`, `{record}`, `{status}`); and the statuses used (default `{}`). */
  result?: unknown;
  statuses: Record<string, string>;
  /** Result of an input whose record does not exist (`{input}`). */
  missingResult?: unknown;
  /** Response template; default: the service envelope for records/lists, the spec example otherwise. */
  respond?: unknown;
  /** Webhook event fired when the call changes state; `eventData` is its data template. */
  event?: string | undefined;
  eventData?: unknown;
  /**
   * update: `shallow` (the default) replaces top-level fields; `deep` merges nested objects field
   * by field (a PATCH of `prefs.color` keeps the other prefs); `replace` puts the body in place of
   * the record, keeping its id and parent (a PUT).
   */
  merge: "shallow" | "deep" | "replace";
  /** Template of the parent id the call works under (`{path.baseId}`); needs a `parentField`. */
  parent?: string | undefined;
  /** The record field holding the parent id for this operation, over the resource's `parentField`. */
  parentField?: string | undefined;
  /** list: page size of this operation, over the service's `pageSize` and the paging's `maxLimit`. */
  pageSize?: MockPageSize | undefined;
  /** list: how this operation's page tokens look, over the service's `pageToken`. */
  pageToken?: MockPageToken | undefined;
  /** push/updateItem: array elements ordered by a position field (`top`, `bottom`, a number); `step` default 16384. */
  position?: { field: string; step: number } | undefined;
  /** updateItem: template of the id of the array element to change (matched against its `id`). */
  itemId?: string | undefined;
  /** pageToken: the field compared with `since` (the token points at the first record at or after it). */
  sinceField?: string | undefined;
  since?: string | undefined;
  /**
   * Records the call also writes to another resource, one per record it touched (an activity log,
   * notifications): `{record}`, `{status}` (upsert/link outcome), `{input}`, `{now}` are filled.
   * `when` limits it to some outcomes (`created`, `updated`, `added`…). Default `[]`.
   */
  log: MockLogEntry[];
};

/** What the generator hands the engine about one operation, besides the descriptor. */
export interface MockOperationSpec {
  operationId: string;
  method: string;
  path: string;
  parameters: Array<{
    name: string;
    in: "path" | "query" | "header" | "cookie";
    required: boolean;
    schema?: unknown;
    explode?: boolean;
  }>;
  body?: { required: boolean; contentTypes: string[]; schema?: unknown } | undefined;
  success: { status: number; contentType?: string | undefined; example?: unknown; schema?: unknown };
  mock?: MockOperation | undefined;
  /**
   * An earlier operation on the same route that the mock cannot tell this one from (SF193, a
   * lenient spec): the mock leaves this one off its router and that one answers the route.
   */
  shadowedBy?: string | undefined;
}
