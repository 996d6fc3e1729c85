/**
 * The in-memory backend: one process, no setup. Operations run on a Map synchronously, so each is
 * atomic with respect to every other caller in the process. Values are copied in and out, so a
 * caller changing an object it read does not change the store.
 */
import * as model from "./semantics.js";
import {
  type Admission,
  type AdmissionItem,
  type Clock,
  type CounterValue,
  type LockBusy,
  type LockGrant,
  type SetOptions,
  type SetResult,
  type StateStore,
  type StoredRecord,
  systemClock,
} from "./types.js";

export class MemoryStateStore implements StateStore {
  readonly backend = "memory" as const;
  private readonly entries = new Map<string, unknown>();
  private readonly tx: model.Tx = {
    read: <T>(key: string) => this.entries.get(key) as T | undefined,
    write: <T>(key: string, entry: T | undefined) => {
      if (entry === undefined) this.entries.delete(key);
      else this.entries.set(key, entry);
    },
  };

  constructor(readonly clock: Clock = systemClock) {}

  async get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
    const found = model.getRecord<T>(this.tx, key, this.clock.now());
    return found && { value: structuredClone(found.value), version: found.version };
  }
  async set<T = unknown>(key: string, value: T, options: SetOptions = {}): Promise<SetResult<T>> {
    const result = model.setRecord<T>(this.tx, key, structuredClone(value), options, this.clock.now());
    return !result.ok && result.current
      ? { ...result, current: { value: structuredClone(result.current.value), version: result.current.version } }
      : result;
  }
  async delete(key: string, options: { ifVersion?: number | undefined } = {}): Promise<boolean> {
    return model.deleteRecord(this.tx, key, options.ifVersion, this.clock.now());
  }
  async keys(prefix: string): Promise<string[]> {
    const now = this.clock.now();
    const found: string[] = [];
    for (const key of this.entries.keys()) {
      if (!key.startsWith(model.RECORD_PREFIX + prefix)) continue;
      const name = key.slice(model.RECORD_PREFIX.length);
      if (model.getRecord(this.tx, name, now)) found.push(name);
    }
    return found.sort();
  }
  async lock(key: string, ttlMs: number): Promise<LockGrant | LockBusy> {
    return model.lock(this.tx, key, ttlMs, this.clock.now());
  }
  async renewLock(grant: LockGrant, ttlMs: number): Promise<LockGrant | undefined> {
    return model.renewLock(this.tx, grant, ttlMs, this.clock.now());
  }
  async unlock(grant: LockGrant): Promise<void> {
    model.unlock(this.tx, grant);
  }
  async admit(items: AdmissionItem[], id: string): Promise<Admission> {
    return model.admit(this.tx, items, id, this.clock.now());
  }
  async hold(key: string, id: string, ms: number): Promise<boolean> {
    return model.hold(this.tx, key, id, ms, this.clock.now());
  }
  async block(key: string, until: number): Promise<void> {
    model.block(this.tx, key, until, this.clock.now());
  }
  async slots(key: string): Promise<{ live: number; blockedUntil: number }> {
    return model.slotsOf(this.tx, key, this.clock.now());
  }
  async counter(key: string): Promise<CounterValue | undefined> {
    return model.counter(this.tx, key, this.clock.now());
  }
  async addToCounter(key: string, delta: number, resetAt: number): Promise<number> {
    return model.addToCounter(this.tx, key, delta, resetAt, this.clock.now());
  }
  async setCounter(key: string, value: number, resetAt: number): Promise<void> {
    model.setCounter(this.tx, key, value, resetAt);
  }
  async firstSeen(key: string, id: string, windowMs: number): Promise<boolean> {
    return model.firstSeen(this.tx, key, id, windowMs, this.clock.now());
  }
  async close(): Promise<void> {}
}
