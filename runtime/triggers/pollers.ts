/**
 * Polling triggers, with their position (cursor) in the state layer, so it survives a restart and
 * is shared by every worker on the same state (a folder, or Redis).
 *
 * - Due-date reminders fire once per (item, due date) when the reminder time (due − lead) has come;
 *   a changed due date fires again; items marked done or archived (the spec's `skipWhen`) do not;
 *   items already past due when the trigger was enabled do not.
 * - Feeds (notifications) fire once per item, newest-first lists walked back to the last item seen;
 *   the first poll only records where the feed stands, so history is not replayed.
 *
 * A trigger with a scope polls once per scope value (the list operation's path parameter written
 * `{SCOPE}` takes each in turn), and its events get the scope's reference.
 *
 * One worker polls a trigger at a time: a poll first takes (or renews) the trigger's lease, a lock
 * with expiry in the state layer; a worker that does not get it skips the poll and
 * returns no events. The cursor is written only with the lease's fencing token, so a worker that
 * lost its lease while polling (it stalled past the lease) cannot overwrite a newer cursor, and
 * its events are dropped (the lease holder delivers them). A worker that dies frees the lease when
 * it expires (`leaseMs`, default 60 s: longer than a poll interval, so the holder keeps it).
 */
import { hashed, stateKey } from "../state/keys.js";
import type { LockGrant, StateStore } from "../state/types.js";
import { getPath } from "../internal/values.js";
import type { DueDatePollSpec, FeedPollSpec, TriggersExtension } from "./extension-types.js";
import { refsOf, scopeValues, type Ref, type TriggerConfig, type TriggerEvent } from "./router.js";

export interface PollOptions {
  /** "Now" for due-date arithmetic (default: the store's clock). */
  now?: number | undefined;
  /** How long the lease lasts after each poll (default 60 s). */
  leaseMs?: number | undefined;
}

const DEFAULT_LEASE_MS = 60_000;

/** The leases this process holds, by lease key (so the next poll renews instead of competing). */
const held = new WeakMap<StateStore, Map<string, LockGrant>>();

/** Takes or renews the lease of one trigger configuration; undefined when another worker holds it. */
async function takeLease(store: StateStore, key: string, leaseMs: number): Promise<LockGrant | undefined> {
  let mine = held.get(store);
  if (!mine) held.set(store, (mine = new Map()));
  const previous = mine.get(key);
  const renewed = previous ? await store.renewLock(previous, leaseMs) : undefined;
  const grant = renewed ?? (await store.lock(key, leaseMs));
  if ("token" in grant) {
    mine.set(key, grant);
    return grant;
  }
  mine.delete(key);
  return undefined;
}

/** Gives a trigger's lease up (a worker stopping a trigger lets another take it at once). */
export async function releasePollLease(
  store: StateStore,
  extension: TriggersExtension,
  config: TriggerConfig,
): Promise<void> {
  const trigger = extension.triggers.find((t) => t.name === config.trigger);
  const key = keysOf(config, trigger ? scopeValues(extension, trigger, config) : []).lease;
  const grant = held.get(store)?.get(key);
  if (!grant) return;
  held.get(store)!.delete(key);
  await store.unlock(grant);
}

function keysOf(config: TriggerConfig, values: readonly string[], ...suffix: string[]) {
  // Connection names and scope values are not secrets, but a key stays short and plain: hash them.
  const scope = hashed(`${config.connection}\n${[...values].sort().join(",")}`);
  return {
    cursor: stateKey("trigger", config.trigger, scope, ...suffix),
    lease: stateKey("trigger-lease", config.trigger, scope),
  };
}

/** Lists a resource: the caller binds it to a client call (auth, limits and retries included). */
export type ListFn = (
  operationId: string,
  pathParams: Record<string, string>,
  query?: Record<string, string>,
) => Promise<unknown>;

function asItems(data: unknown): Record<string, unknown>[] {
  return Array.isArray(data) ? (data.filter((d) => d && typeof d === "object") as Record<string, unknown>[]) : [];
}

type PollSpec = DueDatePollSpec | FeedPollSpec;

/**
 * One poll of a trigger of one kind: lists what `spec` watches through `list` and returns the
 * events to deliver (already recorded in `store`), or none when another worker holds the lease.
 */
export type Poller<Spec extends PollSpec> = (
  extension: TriggersExtension,
  spec: Spec,
  config: TriggerConfig,
  list: ListFn,
  store: StateStore,
  options?: PollOptions,
) => Promise<TriggerEvent[]>;

/** One list call of a poll: the scope value it is for (if any) and its path parameters. */
interface PollRun {
  value?: string | undefined;
  path: Record<string, string>;
}

/** The list calls of one poll: one per scope value when a path parameter takes them, else one. */
function runsOf(spec: PollSpec, values: readonly string[]): PollRun[] {
  const placeholder = spec.scope ? `{${spec.scope}}` : undefined;
  if (!placeholder || !Object.values(spec.pathParams).includes(placeholder)) return [{ path: { ...spec.pathParams } }];
  return values.map((value) => ({
    value,
    path: Object.fromEntries(Object.entries(spec.pathParams).map(([name, v]) => [name, v === placeholder ? value : v])),
  }));
}

/** An item's references, plus the scope's own reference when the item was listed for a scope value. */
function itemRefs(extension: TriggersExtension, spec: PollSpec, run: PollRun, item: unknown): Record<string, Ref> {
  const refs = refsOf(spec.refs, item);
  const scopeRef = spec.scope ? extension.scopes[spec.scope]?.ref : undefined;
  if (scopeRef && run.value !== undefined) refs[scopeRef] = { id: run.value };
  return refs;
}

