/**
 * The call log: every tool call recorded (see record.ts for what a record holds) to a JSONL file
 * or to a Redis stream, and read back by `stepforge log`.
 *
 * Choosing it, as the state layer is chosen:
 * - in code: `createCallLog({ file })`, `createCallLog({ redisUrl })`, passed as a tool context's
 *   `callLog` (or `false` to keep a call out of the log);
 * - from the environment, for every tool call of the process that names no log of its own (the CLI's
 *   `call` and `mcp` included): `STEPFORGE_CALL_LOG=/var/log/stepforge/calls.jsonl` (a file), or
 *   `STEPFORGE_CALL_LOG=state` (a Redis stream when `STEPFORGE_REDIS_URL` is set, else
 *   `calls.jsonl` in `STEPFORGE_STATE_DIR`). `STEPFORGE_CALL_LOG_INPUTS=none` keeps metadata only.
 *
 * Writing never slows or fails a call: `record` returns at once, the write goes on in the
 * background (records that pile up while a write is under way go out together in the next one),
 * and a failed write is counted (`dropped`) and told to the logger. A process does not exit before
 * its records are written (or given up after the sink's bounded wait): the write itself (a file
 * operation, a Redis command with its timeout) keeps it alive, as the spawned `stepforge call`
 * test shows. `flush()` waits for them.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import { REDIS_URL_ENV, STATE_DIR_ENV } from "../state/config.js";
import { FileCallLog, type FileCallLogOptions } from "./log-file.js";
import { RedisCallLog, type RedisCallLogOptions } from "./log-redis.js";
import type { Logger } from "./logger.js";
import { buildRecord, type CallRecord, type InputCaps, type RecordInput } from "./record.js";
import type { CallLogSink } from "./sink.js";
import { parseDuration } from "./duration.js";

export const CALL_LOG_ENV = "STEPFORGE_CALL_LOG";
export const CALL_LOG_INPUTS_ENV = "STEPFORGE_CALL_LOG_INPUTS";
/** Retention from the environment: file size and segments, Redis records, and age for both. */
export const CALL_LOG_RETENTION_ENV = {
  maxBytes: "STEPFORGE_CALL_LOG_MAX_BYTES",
  maxFiles: "STEPFORGE_CALL_LOG_MAX_FILES",
  maxRecords: "STEPFORGE_CALL_LOG_MAX_RECORDS",
  maxAge: "STEPFORGE_CALL_LOG_MAX_AGE",
} as const;

export interface CallLogConfig {
  /** A JSONL file shared by the processes of this machine. */
  file?: string | undefined;
  /** A Redis stream shared by every process that reaches this Redis. */
  redisUrl?: string | undefined;
  /** A sink built by the caller (wins). */
  sink?: CallLogSink | undefined;
  /** Keep the redacted input (default) or metadata only. */
  inputs?: "redacted" | "none" | undefined;
  caps?: InputCaps | undefined;
  /** Told when a record could not be written. */
  logger?: Logger | undefined;
  fileOptions?: FileCallLogOptions | undefined;
  redisOptions?: RedisCallLogOptions | undefined;
}

/** Most records in one write. */
const BATCH = 500;

export class CallLog {
  readonly sink: CallLogSink;
  /** Records that could not be written. */
  dropped = 0;
  /** Records waiting for the sink, oldest first. */
  private readonly queue: CallRecord[] = [];
  private draining: Promise<void> | undefined;
  private readonly host = hostname();

  constructor(private readonly config: CallLogConfig & { sink: CallLogSink }) {
    this.sink = config.sink;
  }

  /** Builds the record of one call (redacted against `secrets`) and writes it in the background. */
  record(call: RecordInput, secrets: readonly string[]): CallRecord {
    const record = buildRecord(call, secrets, { inputs: this.config.inputs, caps: this.config.caps, host: this.host });
    this.queue.push(record);
    this.draining ??= this.drain();
    return record;
  }

