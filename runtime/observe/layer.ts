/**
 * The observability layer a client takes (runtime/client/layers.ts): tracing and metrics observers
 * and the response check. A value, not a registration: the `stepforge/runtime/observe` entry
 * registers it for every client, and the tool steps hand it to the clients they build.
 */
import type { ObserveLayer } from "../client/layers.js";
import { metricsObserver } from "./metrics.js";
import { withTracing } from "./otel.js";
import { answerValidation } from "./response-check.js";

export const observeLayer: ObserveLayer = {
  observers: (observers, tracing, metrics) => withTracing(observers, tracing, metricsObserver(metrics)),
  answerValidation,
};
