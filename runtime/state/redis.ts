/**
 * The Redis backend: state shared by every process on every machine that reaches one Redis, through
 * ioredis. Each operation is one Lua script (redis-scripts.ts), so it is atomic on the server.
 *
 * When Redis is down or too slow, an operation waits at most `unreachableAfterMs` (for the
 * connection to come back, or for the answer) and then throws StateUnavailableError: a caller never
 * goes ahead as if a limit had room. Commands are not queued while disconnected (a queued admission
 * could be granted long after its caller gave up); the client reconnects on its own in the
 * background. Key names are `prefix` + kind + the caller's key (which holds no secret), and the
 * address (which may hold a password) appears in no key and no message.
 */
import type { Redis, RedisOptions } from "ioredis";
import { importPeer } from "../internal/package-bin.js";
import { SCRIPTS, type ScriptName } from "./redis-scripts.js";
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

export interface RedisStateOptions {
  clock?: Clock | undefined;
  /** Prepended to every key (default "stepforge:"), so several apps can share one Redis. */
  prefix?: string | undefined;
  /** Longest wait for a connection or an answer before StateUnavailableError (default 5 s). */
  unreachableAfterMs?: number | undefined;
  /**
   * Extra ioredis options (its `RedisOptions`: TLS, a sentinel setup, …), passed through as given.
   * Typed loosely on purpose: naming ioredis's type here put its 25 declaration files into every
   * consumer's type-check, Redis or not.
   */
  redis?: Readonly<Record<string, unknown>> | undefined;
}

type Scripted = Redis & { [K in ScriptName]: (...args: Array<string | number>) => Promise<unknown> };

/** The address without its password or user, for messages. */
export function describeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
  } catch {
    return "the configured Redis";
  }
}

/** ioredis errors that mean "the command never reached the server": safe to try again. */
function neverSent(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return /enableOfflineQueue|Connection is closed|Stream isn't writeable/i.test(message);
}

/** ioredis errors that mean "no answer" (rather than an answer that is an error). */
function unreachable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  const name = error instanceof Error ? error.name : "";
  return (
    neverSent(error) ||
    name === "MaxRetriesPerRequestError" ||
    /Command timed out|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|socket/i.test(message)
  );
}

export class RedisStateStore implements StateStore {
  readonly backend = "redis" as const;
  readonly clock: Clock;
  private redis!: Scripted;
  private readonly connecting: Promise<void>;
  private readonly prefix: string;
  private readonly waitMs: number;
  readonly unreachableAfterMs: number;
  private readonly where: string;
  private lastError = "";
  private closed = false;

  constructor(url: string, options: RedisStateOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.prefix = options.prefix ?? "stepforge:";
    this.waitMs = options.unreachableAfterMs ?? 5000;
    this.unreachableAfterMs = this.waitMs;
    this.where = describeRedisUrl(url);
    // ioredis, an optional peer, is loaded on first use: a bundle that never talks to Redis does not
    // carry it, and without it installed the first operation says which package to add.
    this.connecting = importPeer<typeof import("ioredis")>("ioredis", "shared state on Redis").then(({ Redis }) => {
      if (this.closed) return;
      this.connect(
        new Redis(url, {
          enableOfflineQueue: false,
          autoResendUnfulfilledCommands: false,
          maxRetriesPerRequest: 0,
          commandTimeout: this.waitMs,
          connectTimeout: Math.min(this.waitMs, 10_000),
          // Reconnect forever, backing off to one attempt a second.
          retryStrategy: (times) => Math.min(50 * times, 1000),
          ...(options.redis as RedisOptions | undefined),
        }),
      );
    });
    // Handled here so a missing ioredis is not an unhandled rejection; each operation awaits this
    // promise and throws its MissingPackageError to the caller.
    this.connecting.catch(() => undefined);
  }

