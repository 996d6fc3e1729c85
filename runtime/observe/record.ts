/**
 * One record of the call log: a tool call as an operator (or a SIEM) wants to see it afterwards —
 * when, which step of which service with which connection, what the model asked (redacted), what
 * came of it, how many attempts it took and how long, and the trace it belongs to.
 *
 * Redaction happens here, once, before a record reaches any sink:
 * - every string passes through `redact` with the connection's secret values (errors.ts: raw and
 *   both URL encodings), so a token a model pasted into a comment is not stored;
 * - values under keys that name credentials (`password`, `token`, `apiKey`, `secret`, …) become
 *   `[redacted]`, whatever they hold;
 * - long strings, long lists and deep nesting are cut, and a record stays under `MAX_RECORD_BYTES`
 *   so that one append is one `write(2)` (see log-file.ts) and one Redis stream entry.
 */
import { randomUUID } from "node:crypto";
import { redact } from "../errors.js";

export type CallOutcome = "ok" | string;

export interface CallRecord {
  /** Record format version. */
  v: 1;
  /** Unique per record (a SIEM deduplicates on it). */
  id: string;
  /** When the call started (ISO 8601, UTC). */
  time: string;
  tool: string;
  service: string;
  /** The connection's name (never its fields). */
  connection?: string | undefined;
  /** The model's input, redacted and cut; absent when the log keeps metadata only. */
  input?: unknown;
  /** "ok", or the error kind (`invalid_input`, `rate_limited`, `auth`, …). */
  outcome: CallOutcome;
  error?: CallRecordError | undefined;
  /** HTTP attempts the call made (absent in records of older versions, which did not count a caller-built client's). */
  attempts?: number | undefined;
  durationMs: number;
  /** W3C trace id of the span the call ran in, when tracing is on. */
  traceId?: string | undefined;
  /** The process that made the call (several workers share one log). */
  pid: number;
  host?: string | undefined;
}

export interface CallRecordError {
  kind: string;
  message: string;
  retryable: boolean;
  status?: number | undefined;
  code?: string | undefined;
  requestId?: string | undefined;
  outcomeUnknown?: boolean | undefined;
}

/** Cut points of a record's input. */
export interface InputCaps {
  /** Longest string kept whole (default 1,000 characters). */
  stringChars: number;
  /** Most list items kept (default 50). */
  listItems: number;
  /** Deepest nesting kept (default 8). */
  depth: number;
}

export const DEFAULT_INPUT_CAPS: InputCaps = { stringChars: 1000, listItems: 50, depth: 8 };

/** A record is at most this long as JSON (one line, one write). */
export const MAX_RECORD_BYTES = 32 * 1024;

const REDACTED = "[redacted]";

/**
 * Keys whose values are credentials whatever the service: the same family errors.ts redacts from
 * query strings, plus the spellings bodies use (`client_secret`, `privateKey`, `passphrase`).
 */
const SENSITIVE_KEY = new RegExp(
  `^(${[
    "key|token|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|client[-_]?secret",
    "secret|password|passwd|passphrase|private[-_]?key|signature|authorization|cookie|x[-_]api[-_]key",
  ].join("|")})$`,
  "i",
);

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

/**
 * A JSON value fit for a log: credential-named keys blanked, every string redacted against
 * `secrets`, strings, lists and depth cut. Never throws (a cycle or a non-JSON value becomes text).
 */
export function redactValue(value: unknown, secrets: readonly string[], caps: InputCaps = DEFAULT_INPUT_CAPS): unknown {
  const seen = new Set<object>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") {
      const clean = secrets.length ? redact(v, secrets) : v;
      return clean.length > caps.stringChars
        ? `${clean.slice(0, caps.stringChars)}…[cut ${clean.length - caps.stringChars} chars]`
        : clean;
    }
    if (v === null || typeof v === "number" || typeof v === "boolean") return v;
    if (typeof v !== "object") return v === undefined ? undefined : `[${typeof v}]`;
    if (seen.has(v)) return "[cycle]";
    if (depth >= caps.depth) return "[cut: nested too deep]";
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        const kept = v.slice(0, caps.listItems).map((item) => walk(item, depth + 1));
        if (v.length > caps.listItems) kept.push(`[cut ${v.length - caps.listItems} more items]`);
        return kept;
      }
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(v)) {
        const name = secrets.length ? redact(key, secrets) : key;
        Object.defineProperty(out, name, {
          value: isSensitiveKey(key) && child !== null && child !== undefined ? REDACTED : walk(child, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value, 0);
}

export interface RecordInput {
  tool: string;
  service: string;
  connection?: string | undefined;
  input: unknown;
  startedAt: number;
  durationMs: number;
  outcome: CallOutcome;
  error?: CallRecordError | undefined;
  attempts?: number | undefined;
  traceId?: string | undefined;
}

export interface RecordOptions {
  /** Keep the (redacted) input (default), or metadata only. */
  inputs?: "redacted" | "none" | undefined;
  caps?: InputCaps | undefined;
  host?: string | undefined;
}

/** The record of one call, redacted against `secrets` and no longer than MAX_RECORD_BYTES. */
export function buildRecord(call: RecordInput, secrets: readonly string[], options: RecordOptions = {}): CallRecord {
  const record: CallRecord = {
    v: 1,
    id: randomUUID(),
    time: new Date(call.startedAt).toISOString(),
    tool: call.tool,
    service: call.service,
    ...(call.connection !== undefined ? { connection: call.connection } : {}),
    ...(options.inputs === "none" ? {} : { input: redactValue(call.input, secrets, options.caps) }),
    outcome: call.outcome,
    ...(call.error ? { error: { ...call.error, message: redactValue(call.error.message, secrets) as string } } : {}),
    ...(call.attempts !== undefined ? { attempts: call.attempts } : {}),
    durationMs: Math.round(call.durationMs * 10) / 10,
    ...(call.traceId ? { traceId: call.traceId } : {}),
    pid: process.pid,
    ...(options.host ? { host: options.host } : {}),
  };
  if (Buffer.byteLength(JSON.stringify(record)) <= MAX_RECORD_BYTES) return record;
  // Too big even after the cuts (a wide object of long strings): keep the metadata, say why.
  record.input = `[cut: the input was over ${MAX_RECORD_BYTES} bytes as JSON]`;
  if (record.error) record.error.message = record.error.message.slice(0, 2000);
  return record;
}

/** A record read back from a sink: parsed, and shaped like a record, or undefined (a torn line). */
export function parseRecord(text: string): CallRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = value as Partial<CallRecord> | null;
  if (
    !r ||
    typeof r !== "object" ||
    r.v !== 1 ||
    typeof r.id !== "string" ||
    typeof r.time !== "string" ||
    typeof r.tool !== "string"
  )
    return undefined;
  return r as CallRecord;
}
