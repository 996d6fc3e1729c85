/**
 * The call log as JSON lines in a file, shared by every process on the machine that names it.
 *
 * Appends: records are whole lines written by one `write(2)` (several records that were waiting
 * together share one, up to 1 MiB) on a descriptor opened with O_APPEND (mode 0600, folder 0700).
 * The kernel places each such write at the end of the file as a whole, so records of several
 * processes never interleave; a record is at most MAX_RECORD_BYTES. The file is opened per write,
 * so a writer always appends to the file that is current, even right after another process
 * rotated it.
 *
 * Retention: when the file passes `maxBytes` (default 10 MiB), the process that notices renames it
 * to `<file>.<n>` (n counting up) under the file lock the state layer uses (state/file-lock.ts),
 * after checking again that nobody rotated it meanwhile. Then it removes the oldest segments
 * beyond `maxFiles` (default 10) and any segment last written more than `maxAgeMs` ago (default
 * 30 days). So the log holds at most about maxBytes × (maxFiles + 1) and nothing much older than
 * maxAgeMs.
 *
 * Reading takes the segments oldest first; a line that is not a record (a write cut by a crash) is
 * counted and skipped. Following polls the current file every `pollMs` and moves to the new file
 * when a rotation replaced it, after reading what the old one still held.
 */
