/**
 * The records a cut result left out, kept for a while under a cursor the model passes back
 * (`continue_result`). Held in the server's memory: bounded in entries and bytes, oldest first
 * out, and each for `ttlMs`. A cursor is random and unguessable; it names no account or input.
 */
import { randomBytes } from "node:crypto";

export interface PendingRecords {
  /** The step whose result was cut. */
  tool: string;
  /** Where the records sat in its result (e.g. ["items"], ["result"]). */
  path: string[];
  records: unknown[];
  /** Records returned before these. */
  offset: number;
  total: number;
}

interface Entry extends PendingRecords {
  expires: number;
  bytes: number;
}

export interface CursorStoreOptions {
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  now?: () => number;
}

export class CursorStore {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: CursorStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 64;
    this.maxBytes = options.maxBytes ?? 64 * 2 ** 20;
    this.ttlMs = options.ttlMs ?? 15 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Keeps `pending` and returns its cursor. */
  put(pending: PendingRecords, bytes: number): string {
    this.sweep();
    const cursor = randomBytes(12).toString("base64url");
    this.entries.set(cursor, { ...pending, expires: this.now() + this.ttlMs, bytes });
    this.bytes += bytes;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      if (key === cursor) continue;
      this.drop(key, entry);
    }
    return cursor;
  }

  /** The records under `cursor` (removed: a cursor is used once), or undefined when unknown or expired. */
  take(cursor: string): PendingRecords | undefined {
    this.sweep();
    const entry = this.entries.get(cursor);
    if (!entry) return undefined;
    this.drop(cursor, entry);
    const { expires: _e, bytes: _b, ...pending } = entry;
    return pending;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.drop(key, entry);
  }
}
