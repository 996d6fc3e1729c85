/**
 * OpenTelemetry metrics from the pipeline's observer events, like otel.ts's spans: HTTP attempt
 * duration (`http.client.request.duration`, the HTTP client convention), call duration, the
 * limiter's expected waits, what each limit has left after an admission (budgets.ts), retries,
 * token renewals and response drift. Labels are low-cardinality and hold nothing secret: method, path template,
 * host, status, error type, service, operation, limit id and scope, the connection's digest,
 * reason, token action.
 */
import type * as OtelApi from "@opentelemetry/api";
import type { Observer, PipelineEvent } from "../hooks.js";
import { METRICS_ENV, type MetricsOption } from "./options.js";
import { type BudgetGauges, budgetGaugesFor } from "./budgets.js";
import { otelApi, tracingWanted } from "./otel.js";

export type { MetricsOption, MetricsOptions } from "./options.js";

export { METRICS_ENV };

/** The metrics observer `option` asks for, or none (off, or the API is absent). */
export function metricsObserver(option: MetricsOption | undefined): Observer | undefined {
  if (!tracingWanted(option, METRICS_ENV)) return undefined;
  const api = otelApi();
  if (!api) return undefined;
  const own = typeof option === "object" ? (option.meter as OtelApi.Meter | undefined) : undefined;
  return new MetricsObserver(own ?? api.metrics.getMeter("stepforge"));
}

/** What the metrics read: no request or response event, so the pipeline masks no address for them. */
const MEASURED: readonly PipelineEvent["type"][] = [
  "attempt_end",
  "call_end",
  "throttle",
  "budget",
  "retry",
  "token",
  "drift",
];

export class MetricsObserver implements Observer {
  readonly eventTypes = MEASURED;
  private readonly attemptDuration: OtelApi.Histogram;
  private readonly callDuration: OtelApi.Histogram;
  private readonly limitWait: OtelApi.Histogram;
  /** What each limit had left at its last admission (observable gauges, read when collected). */
  private readonly budgets: BudgetGauges;
  private readonly retries: OtelApi.Counter;
  private readonly tokens: OtelApi.Counter;
  private readonly drift: OtelApi.Counter;

  constructor(meter: OtelApi.Meter) {
    this.attemptDuration = meter.createHistogram("http.client.request.duration", {
      unit: "s",
      description: "Duration of HTTP client requests (one per attempt).",
    });
    this.callDuration = meter.createHistogram("stepforge.call.duration", {
      unit: "s",
      description: "Duration of operation calls, waits and retries included.",
    });
    this.limitWait = meter.createHistogram("stepforge.limit.wait", {
      unit: "s",
      description: "Expected wait for room under a client-side limit, when a limit held a call.",
    });
    this.budgets = budgetGaugesFor(meter);
    this.retries = meter.createCounter("stepforge.retries", { description: "Pauses before another attempt." });
    this.tokens = meter.createCounter("stepforge.token.renewals", { description: "OAuth token events by action." });
    this.drift = meter.createCounter("stepforge.response.drift", {
      description: "Differences between success answers and the spec (validate).",
    });
  }

  onEvent(event: PipelineEvent): void {
    switch (event.type) {
      case "attempt_end": {
        const attributes: OtelApi.Attributes = {
          "http.request.method": event.method,
          "url.template": event.urlTemplate,
          "server.address": event.serverAddress,
        };
        if (event.status !== undefined) attributes["http.response.status_code"] = event.status;
        if (event.errorType !== undefined) attributes["error.type"] = event.errorType;
        this.attemptDuration.record(event.durationMs / 1000, attributes);
        return;
      }
      case "call_end":
        this.callDuration.record(event.durationMs / 1000, {
          "stepforge.service": event.service,
          "stepforge.operation": event.operation,
          "stepforge.outcome": event.outcome === "success" ? "ok" : (event.errorKind ?? "failure"),
        });
        return;
      case "throttle":
        if (!Number.isFinite(event.waitMs)) return;
        this.limitWait.record(event.waitMs / 1000, {
          "stepforge.service": event.service,
          "stepforge.limit": event.limit,
        });
        return;
      case "budget":
        this.budgets.note(event);
        return;
      case "retry":
        this.retries.add(1, {
          "stepforge.service": event.service,
          "stepforge.operation": event.operation ?? "",
          "stepforge.retry.reason": event.reason,
        });
        return;
      case "token":
        this.tokens.add(1, { "stepforge.service": event.service, "stepforge.token.action": event.action });
        return;
      case "drift":
        this.drift.add(1, {
          "stepforge.service": event.service,
          "stepforge.operation": event.operation,
          "stepforge.drift.kind": event.kind,
        });
        return;
      default:
        return;
    }
  }
}