/** A string the item holds at `path`, if any. */
function stringAt(item: unknown, path: string | undefined): string | undefined {
  const value = path ? getPath(item, path) : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * What every poll starts with: its "now", the scope values it polls, and the trigger's lease
 * (taken or renewed); undefined when another worker holds the lease and this one skips the poll.
 */
async function beginPoll(
  extension: TriggersExtension,
  spec: PollSpec,
  config: TriggerConfig,
  store: StateStore,
  options: PollOptions,
): Promise<{ now: number; values: string[]; lease: string; grant: LockGrant } | undefined> {
  const now = options.now ?? store.clock.now();
  const values = scopeValues(extension, spec, config);
  const lease = keysOf(config, values).lease;
  const grant = await takeLease(store, lease, options.leaseMs ?? DEFAULT_LEASE_MS);
  return grant && { now, values, lease, grant };
}

export interface DueState {
  enabledAt: number;
  fired: string[];
}

/**
 * One poll of a due-date trigger; returns the events to deliver (already recorded as fired), or
 * none when another worker holds the trigger's lease.
 */
export const pollDueDates: Poller<DueDatePollSpec> = async (extension, spec, config, list, store, options = {}) => {
  const poll = await beginPoll(extension, spec, config, store, options);
  if (!poll) return [];
  const { now, values, lease, grant } = poll;
  const cursor = keysOf(config, values, "due").cursor;
  const record = await store.get<DueState>(cursor);
  const state: DueState = record?.value ?? { enabledAt: now, fired: [] };
  const defaultLead = spec.options.minutesBefore?.default as number | undefined;
  const leadMs = Number(config.options?.minutesBefore ?? defaultLead ?? 60) * 60_000;
  const fired = new Set(state.fired);
  const events: TriggerEvent[] = [];
  for (const run of runsOf(spec, values)) {
    for (const item of asItems(await list(spec.listOperation, run.path))) {
      const id = item[spec.idField];
      const due = item[spec.dueField];
      if (typeof id !== "string" || typeof due !== "string") continue;
      if (spec.skipWhen.some((field) => item[field] === true)) continue;
      const dueMs = Date.parse(due);
      if (Number.isNaN(dueMs) || dueMs < state.enabledAt) continue;
      const mark = `${id}|${due}`;
      if (fired.has(mark) || now < dueMs - leadMs) continue;
      fired.add(mark);
      events.push({
        trigger: config.trigger,
        connection: config.connection,
        eventId: mark,
        type: spec.eventType,
        time: new Date(now).toISOString(),
        refs: itemRefs(extension, spec, run, item),
        raw: item,
      });
    }
  }
  // Keep the record bounded: the newest marks are the ones that can repeat.
  const kept: DueState = { enabledAt: state.enabledAt, fired: [...fired].slice(-5000) };
  const written = await store.set(cursor, kept, { fence: { lock: lease, token: grant.token } });
  return written.ok ? events : [];
};

export interface FeedState {
  lastId?: string | undefined;
  seen: string[];
}

/**
 * One poll of a feed trigger (newest first). A feed's first poll records the position and fires
 * nothing; none when another worker holds the trigger's lease. Each scope value is its own feed
 * with its own position.
 */
export const pollFeed: Poller<FeedPollSpec> = async (extension, spec, config, list, store, options = {}) => {
  const poll = await beginPoll(extension, spec, config, store, options);
  if (!poll) return [];
  const { now, values, lease, grant } = poll;
  const fence = { fence: { lock: lease, token: grant.token } };
  const events: TriggerEvent[] = [];
  for (const run of runsOf(spec, values)) {
    // An unscoped feed keeps the key it always had; each scope value gets one of its own.
    const cursor = keysOf(config, values, "feed", ...(run.value === undefined ? [] : [hashed(run.value)])).cursor;
    const state = (await store.get<FeedState>(cursor))?.value;
    const query = spec.sinceParam && state?.lastId ? { [spec.sinceParam]: state.lastId } : undefined;
    const items = asItems(await list(spec.listOperation, run.path, query));
    const ids = items.map((i) => i[spec.idField]).filter((id): id is string => typeof id === "string");
    if (!state) {
      const first: FeedState = { lastId: ids[0], seen: ids.slice(0, 500) };
      if (!(await store.set(cursor, first, fence)).ok) return events;
      continue;
    }
    const seen = new Set(state.seen);
    const fresh: Record<string, unknown>[] = [];
    for (const item of items) {
      const id = item[spec.idField] as string;
      if (id === state.lastId) break;
      if (!seen.has(id)) fresh.push(item);
    }
    fresh.reverse(); // deliver oldest first
    const found = fresh.map(
      (item): TriggerEvent => ({
        trigger: config.trigger,
        connection: config.connection,
        eventId: item[spec.idField] as string,
        type: stringAt(item, spec.typePath) ?? "item",
        time: stringAt(item, spec.timePath) ?? new Date(now).toISOString(),
        refs: itemRefs(extension, spec, run, item),
        raw: item,
      }),
    );
    const newSeen = [...fresh.map((i) => i[spec.idField] as string), ...state.seen].slice(0, 500);
    const written = await store.set(
      cursor,
      { lastId: ids[0] ?? state.lastId, seen: newSeen } satisfies FeedState,
      fence,
    );
    // Refused by the fence: the lease passed on, and its holder delivers this feed's new items.
    if (!written.ok) return events;
    events.push(...found);
  }
  return events;
};
