/**
 * `stepforge log [--file FILE | --redis URL] [--tool T] [--service S] [--connection C]
 *                [--outcome ok|error|KIND] [--since 15m|ISO] [--limit N] [--follow] [--json]`
 *
 * Prints the newest tool-call records of the call log (oldest first), one line each, or as JSON
 * lines with --json; --follow then keeps printing new ones until Ctrl-C. The log is the one the
 * options name, else the one STEPFORGE_CALL_LOG names (the same variable the calls were logged
 * with). Exit 0; 1 when the log cannot be read; 2 on a usage error.
 */
import { ERROR_KINDS } from "../../runtime/descriptor.js";
import { type CallLogConfig, callLogConfigFromEnv, createCallLog } from "../../runtime/observe/call-log.js";
import { parseSince } from "../../runtime/observe/duration.js";
import type { CallRecord } from "../../runtime/observe/record.js";
import type { CallLogFilter } from "../../runtime/observe/sink.js";
import { TOOL_ONLY_ERROR_KINDS } from "../../runtime/tools/types.js";
import { UsageError } from "../usage.js";
import { flagsOf, switchFlags, valueFlags } from "../flags.js";
import type { ServingCommand } from "../command.js";

/** What --outcome accepts: ok, error, or one error kind (the tool step's own, then the service's). */
const OUTCOMES: readonly string[] = ["ok", "error", ...TOOL_ONLY_ERROR_KINDS, ...ERROR_KINDS];

/** One record as a line: time, outcome, tool, connection, attempts, duration, then what went wrong. */
export function formatRecord(r: CallRecord): string {
  const attempts = r.attempts === undefined ? "" : `${r.attempts} attempt${r.attempts === 1 ? "" : "s"}`;
  const parts = [r.time, r.outcome.padEnd(13), r.tool, r.connection ?? "-", attempts, `${r.durationMs} ms`];
  if (r.traceId) parts.push(`trace ${r.traceId}`);
  if (r.error) {
    const codes = [r.error.status, r.error.code].filter((x) => x !== undefined).join(" ");
    parts.push(`${codes}${codes ? ": " : ""}${r.error.message.replace(/\s+/g, " ").slice(0, 200)}`);
  }
  return parts.filter(Boolean).join("  ");
}

function configOf(values: { file?: string | undefined; redis?: string | undefined }): CallLogConfig {
  if (values.file !== undefined && values.redis !== undefined) throw new UsageError("give --file or --redis, not both");
  if (values.file !== undefined) return { file: values.file };
  if (values.redis !== undefined) {
    if (!/^rediss?:\/\/[^/]/.test(values.redis))
      throw new UsageError("--redis must look like redis://host:6379 (or rediss:// for TLS)");
    return { redisUrl: values.redis };
  }
  let config: CallLogConfig | undefined;
  try {
    config = callLogConfigFromEnv();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!config)
    throw new UsageError(
      "which log? give --file FILE or --redis URL, or set STEPFORGE_CALL_LOG as the calls were logged with",
    );
  return config;
}

/** `until` is for tests: stop following without a signal. */
export const logCommand: ServingCommand = async (argv, out, err, until) => {
  const { values } = flagsOf(argv, {
    ...valueFlags("file", "redis", "tool", "service", "connection", "outcome", "since", "limit"),
    ...switchFlags("json"),
    follow: { type: "boolean", short: "f", default: false },
  });
  const filter: CallLogFilter = {
    tool: values.tool,
    service: values.service,
    connection: values.connection,
    outcome: values.outcome,
  };
  if (values.outcome !== undefined && !OUTCOMES.includes(values.outcome))
    throw new UsageError(
      `--outcome must be ok, error or an error kind (${OUTCOMES.slice(2).join(", ")}), got "${values.outcome}"`,
    );
  if (values.since !== undefined) {
    filter.since = parseSince(values.since);
    if (filter.since === undefined) {
      const forms = "a duration back from now (90s, 15m, 2h, 7d) or an ISO time (2026-11-27T09:00:00Z)";
      throw new UsageError(`--since takes ${forms}, got "${values.since}"`);
    }
  }
  const limit = values.limit === undefined ? (values.follow ? 10 : 100) : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0)
    throw new UsageError(`--limit must be a whole number of records, got "${values.limit}"`);
  const log = createCallLog(configOf(values));
  const print = (record: CallRecord) => out.write(`${values.json ? JSON.stringify(record) : formatRecord(record)}\n`);
  try {
    let past;
    try {
      past = await log.sink.read(filter, limit);
    } catch (error) {
      err.write(`stepforge log: cannot read ${log.sink.where}: ${(error as Error).message}\n`);
      return 1;
    }
    for (const record of past.records) print(record);
    if (past.unreadable) {
      const lines = `${past.unreadable} line${past.unreadable === 1 ? " was" : "s were"}`;
      err.write(`stepforge log: ${lines} not a call record (cut by a crash?) and left out\n`);
    }
    if (!values.follow) return 0;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    void until?.then(onSignal);
    try {
      await log.sink.follow(filter, print, stop.signal);
    } catch (error) {
      err.write(`stepforge log: stopped following ${log.sink.where}: ${(error as Error).message}\n`);
      return 1;
    } finally {
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    }
    return 0;
  } finally {
    await log.close();
  }
};
