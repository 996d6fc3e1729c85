/**
 * The meaning of every StateStore operation, written once over a transaction that reads and writes
 * whole entries. The memory backend runs it on a Map; the file backend runs it on files under its
 * lock. (The Redis backend says the same in Lua, and the shared conformance tests hold the three
 * to one behaviour.)
 *
 * Each kind of entry lives in its own key space ("r/", "l/", "s/", "c/", "f/"), so a record and a
 * lock may share a name.
 */
import type {
  Admission,
  AdmissionItem,
  CounterValue,
  LockBusy,
  LockGrant,
  SetOptions,
  SetResult,
  StoredRecord,
} from "./types.js";

export interface RecordEntry {
  /** Absent after a delete: the version survives so it is never reused. */
  value?: unknown;
  version: number;
  expiresAt?: number | undefined;
}
export interface LockEntry {
  token: number;
  /** 0 when released. */
  expiresAt: number;
}
export interface SlotsEntry {
  /** "#" + entry id → until when it counts (the "#" keeps ids such as "__proto__" plain keys). */
  entries: Record<string, number>;
  blockedUntil: number;
}
export interface CounterEntry {
  value: number;
  resetAt: number;
}
export interface SeenEntry {
  /** "#" + id → until when a repeat is dropped. */
  ids: Record<string, number>;
}

/** Synchronous access to entries for the length of one operation. */
export interface Tx {
  read<T>(key: string): T | undefined;
  /** undefined removes the entry. */
  write<T>(key: string, entry: T | undefined): void;
}

const R = (key: string) => `r/${key}`;
const L = (key: string) => `l/${key}`;
const S = (key: string) => `s/${key}`;
const C = (key: string) => `c/${key}`;
const F = (key: string) => `f/${key}`;

/** The live record (one past its TTL reads as deleted). */
function liveRecord(tx: Tx, key: string, now: number): RecordEntry | undefined {
  const entry = tx.read<RecordEntry>(R(key));
  if (!entry) return undefined;
  if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
    tx.write(R(key), undefined);
    return undefined;
  }
  return entry;
}

function asStored<T>(entry: RecordEntry | undefined): StoredRecord<T> | undefined {
  return entry && "value" in entry && entry.value !== undefined
    ? { value: entry.value as T, version: entry.version }
    : undefined;
}

export function getRecord<T>(tx: Tx, key: string, now: number): StoredRecord<T> | undefined {
  return asStored<T>(liveRecord(tx, key, now));
}

export function setRecord<T>(tx: Tx, key: string, value: T, options: SetOptions, now: number): SetResult<T> {
  const entry = liveRecord(tx, key, now);
  const current = asStored<T>(entry);
  if (options.fence) {
    const lock = tx.read<LockEntry>(L(options.fence.lock));
    if (!lock || lock.token !== options.fence.token) return { ok: false, reason: "fence", current };
  }
  if (options.ifVersion !== undefined && (current?.version ?? 0) !== options.ifVersion)
    return { ok: false, reason: "version", current };
  const version = (entry?.version ?? 0) + 1;
  const next: RecordEntry = { value: value as unknown, version };
  if (options.ttlMs !== undefined) next.expiresAt = now + options.ttlMs;
  tx.write(R(key), next);
  return { ok: true, version };
}

export function deleteRecord(tx: Tx, key: string, ifVersion: number | undefined, now: number): boolean {
  const entry = liveRecord(tx, key, now);
  const current = asStored(entry);
  if (!entry || !current) return false;
  if (ifVersion !== undefined && current.version !== ifVersion) return false;
  tx.write<RecordEntry>(R(key), { version: entry.version });
  return true;
}

export function lock(tx: Tx, key: string, ttlMs: number, now: number): LockGrant | LockBusy {
  const entry = tx.read<LockEntry>(L(key));
  if (entry && entry.expiresAt > now) return { key, heldUntil: entry.expiresAt };
  const token = (entry?.token ?? 0) + 1;
  const expiresAt = now + ttlMs;
  tx.write<LockEntry>(L(key), { token, expiresAt });
  return { key, token, expiresAt };
}

export function renewLock(tx: Tx, grant: LockGrant, ttlMs: number, now: number): LockGrant | undefined {
  const entry = tx.read<LockEntry>(L(grant.key));
  if (!entry || entry.token !== grant.token || entry.expiresAt <= now) return undefined;
  const expiresAt = now + ttlMs;
  tx.write<LockEntry>(L(grant.key), { token: entry.token, expiresAt });
  return { key: grant.key, token: entry.token, expiresAt };
}

export function unlock(tx: Tx, grant: LockGrant): void {
  const entry = tx.read<LockEntry>(L(grant.key));
  if (entry && entry.token === grant.token) tx.write<LockEntry>(L(grant.key), { token: entry.token, expiresAt: 0 });
}

function liveSlots(tx: Tx, key: string, now: number): SlotsEntry {
  const entry = tx.read<SlotsEntry>(S(key)) ?? { entries: {}, blockedUntil: 0 };
  for (const [id, until] of Object.entries(entry.entries)) if (until <= now) delete entry.entries[id];
  return entry;
}

function writeSlots(tx: Tx, key: string, entry: SlotsEntry, now: number): void {
  const empty = Object.keys(entry.entries).length === 0 && entry.blockedUntil <= now;
  tx.write(S(key), empty ? undefined : entry);
}