  private connect(redis: Redis): void {
    // Without a listener ioredis prints every failed reconnect; remember the last for the error message.
    redis.on("error", (error: Error) => {
      this.lastError = error.message.replace(/\/\/[^@/]*@/g, "//");
    });
    // Neither an idle connection nor waiting to reconnect keeps the process alive (a pending
    // command's timeout timer does). ioredis sets its reconnect timer right after this event.
    const internals = redis as unknown as {
      stream?: { unref?: () => void };
      reconnectTimeout?: { unref?: () => void } | null;
    };
    redis.on("connect", () => internals.stream?.unref?.());
    redis.on("reconnecting", () => queueMicrotask(() => internals.reconnectTimeout?.unref?.()));
    for (const [name, script] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, { numberOfKeys: script.keys >= 0 ? script.keys : undefined, lua: script.lua });
    }
    this.redis = redis as Scripted;
  }

  private k(kind: string, key: string): string {
    return `${this.prefix}${kind}:${key}`;
  }

  private unavailable(detail: string): StateUnavailableError {
    return new StateUnavailableError(
      "redis",
      `${this.where}: ${detail}${this.lastError ? ` (${this.lastError})` : ""}`,
    );
  }

  /** Runs one script, waiting at most `waitMs` in all for a connection and an answer. */
  private async run<T>(name: ScriptName, keys: string[], args: Array<string | number>): Promise<T> {
    if (!this.redis) await this.connecting;
    if (this.closed) throw this.unavailable("the store was closed");
    const deadline = Date.now() + this.waitMs;
    const script = SCRIPTS[name];
    const params = script.keys >= 0 ? [...keys, ...args] : [keys.length, ...keys, ...args];
    for (;;) {
      if (this.redis.status === "ready") {
        try {
          return (await this.redis[name](...params)) as T;
        } catch (error) {
          if (!unreachable(error)) throw error;
          // Only a command that never left may be sent again; one lost in flight is reported.
          if (!neverSent(error) || Date.now() >= deadline)
            throw this.unavailable(error instanceof Error ? error.message : String(error));
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) throw this.unavailable(`no connection within ${this.waitMs} ms`);
      await this.readyWithin(left);
    }
  }

  private readyWithin(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off("ready", done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(ms, 250));
      this.redis.once("ready", done);
    });
  }

  async get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
    const found = await this.run<[string, number] | null>("sfGet", [this.k("r", key)], [this.clock.now()]);
    return found ? { value: JSON.parse(found[0]) as T, version: Number(found[1]) } : undefined;
  }

  async set<T = unknown>(key: string, value: T, options: SetOptions = {}): Promise<SetResult<T>> {
    const reply = await this.run<[number, ...unknown[]]>(
      "sfSet",
      [this.k("r", key), this.k("l", options.fence?.lock ?? key)],
      [
        JSON.stringify(value),
        options.ifVersion ?? "",
        options.fence?.token ?? "",
        options.ttlMs ?? "",
        this.clock.now(),
      ],
    );
    if (reply[0] === 1) return { ok: true, version: Number(reply[1]) };
    const json = reply[2] as string | null;
    const current = json ? { value: JSON.parse(json) as T, version: Number(reply[3]) } : undefined;
    return { ok: false, reason: reply[1] === "fence" ? "fence" : "version", current };
  }

  async delete(key: string, options: { ifVersion?: number | undefined } = {}): Promise<boolean> {
    return (await this.run<number>("sfDel", [this.k("r", key)], [options.ifVersion ?? "", this.clock.now()])) === 1;
  }

  async keys(prefix: string): Promise<string[]> {
    const pattern = `${this.k("r", prefix).replace(/[*?[\]\\]/g, "\\$&")}*`;
    const found = new Set<string>();
    let cursor = "0";
    const deadline = Date.now() + this.waitMs;
    do {
      if (Date.now() > deadline) throw this.unavailable(`listing keys took over ${this.waitMs} ms`);
      if (!this.redis) await this.connecting;
      let reply: [string, string[]];
      try {
        reply = await this.redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
      } catch (error) {
        if (unreachable(error)) throw this.unavailable(error instanceof Error ? error.message : String(error));
        throw error;
      }
      cursor = reply[0];
      for (const name of reply[1]) found.add(name.slice(this.k("r", "").length));
    } while (cursor !== "0");
    const live: string[] = [];
    for (const key of found) if (await this.get(key)) live.push(key);
    return live.sort();
  }

  async lock(key: string, ttlMs: number): Promise<LockGrant | LockBusy> {
    const reply = await this.run<number[]>("sfLock", [this.k("l", key)], [ttlMs, this.clock.now()]);
    return reply[0] === 1
      ? { key, token: Number(reply[1]), expiresAt: Number(reply[2]) }
      : { key, heldUntil: Number(reply[1]) };
  }

  async renewLock(grant: LockGrant, ttlMs: number): Promise<LockGrant | undefined> {
    const reply = await this.run<number | null>(
      "sfRenew",
      [this.k("l", grant.key)],
      [grant.token, ttlMs, this.clock.now()],
    );
    return reply === null ? undefined : { key: grant.key, token: grant.token, expiresAt: Number(reply) };
  }

  async unlock(grant: LockGrant): Promise<void> {
    await this.run("sfUnlock", [this.k("l", grant.key)], [grant.token]);
  }

  async admit(items: AdmissionItem[], id: string): Promise<Admission> {
    const keys: string[] = [];
    const args: Array<string | number> = [this.clock.now(), id];
    for (const item of items) {
      if (item.kind === "slots") {
        keys.push(this.k("s", item.key), this.k("b", item.key));
        args.push("s", item.capacity, item.holdMs, 0);
      } else if (item.kind === "counter") {
        keys.push(this.k("c", item.key), this.k("c", item.key));
        args.push("c", item.limit, item.cost, item.resetAt);
      } else {
        keys.push(this.k("c", item.key), this.k("c", item.key));
        args.push("b", item.cost, 0, 0);
      }
    }
    const reply = await this.run<Array<number | string>>("sfAdmit", keys, args);
    if (reply[0] === 1) return { ok: true, remaining: reply.slice(1).map((v) => (v === "" ? undefined : Number(v))) };
    const item = Number(reply[1]);
    return reply[2] === 1
      ? { ok: false, item, exhausted: true, resetAt: Number(reply[3]) }
      : { ok: false, item, exhausted: false, retryAt: Number(reply[3]) };
  }

  async hold(key: string, id: string, ms: number): Promise<boolean> {
    return (await this.run<number>("sfHold", [this.k("s", key)], [id, ms, this.clock.now()])) === 1;
  }

  async block(key: string, until: number): Promise<void> {
    await this.run("sfBlock", [this.k("b", key)], [until, this.clock.now()]);
  }

  async slots(key: string): Promise<{ live: number; blockedUntil: number }> {
    const reply = await this.run<number[]>("sfSlots", [this.k("s", key), this.k("b", key)], [this.clock.now()]);
    return { live: Number(reply[0]), blockedUntil: Number(reply[1]) };
  }

  async counter(key: string): Promise<CounterValue | undefined> {
    const reply = await this.run<number[] | null>("sfCounter", [this.k("c", key)], [this.clock.now()]);
    return reply ? { value: Number(reply[0]), resetAt: Number(reply[1]) } : undefined;
  }

  async addToCounter(key: string, delta: number, resetAt: number): Promise<number> {
    return Number(await this.run("sfAdd", [this.k("c", key)], [delta, resetAt, this.clock.now()]));
  }

  async setCounter(key: string, value: number, resetAt: number): Promise<void> {
    await this.run("sfSetCounter", [this.k("c", key)], [value, resetAt, this.clock.now()]);
  }

  async firstSeen(key: string, id: string, windowMs: number): Promise<boolean> {
    return (await this.run<number>("sfSeen", [this.k("f", key)], [id, windowMs, this.clock.now()])) === 1;
  }

  /** Waits (bounded) for the first connection; later operations wait on their own. */
  async ready(): Promise<void> {
    await this.connecting;
    const deadline = Date.now() + this.waitMs;
    while (this.redis.status !== "ready") {
      const left = deadline - Date.now();
      if (left <= 0) throw this.unavailable(`no connection within ${this.waitMs} ms`);
      await this.readyWithin(left);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connecting.catch(() => undefined);
    this.redis?.disconnect();
  }
}