import { mkdirSync } from "node:fs";
import { open, readdir, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { withFileLock } from "../state/file-lock.js";
import { type CallRecord, parseRecord } from "./record.js";
import { type CallLogFilter, type CallLogSink, matches, type ReadResult } from "./sink.js";

export interface FileCallLogOptions {
  /** Rotate the file once it is larger than this (default 10 MiB). */
  maxBytes?: number | undefined;
  /** Rotated segments kept (default 10). */
  maxFiles?: number | undefined;
  /** Segments last written longer ago than this are removed at the next rotation (default 30 days). */
  maxAgeMs?: number | undefined;
  /** How often `follow` looks for new lines (default 250 ms). */
  pollMs?: number | undefined;
}

/** Largest single write: well under what a local file system writes in one go. */
const WRITE_CHUNK = 1024 * 1024;

export const DEFAULT_FILE_RETENTION = { maxBytes: 10 * 1024 * 1024, maxFiles: 10, maxAgeMs: 30 * 24 * 3600 * 1000 };

export class FileCallLog implements CallLogSink {
  readonly kind = "file" as const;
  readonly where: string;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly maxAgeMs: number;
  private readonly pollMs: number;
  private folderReady = false;
  /**
   * A rotation this process has under way: appends that also see the file too large wait for it
   * instead of queuing another.
   */
  private rotating: Promise<void> | undefined;

  constructor(
    readonly path: string,
    options: FileCallLogOptions = {},
  ) {
    this.where = path;
    this.maxBytes = positive(options.maxBytes, DEFAULT_FILE_RETENTION.maxBytes, "maxBytes");
    this.maxFiles = positive(options.maxFiles, DEFAULT_FILE_RETENTION.maxFiles, "maxFiles");
    this.maxAgeMs = positive(options.maxAgeMs, DEFAULT_FILE_RETENTION.maxAgeMs, "maxAgeMs");
    this.pollMs = positive(options.pollMs, 250, "pollMs");
  }

  append(record: CallRecord): Promise<void> {
    return this.appendBatch([record]);
  }

  /** Whole lines, one `write(2)` per chunk of at most WRITE_CHUNK bytes. */
  async appendBatch(records: readonly CallRecord[]): Promise<void> {
    if (!this.folderReady) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.folderReady = true;
    }
    const chunks: Buffer[] = [];
    let lines: string[] = [];
    let bytes = 0;
    for (const record of records) {
      const line = `${JSON.stringify(record)}\n`;
      if (bytes + line.length > WRITE_CHUNK && lines.length) {
        chunks.push(Buffer.from(lines.join("")));
        lines = [];
        bytes = 0;
      }
      lines.push(line);
      bytes += line.length;
    }
    if (lines.length) chunks.push(Buffer.from(lines.join("")));
    const file = await open(this.path, "a", 0o600);
    let size: number;
    try {
      for (const chunk of chunks) {
        const { bytesWritten } = await file.write(chunk, 0, chunk.length);
        // A regular file takes the whole buffer or fails (disk full); a short count is that failure.
        if (bytesWritten !== chunk.length)
          throw new Error(`only ${bytesWritten} of ${chunk.length} bytes of call records were written to ${this.path}`);
      }
      size = (await file.stat()).size;
    } finally {
      await file.close();
    }
    if (size > this.maxBytes) await (this.rotating ??= this.rotate().finally(() => (this.rotating = undefined)));
  }

  /** The rotated segments, oldest first. */
  async segments(): Promise<string[]> {
    return (await this.numbered()).map((s) => s.file);
  }

  private async numbered(): Promise<Array<{ file: string; n: number }>> {
    const prefix = `${basename(this.path)}.`;
    let names: string[];
    try {
      names = await readdir(dirname(this.path));
    } catch {
      return [];
    }
    return names
      .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
      .map((name) => ({ file: join(dirname(this.path), name), n: Number(name.slice(prefix.length)) }))
      .sort((a, b) => a.n - b.n);
  }

  private async rotate(): Promise<void> {
    await withFileLock(`${this.path}.rotate`, async () => {
      const now = await stat(this.path).catch(() => undefined);
      // Another process rotated it between our write and the lock.
      if (!now || now.size <= this.maxBytes) return;
      const existing = await this.numbered();
      const next = join(dirname(this.path), `${basename(this.path)}.${(existing[existing.length - 1]?.n ?? 0) + 1}`);
      await rename(this.path, next);
      await this.prune([...existing.map((s) => s.file), next]);
    });
  }

  private async prune(segments: string[]): Promise<void> {
    const excess = Math.max(0, segments.length - this.maxFiles);
    const cutoff = Date.now() - this.maxAgeMs;
    for (const [i, file] of segments.entries()) {
      const old = i < excess || ((await stat(file).catch(() => undefined))?.mtimeMs ?? Infinity) < cutoff;
      if (old) await rm(file, { force: true });
    }
  }

  async read(filter: CallLogFilter, limit: number): Promise<ReadResult> {
    const files = [...(await this.segments()), this.path];
    const picked: CallRecord[][] = [];
    let found = 0;
    let unreadable = 0;
    // Newest file first, so a small limit reads one file.
    for (const file of files.reverse()) {
      if (found >= limit) break;
      const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      });
      const parsed = parseLines(text, filter, false);
      unreadable += parsed.unreadable;
      picked.unshift(parsed.records);
      found += parsed.records.length;
    }
    const all = picked.flat();
    return { records: all.slice(Math.max(0, all.length - limit)), unreadable };
  }

  async follow(filter: CallLogFilter, onRecord: (record: CallRecord) => void, signal: AbortSignal): Promise<void> {
    let handle: FileHandle | undefined;
    let inode = -1;
    let position = 0;
    let carry = "";
    const drain = async () => {
      if (!handle) return;
      for (;;) {
        const { bytesRead, buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, position);
        if (bytesRead === 0) return;
        position += bytesRead;
        const text = carry + buffer.subarray(0, bytesRead).toString("utf8");
        const cut = text.lastIndexOf("\n");
        carry = cut < 0 ? text : text.slice(cut + 1);
        if (cut >= 0) for (const record of parseLines(text.slice(0, cut + 1), filter, true).records) onRecord(record);
      }
    };
    // Opens `file` in place of the current one; false when it cannot (renamed away or not created
    // yet, between a rotation's rename and the next write): the current file and its inode stay,
    // so the next look still finds its successor instead of skipping to the newest file.
    const switchTo = async (file: string): Promise<boolean> => {
      const opened = await open(file, "r").catch(() => undefined);
      if (!opened) return false;
      await handle?.close();
      handle = opened;
      inode = (await opened.stat()).ino;
      position = 0;
      carry = "";
      return true;
    };
    // Start at the end: following shows what is logged from now on (read() shows the past).
    handle = await open(this.path, "r").catch(() => undefined);
    if (handle) {
      const first = await handle.stat();
      inode = first.ino;
      position = first.size;
    }
    try {
      while (!signal.aborted) {
        await drain();
        const active = await stat(this.path).catch(() => undefined);
        if (active && active.ino === inode) {
          await pause(this.pollMs, signal);
          continue;
        }
        if (!active && !handle) {
          await pause(this.pollMs, signal);
          continue;
        }
        // The file we read was rotated: go on with its successor, the next numbered segment, or the
        // active file when ours is the newest segment (several rotations may have happened since
        // the last look, and another may happen while we look: hence the second look below).
        const withInodes = async () =>
          Promise.all(
            (await this.numbered()).map(async (s) => ({ ...s, ino: (await stat(s.file).catch(() => undefined))?.ino })),
          );
        const successorIn = (segments: Array<{ file: string; ino: number | undefined }>, of: number) => {
          const at = segments.findIndex((s) => s.ino === of);
          return at >= 0 && at + 1 < segments.length ? segments[at + 1]! : undefined;
        };
        const was = inode;
        const segment = successorIn(await withInodes(), was);
        let switched: boolean;
        if (segment) switched = await switchTo(segment.file);
        else {
          switched = await switchTo(this.path);
          // Rotated between the listing and the open: the file opened may be past our successor.
          const late = switched ? successorIn(await withInodes(), was) : undefined;
          if (late && late.ino !== inode) switched = await switchTo(late.file);
        }
        if (!switched) await pause(this.pollMs, signal);
      }
    } finally {
      await handle?.close();
    }
  }

  async close(): Promise<void> {}
}

function parseLines(
  text: string,
  filter: CallLogFilter,
  complete: boolean,
): { records: CallRecord[]; unreadable: number } {
  const lines = text.split("\n");
  // The last piece has no newline: a record still being written (or an empty string).
  if (!complete) lines.pop();
  const records: CallRecord[] = [];
  let unreadable = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    const record = parseRecord(line);
    if (!record) unreadable++;
    else if (matches(record, filter)) records.push(record);
  }
  return { records, unreadable };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0))
    throw new Error(`call log: ${name} must be a number above 0, got ${value}`);
  return value;
}
