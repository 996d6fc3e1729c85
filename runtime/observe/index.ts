/**
 * Production visibility (issue 23): traces and metrics (OpenTelemetry), response validation, the
 * call log, a logger for the runtime's events, and the
 * validation proxy's drift checks. See docs/observability.md.
 *
 * Importing this entry (`stepforge/runtime/observe`) also gives every client the observability
 * layer (runtime/client/layers.ts): `tracing`, `metrics`, `validate` and their environment
 * variables work only then, so that a client bundle without this import carries none of it.
 */
import { useObserveLayer } from "../client/layers.js";
import { observeLayer } from "./layer.js";

useObserveLayer(observeLayer);

export {
  CallLog,
  createCallLog,
  callLogConfigFromEnv,
  defaultCallLog,
  closeDefaultCallLog,
  CALL_LOG_ENV,
  CALL_LOG_INPUTS_ENV,
  CALL_LOG_RETENTION_ENV,
  type CallLogConfig,
} from "./call-log.js";
export { parseDuration, parseSince } from "./duration.js";
export { FileCallLog, DEFAULT_FILE_RETENTION, type FileCallLogOptions } from "./log-file.js";
export { RedisCallLog, DEFAULT_REDIS_RETENTION, type RedisCallLogOptions } from "./log-redis.js";
export {
  buildRecord,
  redactValue,
  parseRecord,
  isSensitiveKey,
  MAX_RECORD_BYTES,
  DEFAULT_INPUT_CAPS,
  type CallRecord,
  type CallRecordError,
  type InputCaps,
  type RecordInput,
} from "./record.js";
export { matches, type CallLogFilter, type CallLogSink, type ReadResult } from "./sink.js";
export { loggerHooks, combineHooks, withLogger, levelOf, messageOf, type Logger, type LogLevel } from "./logger.js";
export {
  ConformanceChecker,
  conformanceFromMock,
  declaredFor,
  jsonType,
  valueAt,
  type AnswerSeen,
  type ConformanceDefinition,
  type ConformanceOperation,
  type DeclaredResponse,
  type Difference,
  type DifferenceKind,
  type RequestSeen,
} from "./conformance.js";
export {
  DriftReport,
  driftMarkdown,
  normalisePointer,
  type DriftEntry,
  type DriftReportJson,
  type OperationDrift,
} from "./drift-report.js";
export {
  HarRecorder,
  readHar,
  responseBytes,
  type Har,
  type HarEntry,
  type HarNameValue,
  type Exchange,
} from "./har.js";
export { Redactor } from "./secrets.js";
export { startValidationProxy, type ProxyOptions, type RunningProxy } from "./proxy.js";
export { closeSchema, closeComponents } from "./closed.js";
export {
  TracingObserver,
  TRACING_ENV,
  contextFromTraceparent,
  hashConnection,
  otelApi,
  withTraceparent,
} from "./otel.js";
export type { MeterLike, MetricsOption, MetricsOptions, TracerLike, TracingOption, TracingOptions } from "./options.js";
export { MetricsObserver, METRICS_ENV, metricsObserver } from "./metrics.js";
export {
  ResponseDriftError,
  RESPONSE_DRIFT,
  MAX_DRIFT_EVENTS,
  validateModeOf,
  type DriftFound,
  type ValidateMode,
  type ValidateOption,
  type ValidateOptions,
} from "./response-check.js";
export { observeLayer } from "./layer.js";
