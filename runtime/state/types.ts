/**
 * The shared-state layer: the few primitives every piece of cross-process coordination is built
 * from (limiter windows and slots, quotas, the token cache, connection records, webhook dedupe,
 * poller cursors). One interface, three backends:
 *
 * - `memory`: one process (the default; nothing shared, nothing to set up);
 * - `file`: one machine, many processes (a directory, an OS-level lock file per operation);
 * - `redis`: many machines (every operation one Lua script, so it is atomic on the server).
 *
 * Every operation is atomic on its own. Keys are plain strings chosen by the caller and must never
 * contain a secret: hash credential values first (`stateKey`). Times are epoch milliseconds from
 * the store's injected `Clock`, so tests can run a fake one. Values are JSON-serialisable.
 */

/** Where "now" comes from. Backends read it once per operation. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(private at = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
  set(at: number): void {
    this.at = at;
  }
}

/** A record and its version: 1 after the first write, +1 on every write; never reused after a delete. */
export interface StoredRecord<T = unknown> {
  value: T;
  version: number;
}

/**
 * A lock holder's proof. `token` is the fencing token: it increases by one every time anyone
 * acquires the lock, and never goes back, so a write carrying an older token is refused.
 */
export interface LockGrant {
  key: string;
  token: number;
  expiresAt: number;
}

/** Lock is held by someone else until `expiresAt` (when it lapses unless renewed). */
export interface LockBusy {
  key: string;
  heldUntil: number;
}

/** "Write only while I still hold lock `lock` with this token" (see `LockGrant`). */
export interface Fence {
  lock: string;
  token: number;
}

export interface SetOptions {
  /** Write only when the record's version is this (0: only when there is no record). */
  ifVersion?: number | undefined;
  /** Write only when the lock's newest token is this one (no newer holder since). */
  fence?: Fence | undefined;
  /** The record disappears this long after the write. */
  ttlMs?: number | undefined;
}

export type SetResult<T = unknown> =
  | { ok: true; version: number }
  | { ok: false; reason: "version"; current: StoredRecord<T> | undefined }
  | { ok: false; reason: "fence"; current: StoredRecord<T> | undefined };

/**
 * One thing a request must take room in before it may go. `admit` takes all of them or none.
 *
 * - `slots`: a set of timed entries with a capacity. Admission adds entry `id` that counts until
 *   `holdMs` from now, if fewer than `capacity` entries are live. A sliding-window limit holds a slot
 *   while in flight and then `hold`s it for one window after the response; a concurrency limit holds
 *   it as a lease (renewed with `hold` while working, freed with `hold(…, 0)`), so a dead worker's
 *   slot frees itself. A key may also be blocked until a time (`block`): nothing is admitted before.
 * - `counter`: a count that starts again from 0 at `resetAt` (daily or monthly quotas). Admission
 *   adds `cost` if the result stays at or under `limit`; otherwise it is exhausted until its reset.
 * - `budget`: what is left, as last reported (header quotas, set with `setCounter`). Admission
 *   subtracts `cost` if that leaves 0 or more; an unknown budget (never set, or past its reset) admits.
 */
export type AdmissionItem =
  | { kind: "slots"; key: string; capacity: number; holdMs: number }
  | { kind: "counter"; key: string; limit: number; cost: number; resetAt: number }
  | { kind: "budget"; key: string; cost: number };

export type Admission =
  /**
   * Admitted. `remaining`: what each item has left after it, in item order (free slots, what a
   * counter may still add, what a budget holds; undefined for a budget never reported), worked out
   * by the same atomic step, so a budget gauge costs no extra round trip. Absent from older stores.
   */
  | { ok: true; remaining?: Array<number | undefined> }
  /** Item `item` has no room: try again at `retryAt` (a slot that frees on release may free sooner). */
  | { ok: false; item: number; exhausted: false; retryAt: number }
  /** Item `item` is a counter or budget used up until `resetAt`: waiting is pointless. */
  | { ok: false; item: number; exhausted: true; resetAt: number };

export interface CounterValue {
  value: number;
  resetAt: number;
}

/** Which backend a store is, for messages and tests. */
export type StateBackend = "memory" | "file" | "redis";

export interface StateStore {
  readonly backend: StateBackend;
  readonly clock: Clock;
  /**
   * How long one operation waits for an unreachable store before StateUnavailableError (Redis's
   * `unreachableAfterMs`); a call waiting on the store for a limit is bounded by the same figure.
   */
  readonly unreachableAfterMs?: number | undefined;

  // Versioned records (connection records, cached tokens, cursors).
  get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined>;
  set<T = unknown>(key: string, value: T, options?: SetOptions): Promise<SetResult<T>>;
  /** Removes a record; with `ifVersion`, only that version. Returns whether one was removed. */
  delete(key: string, options?: { ifVersion?: number | undefined }): Promise<boolean>;
  /** Record keys that start with `prefix`, sorted. */
  keys(prefix: string): Promise<string[]>;

  // Locks with expiry and fencing tokens.
  lock(key: string, ttlMs: number): Promise<LockGrant | LockBusy>;
  /** Extends a lock still held with this grant's token; undefined when it was lost. */
  renewLock(grant: LockGrant, ttlMs: number): Promise<LockGrant | undefined>;
  /** Frees the lock if this grant still holds it (the fencing token stays counted). */
  unlock(grant: LockGrant): Promise<void>;

  // Admission (limiter windows, concurrency leases, quotas).
  admit(items: AdmissionItem[], id: string): Promise<Admission>;
  /** Entry `id` of slots `key` now counts until `ms` from now; `ms <= 0` frees it. False when it is gone. */
  hold(key: string, id: string, ms: number): Promise<boolean>;
  /** Admits nothing into slots `key` before `until` (a service's Retry-After, a penalty period). */
  block(key: string, until: number): Promise<void>;
  /** The live entry count of slots `key` and until when it is blocked. */
  slots(key: string): Promise<{ live: number; blockedUntil: number }>;

  // Counters that reset.
  counter(key: string): Promise<CounterValue | undefined>;
  /** Adds `delta` (may be negative, never below 0); starts from 0 when past its reset. Returns the new value. */
  addToCounter(key: string, delta: number, resetAt: number): Promise<number>;
  setCounter(key: string, value: number, resetAt: number): Promise<void>;

  // Time-windowed "first seen" set (webhook dedupe by delivery id).
  /** True the first time `id` is seen under `key` within `windowMs`; false for a repeat. */
  firstSeen(key: string, id: string, windowMs: number): Promise<boolean>;

  /** Lets the process exit (closes connections, timers). */
  close(): Promise<void>;
}

/**
 * The shared state cannot be reached (Redis down or too slow, the state folder unwritable) within
 * the bounded wait. Nothing was admitted or written; whether to retry is the caller's choice.
 */
export class StateUnavailableError extends Error {
  readonly code = "state_unreachable";
  readonly retryable = true;
  constructor(
    readonly backend: StateBackend,
    detail: string,
  ) {
    super(
      `the shared state (${backend}) is unreachable: ${detail}; limits and tokens are not ` +
        `shared until it is back, so nothing was sent`,
    );
    this.name = "StateUnavailableError";
  }
}

/** Whether `error` is a StateUnavailableError (also across copies of this module). */
export function isStateUnavailable(error: unknown): error is StateUnavailableError {
  return error instanceof StateUnavailableError || (error instanceof Error && error.name === "StateUnavailableError");
}
