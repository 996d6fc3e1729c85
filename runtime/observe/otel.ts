/**
 * OpenTelemetry traces from the pipeline's observer events (runtime/hooks.ts), nothing else: a span
 * per operation call, a child span per HTTP attempt (HTTP client semantic conventions), limiter
 * waits, retries, token renewals and response drift as span events. A tool call gets its own span
 * around its operation call (tool-calls.ts), with `gen_ai.tool.name`.
 *
 * `@opentelemetry/api` is an optional peer. It is loaded only when tracing is turned on, and
 * synchronously (createRequire), because `call_start` is emitted inside `client.call(…)` and the
 * span must be started there to see the caller's active context. The API keeps its registrations
 * (tracer provider, context manager) on a global symbol, so the copy loaded here sees what the
 * application registered through `import`. Without the package, tracing is a no-op.
 *
 * Nothing secret reaches a span: events carry no header, body or credential; the connection name
 * is hashed; URLs appear only as the operation's path template.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";
import type { Observer, PipelineEvent } from "../hooks.js";
import { TRACING_ENV, type TracingOption, tracingWanted } from "./options.js";

type Api = typeof OtelApi;

export type { TracingOption, TracingOptions } from "./options.js";

export { TRACING_ENV, tracingWanted };

let loaded: Api | null | undefined;

/** The OpenTelemetry API, or undefined when it is not installed (loaded once, on first use). */
export function otelApi(): Api | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)("@opentelemetry/api") as Api;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** The tracer `option` names, or none when tracing is off or the API is absent. */
export function tracerFor(option: TracingOption | undefined): { api: Api; tracer: OtelApi.Tracer } | undefined {
  if (!tracingWanted(option)) return undefined;
  const api = otelApi();
  if (!api) return undefined;
  const own = typeof option === "object" ? (option.tracer as OtelApi.Tracer | undefined) : undefined;
  return { api, tracer: own ?? api.trace.getTracer("stepforge") };
}

/** `observers` with a tracing observer (and a metrics one, `also`) added when asked for. */
export function withTracing(
  observers: readonly Observer[] | undefined,
  tracing: TracingOption | undefined,
  also?: Observer | undefined,
): readonly Observer[] | undefined {
  const found = tracerFor(tracing);
  if (!found && !also) return observers;
  const added = found ? [new TracingObserver(found.api, found.tracer)] : [];
  return [...(observers ?? []), ...added, ...(also ? [also] : [])];
}

/**
 * The parent a tool call set (tool-calls.ts, `stepforge mcp`'s traceparent): kept here as well as
 * in the API's context so a call is parented right even when no context manager is registered.
 */
const parentScope = new AsyncLocalStorage<OtelApi.Context>();

/** Runs `fn` with `parent` as the context new spans start under. */
export function runWithParent<T>(api: Api, parent: OtelApi.Context, fn: () => T): T {
  return parentScope.run(parent, () => api.context.with(parent, fn));
}

/**
 * The parent of the call starting right now, set only while a tool call's client starts it: a
 * call's `call_start` is emitted synchronously inside `client.call`, so a plain variable hands the
 * tool's span to it. AsyncLocalStorage would too, but running under it turns on Node's promise
 * hooks for the whole process, which cost a traced tool call more than its operation's span.
 */
let starting: OtelApi.Context | undefined;

/** Runs `fn` (which starts a call synchronously) with `parent` as the parent of the span it starts. */
export function startingUnder<T>(parent: OtelApi.Context, fn: () => T): T {
  const outer = starting;
  starting = parent;
  try {
    return fn();
  } finally {
    starting = outer;
  }
}

/** The context a new span starts under: a tool call's (or traceparent's) parent, else the active one. */
export function parentContext(api: Api): OtelApi.Context {
  return starting ?? parentScope.getStore() ?? api.context.active();
}

const hashes = new Map<string, string>();

