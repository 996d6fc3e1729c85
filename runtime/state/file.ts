/**
 * The file backend: many processes on one machine share state through a folder. Every operation
 * runs under one OS-level lock on the folder (see file-lock.ts; the operations a process asked for
 * while it waited share one turn at it), reads the few entries it needs from their own files, and
 * writes back only the entries it changed (each to a temporary file renamed over the old one), so
 * an operation never rewrites an entry from a stale copy and a crash leaves each entry whole. The
 * folder is mode 0700 and its files 0600: records may hold tokens.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { FileLockTimeoutError, withFileLock } from "./file-lock.js";
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
  StateUnavailableError,
  type StateStore,
  type StoredRecord,
  systemClock,
} from "./types.js";

export interface FileStateOptions {
  clock?: Clock | undefined;
  /** Longest wait for the folder's lock before StateUnavailableError (default 10 s). */
  lockTimeoutMs?: number | undefined;
}

interface FileContent {
  /** The model key, for names too long to encode (hashed). */
  k: string;
  e: unknown;
}

/** The file name of a model key: readable when short, hashed when long. */
function fileName(key: string): string {
  const encoded = encodeURIComponent(key);
  return encoded.length <= 180 ? encoded : `h_${createHash("sha256").update(key).digest("hex")}`;
}

/** An operation asked of the store, waiting for its process's next turn at the lock. */
interface Queued {
  step: (tx: model.Tx, now: number) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Operations one turn at the lock may take (a turn holds the lock ~1 ms each). */
const MAX_TURN = 64;

export class FileStateStore implements StateStore {
  readonly backend = "file" as const;
  readonly clock: Clock;
  private readonly lockPath: string;
  private readonly lockTimeoutMs: number;
  /** Operations waiting for this process's next turn at the lock (undefined: none is waiting). */
  private waiting: Queued[] | undefined;
  private turnsTaken = 0;

  constructor(
    readonly dir: string,
    options: FileStateOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.lockPath = join(dir, ".state");
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  }

  /** Turns this store has taken at the folder's lock (for tests and benchmarks). */
  get turns(): number {
    return this.turnsTaken;
  }

