/**
 * The optional layers of a client, loaded by importing their entry rather than reachable from every
 * client: shared state across processes (`stepforge/runtime/state`: Redis, a folder, shared limits)
 * and observability (`stepforge/runtime/observe`: tracing, metrics, response checks). A bundle of
 * a client that does not import them does not carry them (issue 22: the Trello client ≤ 50 KB).
 *
 * An entry registers its layer when imported (a side effect kept out of everything a generated
 * client imports). A setting that needs a layer which was not loaded fails with one sentence naming
 * the import to add: never a silent per-process or untraced run.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import type { Observer } from "../hooks.js";
import type { MetricsOption, TracingOption } from "../observe/options.js";
import type { AnswerValidation } from "./context.js";
import type { ValidateOption } from "../observe/response-check.js";

// The state layer's registration lives beside the state it chooses (shared-state.ts), which the
// pipeline's parts read: kept out of here so that no import circle runs through this file.
export { type StateLayer, useStateLayer } from "./shared-state.js";
export { missingLayer, OBSERVE_ENTRY, STATE_ENTRY } from "./missing-layer.js";

export interface ObserveLayer {
  /** The observers a client reports to: the caller's, plus tracing and metrics when asked for. */
  observers(
    observers: readonly Observer[] | undefined,
    tracing: TracingOption | undefined,
    metrics: MetricsOption | undefined,
  ): readonly Observer[] | undefined;
  /** The client's check of success answers against the spec, or undefined when off. */
  answerValidation(descriptor: ServiceDescriptor, option: ValidateOption | undefined): AnswerValidation | undefined;
}

const loaded: { observe?: ObserveLayer } = {};

export function useObserveLayer(layer: ObserveLayer): void {
  loaded.observe = layer;
}

export function observeLayer(): ObserveLayer | undefined {
  return loaded.observe;
}