/** A connection name as a span may carry it: a short digest (names can be customer names). */
export function hashConnection(service: string, connection: string): string {
  const key = `${service}\u0000${connection}`;
  let hash = hashes.get(key);
  if (hash === undefined) {
    hash = createHash("sha256").update(key).digest("hex").slice(0, 16);
    // Connection names are few; the bound only keeps a process that makes up names from growing.
    if (hashes.size < 10_000) hashes.set(key, hash);
  }
  return hash;
}

/** W3C Trace Context `traceparent` (version 00 layout): `00-<32 hex>-<16 hex>-<2 hex>`. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The remote parent a `traceparent` (and `tracestate`) names, as an API context; undefined for a
 * malformed or all-zero value (the W3C spec says to ignore those). Written here because the API has
 * no W3C parser (the SDK's propagator lives in @opentelemetry/core, not a peer of ours).
 */
export function contextFromTraceparent(
  api: Api,
  traceparent: unknown,
  tracestate?: unknown,
): OtelApi.Context | undefined {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === "ff") return undefined;
  if (m[1] === "00" && traceparent.trim().length !== 55) return undefined;
  const traceId = m[2]!;
  const spanId = m[3]!;
  if (!api.isValidTraceId(traceId) || !api.isValidSpanId(spanId)) return undefined;
  const spanContext: OtelApi.SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(m[4]!, 16) & 1,
    isRemote: true,
  };
  if (typeof tracestate === "string" && tracestate.length > 0 && tracestate.length <= 512) {
    try {
      spanContext.traceState = api.createTraceState(tracestate);
    } catch {
      // A malformed tracestate is dropped; the parent still holds.
    }
  }
  return api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext);
}

/** Runs `fn` under the remote parent `traceparent` names (when the API is there and the value valid). */
export function withTraceparent<T>(meta: TraceMeta | undefined, fn: () => T): T {
  if (!meta || meta.traceparent === undefined) return fn();
  const api = otelApi();
  const parent = api && contextFromTraceparent(api, meta.traceparent, meta.tracestate);
  return api && parent ? runWithParent(api, parent, fn) : fn();
}

type TraceMeta = { traceparent?: unknown; tracestate?: unknown };

/** The trace context fields of an MCP request's `params._meta` (`traceparent`, `tracestate`), if any. */
export function traceMetaOf(params: unknown): TraceMeta | undefined {
  if (params === null || typeof params !== "object") return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === "object" ? (meta as TraceMeta) : undefined;
}

interface OpenCall {
  span: OtelApi.Span;
  context: OtelApi.Context;
  /** The attempt in flight (a call's attempts run one after another), and its number. */
  attempt: OtelApi.Span | undefined;
  attemptNumber: number;
}

/** Span attribute values must be finite numbers: an unbounded wait is recorded as -1. */
const finite = (ms: number) => (Number.isFinite(ms) ? Math.round(ms) : -1);

/** What a tracer reads: no request or response event, so the pipeline masks no address for it. */
const TRACED: readonly PipelineEvent["type"][] = [
  "call_start",
  "attempt_start",
  "attempt_end",
  "throttle",
  "retry",
  "token",
  "drift",
  "call_end",
];

/** Turns one client's events into spans. Calls are paired by `callId`. */
export class TracingObserver implements Observer {
  readonly eventTypes = TRACED;
  private readonly calls = new Map<string, OpenCall>();
  /** The last connection's hash (a client has one connection; hashing it each call showed). */
  private lastConnection: { service: string; connection: string; hash: string } | undefined;

  constructor(
    private readonly api: Api,
    private readonly tracer: OtelApi.Tracer,
  ) {}

  private connectionHash(service: string, connection: string): string {
    const last = this.lastConnection;
    if (last && last.service === service && last.connection === connection) return last.hash;
    const hash = hashConnection(service, connection);
    this.lastConnection = { service, connection, hash };
    return hash;
  }

