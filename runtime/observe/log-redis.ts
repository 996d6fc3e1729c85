/**
 * The call log as a Redis stream, shared by every process on every machine that reaches that
 * Redis (the same `STEPFORGE_REDIS_URL` the state layer uses).
 *
 * Each record is one stream entry (`XADD … * r <json>`): Redis gives it an id that orders it among
 * every process's records, and an entry is stored whole or not at all. Records waiting together
 * go in one transaction (one round trip). Retention rides on the same
 * command: `MAXLEN ~ maxRecords` (default 100,000) trims by count as records arrive, and an
 * `XTRIM MINID ~` sent with it drops entries older than `maxAgeMs` (default 30 days). The `~` lets
 * Redis trim whole internal nodes, so the stream may briefly hold a few more.
 *
 * Unlike the state store (which must never queue an admission), a record may wait for a
 * connection: commands are queued while connecting and each fails after `unreachableAfterMs`
 * (default 5 s), so a call never waits on the log for longer, and the loss is reported. An idle
 * connection does not keep a process alive; a command on its way does (its timeout timer).
 */
import type { Redis, RedisOptions } from "ioredis";
import { describeRedisUrl } from "../state/redis.js";
import { importPeer } from "../internal/package-bin.js";
import { type CallRecord, parseRecord } from "./record.js";
import { type CallLogFilter, type CallLogSink, matches, type ReadResult } from "./sink.js";

export interface RedisCallLogOptions {
  /** Stream key (default "stepforge:calls"). */
  key?: string | undefined;
  /** Trim the stream to about this many records (default 100,000). */
  maxRecords?: number | undefined;
  /** Drop records older than this (default 30 days). */
  maxAgeMs?: number | undefined;
  /** Longest wait for a connection or an answer (default 5 s). */
  unreachableAfterMs?: number | undefined;
  /** Extra ioredis options (TLS, …), passed through. */
  redis?: Readonly<Record<string, unknown>> | undefined;
}

export const DEFAULT_REDIS_RETENTION = { maxRecords: 100_000, maxAgeMs: 30 * 24 * 3600 * 1000 };
const PAGE = 500;

export class RedisCallLog implements CallLogSink {
  readonly kind = "redis" as const;
  readonly where: string;
  readonly key: string;
  private readonly maxRecords: number;
  private readonly maxAgeMs: number;
  private readonly waitMs: number;
  private client: Promise<Redis> | undefined;
  private readonly followers = new Set<Redis>();

  constructor(
    private readonly url: string,
    private readonly options: RedisCallLogOptions = {},
  ) {
    if (!/^rediss?:\/\/[^/]/.test(url))
      throw new Error("call log: the Redis address must look like redis://host:6379 or rediss://host:6380");
    this.where = `${describeRedisUrl(url)} stream ${options.key ?? "stepforge:calls"}`;
    this.key = options.key ?? "stepforge:calls";
    this.maxRecords = options.maxRecords ?? DEFAULT_REDIS_RETENTION.maxRecords;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_REDIS_RETENTION.maxAgeMs;
    this.waitMs = options.unreachableAfterMs ?? 5000;
  }

  /** A new ioredis client (loaded on first use: a process that never logs to Redis does not load it). */
  private async connect(extra: RedisOptions = {}): Promise<Redis> {
    const { Redis } = await importPeer<typeof import("ioredis")>("ioredis", "the tool-call log on Redis");
    const redis = new Redis(this.url, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      commandTimeout: this.waitMs,
      connectTimeout: Math.min(this.waitMs, 10_000),
      retryStrategy: (times) => Math.min(50 * times, 1000),
      ...(this.options.redis as RedisOptions | undefined),
      ...extra,
    });
    // Without a listener ioredis prints every failed reconnect; the failing command says enough.
    redis.on("error", () => undefined);
    const internals = redis as unknown as {
      stream?: { unref?: () => void };
      reconnectTimeout?: { unref?: () => void } | null;
    };
    redis.on("connect", () => internals.stream?.unref?.());
    redis.on("reconnecting", () => queueMicrotask(() => internals.reconnectTimeout?.unref?.()));
    return redis;
  }

  private redis(): Promise<Redis> {
    return (this.client ??= this.connect());
  }

  append(record: CallRecord): Promise<void> {
    return this.appendBatch([record]);
  }

  /** One round trip: an XADD per record and one XTRIM, in a transaction. */
  async appendBatch(records: readonly CallRecord[]): Promise<void> {
    const redis = await this.redis();
    const minId = Math.max(0, Date.now() - this.maxAgeMs);
    const transaction = redis.multi();
    for (const record of records) {
      transaction.xadd(this.key, "MAXLEN", "~", this.maxRecords, "*", "r", JSON.stringify(record));
    }
    const results = await transaction.xtrim(this.key, "MINID", "~", minId).exec();
    const failed = results?.find(([error]) => error);
    if (!results || failed)
      throw new Error(`call log: Redis refused the records (${failed?.[0]?.message ?? "transaction aborted"})`);
  }

  async read(filter: CallLogFilter, limit: number): Promise<ReadResult> {
    const redis = await this.redis();
    const floor = filter.since !== undefined ? String(Math.max(0, Math.floor(filter.since))) : "-";
    const newestFirst: CallRecord[] = [];
    let unreadable = 0;
    let end = "+";
    // Newest first, a page at a time, until enough match or the start (or `since`) is reached.
    while (newestFirst.length < limit) {
      const page = (await redis.xrevrange(this.key, end, floor, "COUNT", PAGE)) as Array<[string, string[]]>;
      for (const [, fields] of page) {
        const record = recordOf(fields);
        if (!record) unreadable++;
        else if (matches(record, filter) && newestFirst.length < limit) newestFirst.push(record);
      }
      if (page.length < PAGE) break;
      end = `(${page[page.length - 1]![0]}`;
    }
    return { records: newestFirst.reverse(), unreadable };
  }

  async follow(filter: CallLogFilter, onRecord: (record: CallRecord) => void, signal: AbortSignal): Promise<void> {
    // A blocking read needs a connection of its own, and a timeout longer than its block.
    const blockMs = 1000;
    const reader = await this.connect({ commandTimeout: this.waitMs + blockMs });
    this.followers.add(reader);
    const stop = () => reader.disconnect();
    signal.addEventListener("abort", stop, { once: true });
    let last = "$";
    try {
      while (!signal.aborted) {
        let reply: Array<[string, Array<[string, string[]]>]> | null;
        try {
          reply = (await reader.xread("BLOCK", blockMs, "STREAMS", this.key, last)) as typeof reply;
        } catch (error) {
          if (signal.aborted) return;
          throw error;
        }
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            last = id;
            const record = recordOf(fields);
            if (record && matches(record, filter)) onRecord(record);
          }
        }
      }
    } finally {
      signal.removeEventListener("abort", stop);
      this.followers.delete(reader);
      reader.disconnect();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const reader of this.followers) reader.disconnect();
    if (client) (await client.catch(() => undefined))?.disconnect();
  }
}

function recordOf(fields: string[]): CallRecord | undefined {
  const at = fields.indexOf("r");
  return at >= 0 && at % 2 === 0 ? parseRecord(fields[at + 1] ?? "") : undefined;
}
