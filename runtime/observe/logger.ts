/**
 * A pino-style logger for the runtime's events. Any object with `debug`, `info`, `warn` and `error`
 * methods taking `(fields, message)` fits: pino, a bunyan child, or a four-line adapter over the
 * console. Nothing is printed unless a logger is given.
 *
 * The events come from runtime/hooks.ts and are already redacted (URLs through `redactUrl`, no
 * header, body or token value), so they are logged as they are. A logger that throws never breaks
 * a call: `emit` catches it.
 */
import type { Hooks, RuntimeEvent } from "../hooks.js";

type LogMethod = (fields: Record<string, unknown>, message: string) => void;

export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

export type LogLevel = keyof Logger;

/** The level an event is logged at: the routine at debug, what an operator should notice above it. */
export function levelOf(event: RuntimeEvent): LogLevel {
  switch (event.type) {
    case "request":
      return "debug";
    case "response":
      // A failed answer is worth a line; a retry (logged on its own) may still save the call.
      return event.ok ? "debug" : "info";
    case "retry":
    case "throttle":
      return "info";
    case "token":
      return event.action === "failed" ? "error" : "info";
    case "drift":
      return "warn";
  }
}

/** One line of text per event, short enough for a terminal. */
export function messageOf(event: RuntimeEvent): string {
  const where = `${event.service}${event.operation ? ` ${event.operation}` : ""}`;
  switch (event.type) {
    case "request":
      return `${where}: ${event.method} ${event.url}${event.attempt ? ` (attempt ${event.attempt + 1})` : ""}`;
    case "response":
      return `${where}: ${event.status}${event.code ? ` ${event.code}` : ""} in ${Math.round(event.durationMs)} ms`;
    case "retry":
      return `${where}: retrying after ${Math.round(event.delayMs)} ms (${event.reason})`;
    case "throttle": {
      const wait = Number.isFinite(event.waitMs) ? ` (~${Math.round(event.waitMs)} ms)` : "";
      return `${where}: waiting for limit ${event.limit}${wait}`;
    }
    case "token":
      return `${where}: token ${event.action}`;
    case "drift":
      return `${where}: answer differs from the spec at ${event.pointer}: expected ${event.expected}${
        event.got ? `, got ${event.got}` : ""
      }`;
  }
}

/**
 * Hooks that log every event through `logger` (fields: the event itself, under the logger's own
 * conventions for objects). Events below `level` are skipped before any text is built.
 */
export function loggerHooks(logger: Logger, options: { level?: LogLevel | undefined } = {}): Hooks {
  const order: LogLevel[] = ["debug", "info", "warn", "error"];
  const floor = order.indexOf(options.level ?? "debug");
  return {
    onEvent(event) {
      const level = levelOf(event);
      if (order.indexOf(level) < floor) return;
      logger[level]({ ...event, event: event.type }, messageOf(event));
    },
  };
}

/**
 * Several hook sets as one: every set sees every event, in order. A throwing hook skips only the
 * rest of its own set (the others still run), so adding a logger never silences a caller's hooks.
 */
export function combineHooks(...sets: Array<Hooks | undefined>): Hooks | undefined {
  const live = sets.filter((h): h is Hooks => h !== undefined);
  if (live.length <= 1) return live[0];
  const each = <K extends keyof Hooks>(name: K): NonNullable<Hooks[K]> =>
    ((event: unknown) => {
      for (const hooks of live) {
        try {
          (hooks[name] as ((e: unknown) => void) | undefined)?.(event);
        } catch {
          // Observability must not change behaviour (see runtime/hooks.ts `emit`).
        }
      }
    }) as NonNullable<Hooks[K]>;
  return {
    onRequest: each("onRequest"),
    onResponse: each("onResponse"),
    onRetry: each("onRetry"),
    onThrottle: each("onThrottle"),
    onToken: each("onToken"),
    onDrift: each("onDrift"),
    onEvent: each("onEvent"),
  };
}

/** Client options with `logger` turned into hooks beside the options' own (`createServiceClient(withLogger(…))`). */
export function withLogger<T extends { hooks?: Hooks | undefined }>(
  options: T,
  logger: Logger | undefined,
  level?: LogLevel,
): T {
  if (!logger) return options;
  return { ...options, hooks: combineHooks(options.hooks, loggerHooks(logger, { level })) };
}