  onEvent(event: PipelineEvent): void {
    switch (event.type) {
      case "call_start": {
        const parent = parentContext(this.api);
        const span = this.tracer.startSpan(
          `${event.service} ${event.operation}`,
          {
            kind: this.api.SpanKind.INTERNAL,
            attributes: {
              "stepforge.service": event.service,
              "stepforge.operation": event.operation,
              "stepforge.connection.hash": this.connectionHash(event.service, event.connection),
              "stepforge.call.id": event.callId,
              "http.request.method": event.method,
              "url.template": event.urlTemplate,
            },
          },
          parent,
        );
        const context = this.api.trace.setSpan(parent, span);
        this.calls.set(event.callId, { span, context, attempt: undefined, attemptNumber: -1 });
        return;
      }
      case "attempt_start": {
        const call = this.calls.get(event.callId);
        if (!call) return;
        const attributes: OtelApi.Attributes = {
          "http.request.method": event.method,
          "url.template": event.urlTemplate,
          "server.address": event.serverAddress,
        };
        if (event.serverPort !== undefined) attributes["server.port"] = event.serverPort;
        // The convention: set only on a resend.
        if (event.resendCount > 0) attributes["http.request.resend_count"] = event.resendCount;
        // An attempt never ended (it cannot happen, but a span must never leak).
        call.attempt?.end();
        call.attempt = this.tracer.startSpan(
          `${event.method} ${event.urlTemplate}`,
          { kind: this.api.SpanKind.CLIENT, attributes },
          call.context,
        );
        call.attemptNumber = event.attempt;
        return;
      }
      case "attempt_end": {
        const call = this.calls.get(event.callId);
        const span = call?.attempt;
        if (!call || !span || call.attemptNumber !== event.attempt) return;
        call.attempt = undefined;
        if (event.status !== undefined) span.setAttribute("http.response.status_code", event.status);
        if (event.errorType !== undefined) {
          span.setAttribute("error.type", event.errorType);
          span.setStatus({ code: this.api.SpanStatusCode.ERROR });
        }
        span.end();
        return;
      }
      case "throttle":
        this.calls.get(event.callId)?.span.addEvent("stepforge.limit.wait", {
          "stepforge.limit": event.limit,
          "stepforge.limit.wait_ms": finite(event.waitMs),
        });
        return;
      case "retry":
        this.calls.get(event.callId)?.span.addEvent("stepforge.retry", {
          "stepforge.retry.attempt": event.attempt,
          "stepforge.retry.delay_ms": finite(event.delayMs),
          "stepforge.retry.reason": event.reason,
          "stepforge.retry.retry_after": event.retryAfter,
        });
        return;
      case "token": {
        const attributes: OtelApi.Attributes = { "stepforge.token.action": event.action };
        if (event.expiresAt) attributes["stepforge.token.expires_at"] = event.expiresAt;
        this.calls.get(event.callId)?.span.addEvent("stepforge.token", attributes);
        return;
      }
      case "drift":
        this.calls.get(event.callId)?.span.addEvent("stepforge.response.drift", {
          "stepforge.drift.pointer": event.pointer,
          "stepforge.drift.kind": event.kind,
          "stepforge.drift.expected": event.expected,
          ...(event.got !== undefined ? { "stepforge.drift.got": event.got } : {}),
        });
        return;
      case "call_end": {
        const call = this.calls.get(event.callId);
        if (!call) return;
        this.calls.delete(event.callId);
        const { span } = call;
        span.setAttribute("stepforge.outcome", event.outcome === "success" ? "ok" : (event.errorKind ?? "failure"));
        span.setAttribute("stepforge.attempts", event.attempts);
        span.setAttribute("stepforge.retries", event.retries);
        if (event.status !== undefined) span.setAttribute("http.response.status_code", event.status);
        if (event.outcomeUnknown) span.setAttribute("stepforge.outcome_unknown", true);
        if (event.outcome === "failure") {
          span.setAttribute("error.type", event.errorKind ?? "internal");
          span.setStatus({ code: this.api.SpanStatusCode.ERROR });
        }
        // An attempt still open (it cannot be after call_end, but a span must never leak).
        call.attempt?.end();
        span.end();
        return;
      }
      default:
        return;
    }
  }
}
