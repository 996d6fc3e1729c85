/**
 * Polling triggers, with state that survives a restart (a JSON file written atomically, owner-only).
 *
 * - Due-date reminders fire once per (item, due date) when the reminder time (due − lead) has come;
 *   a changed due date fires again; items marked done or archived (the spec's `skipWhen`) do not;
 *   items already past due when the trigger was enabled do not.
 * - Feeds (notifications) fire once per item, newest-first lists walked back to the last item seen;
 *   the first poll only records where the feed stands, so history is not replayed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { DueDatePollSpec, FeedPollSpec } from "./model.js";
import { ref, type TriggerConfig, type TriggerEvent } from "./router.js";

export interface StateStore {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): void;
}

export class MemoryStateStore implements StateStore {
  private readonly data = new Map<string, unknown>();
  get<T>(key: string) {
    return this.data.get(key) as T | undefined;
  }
  set(key: string, value: unknown) {
    this.data.set(key, structuredClone(value));
  }
}

/** One JSON file; every set rewrites it via a temporary file and rename, mode 0600. */
export class FileStateStore implements StateStore {
  private data: Record<string, unknown>;
  constructor(private readonly path: string) {
    this.data = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  }
  get<T>(key: string) {
    return this.data[key] as T | undefined;
  }
  set(key: string, value: unknown) {
    this.data[key] = value;
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

/** Lists a resource: the caller binds it to a client call (auth, limits and retries included). */
export type ListFn = (operationId: string, pathParams: Record<string, string>, query?: Record<string, string>) => Promise<unknown>;

function stateKey(config: TriggerConfig, suffix: string) {
  return `${config.trigger}:${config.connection}:${suffix}`;
}

function asItems(data: unknown): Record<string, unknown>[] {
  return Array.isArray(data) ? (data.filter((d) => d && typeof d === "object") as Record<string, unknown>[]) : [];
}

export interface DueState {
  enabledAt: number;
  fired: string[];
}

/** One poll of a due-date trigger; returns the events to deliver (already recorded as fired). */
export async function pollDueDates(spec: DueDatePollSpec, config: TriggerConfig, list: ListFn, store: StateStore, now = Date.now()): Promise<TriggerEvent[]> {
  const key = stateKey(config, "due");
  const state: DueState = store.get<DueState>(key) ?? { enabledAt: now, fired: [] };
  const leadMs = Number(config.options?.minutesBefore ?? (spec.options.minutesBefore?.default as number | undefined) ?? 60) * 60_000;
  const fired = new Set(state.fired);
  const events: TriggerEvent[] = [];
  for (const board of config.boards) {
    for (const item of asItems(await list(spec.listOperation, { id: board }))) {
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
        type: "dueReminder",
        time: new Date(now).toISOString(),
        board: { id: board },
        card: { id, name: typeof item.name === "string" ? item.name : undefined },
        list: typeof item.idList === "string" ? { id: item.idList } : undefined,
        raw: item,
      });
    }
  }
  // Keep the record bounded: the newest marks are the ones that can repeat.
  store.set(key, { enabledAt: state.enabledAt, fired: [...fired].slice(-5000) } satisfies DueState);
  return events;
}

export interface FeedState {
  lastId?: string | undefined;
  seen: string[];
}

/** One poll of a feed trigger (newest first). The first poll records the position and fires nothing. */
export async function pollFeed(spec: FeedPollSpec, config: TriggerConfig, list: ListFn, store: StateStore, now = Date.now()): Promise<TriggerEvent[]> {
  const key = stateKey(config, "feed");
  const state = store.get<FeedState>(key);
  const query = spec.sinceParam && state?.lastId ? { [spec.sinceParam]: state.lastId } : undefined;
  const items = asItems(await list(spec.listOperation, spec.pathParams, query));
  const ids = items.map((i) => i[spec.idField]).filter((id): id is string => typeof id === "string");
  if (!state) {
    store.set(key, { lastId: ids[0], seen: ids.slice(0, 500) } satisfies FeedState);
    return [];
  }
  const seen = new Set(state.seen);
  const fresh: Record<string, unknown>[] = [];
  for (const item of items) {
    const id = item[spec.idField] as string;
    if (id === state.lastId) break;
    if (!seen.has(id)) fresh.push(item);
  }
  fresh.reverse(); // deliver oldest first
  const events = fresh.map((item) => ({
    trigger: config.trigger,
    connection: config.connection,
    eventId: item[spec.idField] as string,
    type: typeof item.type === "string" ? item.type : "item",
    time: typeof item.date === "string" ? item.date : new Date(now).toISOString(),
    board: ref(item.board),
    card: ref(item.card),
    raw: item,
  }));
  const newSeen = [...fresh.map((i) => i[spec.idField] as string), ...state.seen].slice(0, 500);
  store.set(key, { lastId: ids[0] ?? state.lastId, seen: newSeen } satisfies FeedState);
  return events;
}

