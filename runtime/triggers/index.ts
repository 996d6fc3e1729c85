/** Triggers: declared in a spec's `x-stepforge-triggers`, received, matched, polled and registered here. */
export * from "./extension-types.js";
export { createWebhookReceiver, signPayload, ReceiverConfigError, RECEIVER_DEFAULTS } from "./receiver.js";
export type {
  ReceiverLoad,
  ReceiverOptions,
  ReceiverStats,
  WebhookReceiver,
  WebhookRequest,
  WebhookResponse,
} from "./receiver.js";
export { createWebhookServer } from "./server.js";
export type { WebhookServerOptions } from "./server.js";
export {
  ANY_SCOPE_VALUE,
  createTriggerRouter,
  validateConfig,
  matches,
  normalise,
  ref,
  refsOf,
  scopeValues,
  TriggerConfigError,
} from "./router.js";
export type { TriggerConfig, TriggerEvent, Ref } from "./router.js";
export { pollDueDates, pollFeed, releasePollLease } from "./pollers.js";
export type { ListFn, PollOptions } from "./pollers.js";
export { ensureWebhook, removeWebhook } from "./lifecycle.js";
export type { CallFn, Registration } from "./lifecycle.js";