  /**
   * Writes what is queued, a batch at a time, until nothing is left. Records of calls that end
   * while a write is under way go out together in the next one (one write, one round trip).
   */
  private async drain(): Promise<void> {
    // Let the call that queued the first record return before anything is written.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.sink.appendBatch(batch);
      } catch (error) {
        this.dropped += batch.length;
        try {
          const what = `${batch.length} record${batch.length === 1 ? " was" : "s were"} not written`;
          const tools = [...new Set(batch.map((r) => r.tool))];
          const fields = { event: "call_log_dropped", records: batch.length, tools, where: this.sink.where };
          this.config.logger?.warn(fields, `call log: ${what} (${(error as Error).message})`);
        } catch {
          // A logger must not break a call.
        }
      }
    }
    this.draining = undefined;
  }

  /** Resolves once every record handed over so far is written (or dropped). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.sink.close();
  }
}

export function createCallLog(config: CallLogConfig): CallLog {
  if (config.sink) return new CallLog({ ...config, sink: config.sink });
  if (config.redisUrl) return new CallLog({ ...config, sink: new RedisCallLog(config.redisUrl, config.redisOptions) });
  if (config.file) return new CallLog({ ...config, sink: new FileCallLog(config.file, config.fileOptions) });
  throw new Error("call log: give a file or a redisUrl (or a sink)");
}

/**
 * What the environment asks for: undefined when STEPFORGE_CALL_LOG is unset. An unusable value is
 * an error naming the variable and the fix.
 */
export function callLogConfigFromEnv(env: NodeJS.ProcessEnv = process.env): CallLogConfig | undefined {
  const value = env[CALL_LOG_ENV]?.trim();
  if (!value || value === "off") return undefined;
  const inputs = env[CALL_LOG_INPUTS_ENV]?.trim();
  if (inputs && inputs !== "none" && inputs !== "redacted") {
    const fix = `set it to "none" (metadata only) or "redacted" (the default)`;
    throw new Error(`${CALL_LOG_INPUTS_ENV}="${inputs}" is not understood; ${fix}`);
  }
  const maxAgeMs = envNumber(env, CALL_LOG_RETENTION_ENV.maxAge, parseDuration, "a duration such as 30d or 12h");
  const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : undefined);
  const base: CallLogConfig = {
    ...(inputs ? { inputs: inputs as "none" | "redacted" } : {}),
    fileOptions: {
      maxBytes: envNumber(env, CALL_LOG_RETENTION_ENV.maxBytes, whole, "a whole number of bytes"),
      maxFiles: envNumber(env, CALL_LOG_RETENTION_ENV.maxFiles, whole, "a whole number of files"),
      maxAgeMs,
    },
    redisOptions: {
      maxRecords: envNumber(env, CALL_LOG_RETENTION_ENV.maxRecords, whole, "a whole number of records"),
      maxAgeMs,
    },
  };
  if (value === "state") {
    const url = env[REDIS_URL_ENV]?.trim();
    if (url) return { ...base, redisUrl: url };
    const dir = env[STATE_DIR_ENV]?.trim();
    if (dir) return { ...base, file: join(dir, "calls.jsonl") };
    const neither = `neither ${REDIS_URL_ENV} nor ${STATE_DIR_ENV} is set`;
    throw new Error(`${CALL_LOG_ENV}=state logs to the shared state, but ${neither}; set one, or give a file path`);
  }
  if (/^rediss?:\/\//.test(value)) return { ...base, redisUrl: value };
  return { ...base, file: value };
}

function envNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  parse: (text: string) => number | undefined,
  what: string,
): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const n = parse(text);
  if (n === undefined || !(n > 0)) throw new Error(`${name}="${text}" must be ${what}, above 0`);
  return n;
}

let processLog: { key: string; log: CallLog | undefined } | undefined;

/**
 * The process-wide log tool calls use when their context names none: the one the environment
 * asks for (read on first use and again whenever STEPFORGE_CALL_LOG changes), or none.
 */
export function defaultCallLog(env: NodeJS.ProcessEnv = process.env): CallLog | undefined {
  const names = [
    CALL_LOG_ENV,
    CALL_LOG_INPUTS_ENV,
    ...Object.values(CALL_LOG_RETENTION_ENV),
    REDIS_URL_ENV,
    STATE_DIR_ENV,
  ];
  const key = names.map((name) => env[name] ?? "").join("\n");
  if (processLog?.key === key) return processLog.log;
  const previous = processLog?.log;
  if (previous) void previous.close().catch(() => undefined);
  const config = callLogConfigFromEnv(env);
  processLog = { key, log: config ? createCallLog(config) : undefined };
  return processLog.log;
}

/** Writes what is pending and closes the process-wide log (a Redis connection), if one was opened. */
export async function closeDefaultCallLog(): Promise<void> {
  const log = processLog?.log;
  processLog = undefined;
  await log?.close();
}