function liveCounter(tx: Tx, key: string, now: number): CounterEntry | undefined {
  const entry = tx.read<CounterEntry>(C(key));
  if (!entry) return undefined;
  if (entry.resetAt <= now) {
    tx.write(C(key), undefined);
    return undefined;
  }
  return entry;
}

export function admit(tx: Tx, items: AdmissionItem[], id: string, now: number): Admission {
  // Quotas first: a call that cannot be made before a reset fails now instead of waiting for a slot.
  for (const [i, item] of items.entries()) {
    if (item.kind === "counter") {
      const c = liveCounter(tx, item.key, now);
      if ((c?.value ?? 0) + item.cost > item.limit)
        return { ok: false, item: i, exhausted: true, resetAt: c?.resetAt ?? item.resetAt };
    } else if (item.kind === "budget") {
      const c = liveCounter(tx, item.key, now);
      if (c && c.value - item.cost < 0) return { ok: false, item: i, exhausted: true, resetAt: c.resetAt };
    }
  }
  const slots = new Map<number, SlotsEntry>();
  let refusal: Admission | undefined;
  for (const [i, item] of items.entries()) {
    if (item.kind !== "slots") continue;
    const entry = liveSlots(tx, item.key, now);
    slots.set(i, entry);
    let retryAt = 0;
    if (entry.blockedUntil > now) retryAt = entry.blockedUntil;
    const held = Object.values(entry.entries).sort((a, b) => a - b);
    const excess = held.length - item.capacity + 1;
    if (excess > 0) retryAt = Math.max(retryAt, held[excess - 1]!);
    if (retryAt > 0 && (!refusal || (!refusal.ok && !refusal.exhausted && retryAt > refusal.retryAt))) {
      refusal = { ok: false, item: i, exhausted: false, retryAt };
    }
  }
  if (refusal) {
    for (const [i, entry] of slots) writeSlots(tx, (items[i] as { key: string }).key, entry, now);
    return refusal;
  }
  const remaining: Array<number | undefined> = [];
  for (const [i, item] of items.entries()) {
    if (item.kind === "slots") {
      const entry = slots.get(i)!;
      entry.entries[`#${id}`] = now + item.holdMs;
      writeSlots(tx, item.key, entry, now);
      remaining.push(Math.max(0, item.capacity - Object.keys(entry.entries).length));
    } else if (item.kind === "counter") {
      const c = liveCounter(tx, item.key, now);
      const value = (c?.value ?? 0) + item.cost;
      tx.write<CounterEntry>(C(item.key), { value, resetAt: c?.resetAt ?? item.resetAt });
      remaining.push(Math.max(0, item.limit - value));
    } else {
      const c = liveCounter(tx, item.key, now);
      if (c) tx.write<CounterEntry>(C(item.key), { value: c.value - item.cost, resetAt: c.resetAt });
      remaining.push(c ? c.value - item.cost : undefined);
    }
  }
  return { ok: true, remaining };
}

export function hold(tx: Tx, key: string, id: string, ms: number, now: number): boolean {
  const entry = liveSlots(tx, key, now);
  const name = `#${id}`;
  const present = Object.hasOwn(entry.entries, name);
  if (present) {
    if (ms <= 0) delete entry.entries[name];
    else entry.entries[name] = now + ms;
  }
  writeSlots(tx, key, entry, now);
  return present;
}

export function block(tx: Tx, key: string, until: number, now: number): void {
  const entry = liveSlots(tx, key, now);
  entry.blockedUntil = Math.max(entry.blockedUntil, until);
  writeSlots(tx, key, entry, now);
}

export function slotsOf(tx: Tx, key: string, now: number): { live: number; blockedUntil: number } {
  const entry = liveSlots(tx, key, now);
  return { live: Object.keys(entry.entries).length, blockedUntil: entry.blockedUntil > now ? entry.blockedUntil : 0 };
}

export function counter(tx: Tx, key: string, now: number): CounterValue | undefined {
  const c = liveCounter(tx, key, now);
  return c ? { value: c.value, resetAt: c.resetAt } : undefined;
}

export function addToCounter(tx: Tx, key: string, delta: number, resetAt: number, now: number): number {
  const c = liveCounter(tx, key, now);
  const value = Math.max(0, (c?.value ?? 0) + delta);
  tx.write<CounterEntry>(C(key), { value, resetAt: c?.resetAt ?? resetAt });
  return value;
}

export function setCounter(tx: Tx, key: string, value: number, resetAt: number): void {
  tx.write<CounterEntry>(C(key), { value, resetAt });
}

/** FNV-1a: spreads ids over buckets, so one delivery reads and writes a 64th of a busy window. */
function bucketOf(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 64).toString(16).padStart(2, "0");
}

export function firstSeen(tx: Tx, key: string, id: string, windowMs: number, now: number): boolean {
  const bucket = F(`${key}#${bucketOf(id)}`);
  const entry = tx.read<SeenEntry>(bucket) ?? { ids: {} };
  for (const [seen, until] of Object.entries(entry.ids)) if (until <= now) delete entry.ids[seen];
  const name = `#${id}`;
  const fresh = !Object.hasOwn(entry.ids, name);
  if (fresh) entry.ids[name] = now + windowMs;
  tx.write(bucket, Object.keys(entry.ids).length ? entry : undefined);
  return fresh;
}

/** Prefixes of record keys as the model stores them, for `keys(prefix)`. */
export const RECORD_PREFIX = "r/";