  /**
   * Runs one model operation under the folder's lock, then writes what it changed. Operations this
   * process asks for while it waits for the lock go in the same turn: taken in the order they were
   * asked, each reading the entries as the one before it left them, under one lock taken once.
   * Under contention the wait for the lock is most of an operation's time (it is held ~1 ms per
   * operation), so one turn for what piled up gives each process's calls far more room per second
   * than a turn each.
   */
  private run<T>(step: (tx: model.Tx, now: number) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queued = { step, resolve, reject } as Queued;
      if (this.waiting && this.waiting.length < MAX_TURN) {
        this.waiting.push(queued);
        return;
      }
      const turn = [queued];
      this.waiting = turn;
      withFileLock(
        this.lockPath,
        () => {
          // From here on, what is asked waits for the next turn.
          if (this.waiting === turn) this.waiting = undefined;
          this.turnsTaken++;
          return turn.map((q) => this.attempt(q.step));
        },
        { timeoutMs: this.lockTimeoutMs },
      ).then(
        (outcomes) => {
          for (const [i, q] of turn.entries()) {
            const outcome = outcomes[i]!;
            if (outcome.ok) q.resolve(outcome.value);
            else q.reject(this.unavailable(outcome.error));
          }
        },
        (error: unknown) => {
          if (this.waiting === turn) this.waiting = undefined;
          for (const q of turn) q.reject(this.unavailable(error));
        },
      );
    });
  }

  /** One operation of a turn: its reads, its step, then its writes (none when the step throws). */
  private attempt(step: (tx: model.Tx, now: number) => unknown): Outcome {
    try {
      const read = new Map<string, unknown>();
      const dirty = new Set<string>();
      const tx: model.Tx = {
        read: <E>(key: string) => {
          if (!read.has(key)) read.set(key, this.readEntry(key));
          // Entries are mutated in place by the model; a fresh copy per operation keeps that local.
          return read.get(key) as E | undefined;
        },
        write: <E>(key: string, entry: E | undefined) => {
          read.set(key, entry);
          dirty.add(key);
        },
      };
      const value = step(tx, this.clock.now());
      for (const key of dirty) this.writeEntry(key, read.get(key));
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** A folder that cannot be locked or written in time: the typed error a caller expects. */
  private unavailable(error: unknown): unknown {
    if (error instanceof FileLockTimeoutError) return new StateUnavailableError("file", error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "ENOSPC" || code === "EROFS")
      return new StateUnavailableError("file", `the state folder ${this.dir} cannot be written (${code})`);
    return error;
  }

  private readEntry(key: string): unknown {
    let text: string;
    try {
      text = readFileSync(join(this.dir, fileName(key)), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      const content = JSON.parse(text) as FileContent;
      return content.k === key ? content.e : undefined;
    } catch {
      // A file cut short by a crash before rename cannot exist (rename is atomic); anything else is foreign.
      return undefined;
    }
  }

  private writeEntry(key: string, entry: unknown): void {
    const path = join(this.dir, fileName(key));
    if (entry === undefined) {
      rmSync(path, { force: true });
      return;
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.tmp-${process.pid}-${randomUUID()}`);
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, JSON.stringify({ k: key, e: entry } satisfies FileContent));
      // Records (connections, tokens) must survive a power cut; limiter entries need not.
      if (key.startsWith(model.RECORD_PREFIX)) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }

  async get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
    return this.run((tx, now) => model.getRecord<T>(tx, key, now));
  }
  async set<T = unknown>(key: string, value: T, options: SetOptions = {}): Promise<SetResult<T>> {
    const copy = JSON.parse(JSON.stringify(value)) as T;
    return this.run((tx, now) => model.setRecord<T>(tx, key, copy, options, now));
  }
  async delete(key: string, options: { ifVersion?: number | undefined } = {}): Promise<boolean> {
    return this.run((tx, now) => model.deleteRecord(tx, key, options.ifVersion, now));
  }
  async keys(prefix: string): Promise<string[]> {
    return this.run((tx, now) => {
      let names: string[];
      try {
        names = readdirSync(this.dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const found: string[] = [];
      for (const name of names) {
        let key: string | undefined;
        if (name.startsWith("h_")) {
          try {
            key = (JSON.parse(readFileSync(join(this.dir, name), "utf8")) as FileContent).k;
          } catch {
            continue;
          }
        } else if (!name.startsWith(".")) {
          try {
            key = decodeURIComponent(name);
          } catch {
            continue;
          }
        }
        if (!key?.startsWith(model.RECORD_PREFIX + prefix)) continue;
        const record = key.slice(model.RECORD_PREFIX.length);
        if (model.getRecord(tx, record, now)) found.push(record);
      }
      return found.sort();
    });
  }
  async lock(key: string, ttlMs: number): Promise<LockGrant | LockBusy> {
    return this.run((tx, now) => model.lock(tx, key, ttlMs, now));
  }
  async renewLock(grant: LockGrant, ttlMs: number): Promise<LockGrant | undefined> {
    return this.run((tx, now) => model.renewLock(tx, grant, ttlMs, now));
  }
  async unlock(grant: LockGrant): Promise<void> {
    return this.run((tx) => model.unlock(tx, grant));
  }
  async admit(items: AdmissionItem[], id: string): Promise<Admission> {
    return this.run((tx, now) => model.admit(tx, items, id, now));
  }
  async hold(key: string, id: string, ms: number): Promise<boolean> {
    return this.run((tx, now) => model.hold(tx, key, id, ms, now));
  }
  async block(key: string, until: number): Promise<void> {
    return this.run((tx, now) => model.block(tx, key, until, now));
  }
  async slots(key: string): Promise<{ live: number; blockedUntil: number }> {
    return this.run((tx, now) => model.slotsOf(tx, key, now));
  }
  async counter(key: string): Promise<CounterValue | undefined> {
    return this.run((tx, now) => model.counter(tx, key, now));
  }
  async addToCounter(key: string, delta: number, resetAt: number): Promise<number> {
    return this.run((tx, now) => model.addToCounter(tx, key, delta, resetAt, now));
  }
  async setCounter(key: string, value: number, resetAt: number): Promise<void> {
    return this.run((tx) => model.setCounter(tx, key, value, resetAt));
  }
  async firstSeen(key: string, id: string, windowMs: number): Promise<boolean> {
    return this.run((tx, now) => model.firstSeen(tx, key, id, windowMs, now));
  }
  async close(): Promise<void> {}
}
