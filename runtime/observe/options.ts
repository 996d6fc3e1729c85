/**
 * The tracing and metrics options a client takes, typed without `@opentelemetry/api`: that package
 * is an optional peer, and a client's declarations that named its types failed every consumer's
 * compile without it (skipLibCheck off). A real Tracer or Meter fits these shapes; otel.ts and
 * metrics.ts read them as the API's types.
 */

/** What stepforge calls on a tracer: an OpenTelemetry `Tracer` fits. */
export interface TracerLike {
  startSpan(name: string, ...rest: never[]): unknown;
}

/** What stepforge calls on a meter: an OpenTelemetry `Meter` fits. */
export interface MeterLike {
  createHistogram(name: string, ...rest: never[]): unknown;
  createCounter(name: string, ...rest: never[]): unknown;
}

export interface TracingOptions {
  /** The tracer to start spans with (default: the global provider's tracer named "stepforge"). */
  tracer?: TracerLike | undefined;
}

/** `true`, or the tracer to use; `false` turns it off even when STEPFORGE_TRACING is set. */
export type TracingOption = boolean | TracingOptions;

export interface MetricsOptions {
  /** The meter to record with (default: the global provider's meter named "stepforge"). */
  meter?: MeterLike | undefined;
}

/** `true`, or the meter to use; `false` turns it off even when STEPFORGE_METRICS is set. */
export type MetricsOption = boolean | MetricsOptions;

/** Turns tracing on for every client whose options do not say otherwise (`stepforge mcp`, `call`). */
export const TRACING_ENV = "STEPFORGE_TRACING";
/** Turns metrics on likewise. */
export const METRICS_ENV = "STEPFORGE_METRICS";

/** Whether `option` (or, when absent, the environment variable) turns tracing or metrics on. */
export function tracingWanted(option: boolean | object | undefined, variable = TRACING_ENV): boolean {
  if (option !== undefined) return option !== false;
  const env = process.env[variable];
  return env !== undefined && env !== "" && env !== "0" && env.toLowerCase() !== "false";
}
