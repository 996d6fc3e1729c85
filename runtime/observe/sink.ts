/**
 * Where call records go and how they are read back: the interface both sinks (a JSONL file,
 * log-file.ts; a Redis stream, log-redis.ts) implement, and the filters `stepforge log` applies.
 */
import type { CallRecord } from "./record.js";

export interface CallLogFilter {
  tool?: string | undefined;
  service?: string | undefined;
  connection?: string | undefined;
  /** "ok", "error" (any failure) or one error kind (`rate_limited`). */
  outcome?: string | undefined;
  /** Only calls that started at or after this time (ms since the epoch). */
  since?: number | undefined;
}

export interface ReadResult {
  /** Oldest first. */
  records: CallRecord[];
  /** Lines or entries that were not a record (torn or foreign); reported, never fatal. */
  unreadable: number;
}

export interface CallLogSink {
  readonly kind: "file" | "redis";
  /** Where the records are, for messages (a path, or a Redis address without its password). */
  readonly where: string;
  /** Stores one record; resolves once it is stored. */
  append(record: CallRecord): Promise<void>;
  /**
   * Stores several records at once (those that arrived while the previous write was under way),
   * each still whole; resolves once all are stored, rejects when none was.
   */
  appendBatch(records: readonly CallRecord[]): Promise<void>;
  /** The newest `limit` records that match, oldest first. */
  read(filter: CallLogFilter, limit: number): Promise<ReadResult>;
  /** Calls `onRecord` for each matching record stored from now on, until `signal` aborts. */
  follow(filter: CallLogFilter, onRecord: (record: CallRecord) => void, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export function matches(record: CallRecord, filter: CallLogFilter): boolean {
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.service !== undefined && record.service !== filter.service) return false;
  if (filter.connection !== undefined && record.connection !== filter.connection) return false;
  if (filter.outcome !== undefined) {
    if (filter.outcome === "error" ? record.outcome === "ok" : record.outcome !== filter.outcome) return false;
  }
  if (filter.since !== undefined && Date.parse(record.time) < filter.since) return false;
  return true;
}
