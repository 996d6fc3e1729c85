/**
 * Production visibility (issue 23): the call log, a logger for the runtime's events, and the
 * validation proxy's drift checks. See docs/observability.md.
 */
export { CallLog, createCallLog, callLogConfigFromEnv, defaultCallLog, closeDefaultCallLog, CALL_LOG_ENV, CALL_LOG_INPUTS_ENV, CALL_LOG_RETENTION_ENV } from "./call-log.js";
export { parseDuration, parseSince } from "./duration.js";
export type { CallLogConfig } from "./call-log.js";
export { FileCallLog, DEFAULT_FILE_RETENTION } from "./log-file.js";
export type { FileCallLogOptions } from "./log-file.js";
export { RedisCallLog, DEFAULT_REDIS_RETENTION } from "./log-redis.js";
export type { RedisCallLogOptions } from "./log-redis.js";
export { buildRecord, redactValue, parseRecord, isSensitiveKey, MAX_RECORD_BYTES, DEFAULT_INPUT_CAPS } from "./record.js";
export type { CallRecord, CallRecordError, InputCaps, RecordInput } from "./record.js";
export { matches } from "./sink.js";
export type { CallLogFilter, CallLogSink, ReadResult } from "./sink.js";
export { loggerHooks, combineHooks, withLogger, levelOf, messageOf } from "./logger.js";
export type { Logger, LogLevel } from "./logger.js";
