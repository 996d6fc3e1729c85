/**
 * The public runtime: what generated modules import and what callers may use directly.
 */
// Types only: the zod schemas behind them validate specs in the generator, and exporting them from
// here would put zod (half a megabyte minified) into every bundle that imports a client.
export type {
  AuthSpec,
  ConnectionField,
  DelimitedStyle,
  ParamSerialization,
  ParamStyle,
  ErrorKind,
  ErrorRule,
  ErrorsSpec,
  HttpMethod,
  LimitSpec,
  OperationDescriptor,
  PagingSpec,
  Placement,
  ServiceDescriptor,
  ServiceExtension,
  ShippedErrorRule,
  ShippedErrors,
  ShippedLimit,
} from "./descriptor.js";
export { withOperationDefaults } from "./descriptor.js";
export * from "./errors.js";
export {
  normaliseConnection,
  createClient,
  createServiceClient,
  iteratePages,
  defaultSharedState,
  localSharedState,
  closeDefaultSharedState,
  resolveBaseUrl,
  resolveTokenUrl,
  operationOf,
  UNSAFE_PATH_VALUE,
  DEFAULT_MAX_PAGES,
  PagingStoppedError,
} from "./client/client.js";
export { createSharedState } from "./state/shared.js";
export { pathValueProblem } from "./internal/path-values.js";
export type { OperationData, OperationInit, PageItem } from "./client/operation-types.js";
export type {
  CallOptions,
  ClientOptions,
  ClientParts,
  RawRequest,
  ServiceClient,
  SharedState,
  Page,
  PagingOptions,
} from "./client/client.js";
export { authorizeUrl, exchangeAuthorizationCode, secretValues, parseExpiry } from "./credentials/auth.js";
export type { Connection } from "./credentials/auth.js";
export { oauthCredentials } from "./credentials/source.js";
export { declaredWire } from "./client/wire.js";
export { quotaCounting } from "./limits/quotas.js";
export type { WireFormats } from "./client/wire.js";
export { placedCredentials } from "./credentials/placing.js";
export type { Credentials, CredentialsFlow } from "./credentials/placing.js";
export {
  connectionProblems,
  validateConnection,
  requireConnection,
  MemoryConnectionStore,
  FileConnectionStore,
  StateConnectionStore,
} from "./credentials/connections.js";
export type { ConnectionStore, ConnectionRef, RotationStep } from "./credentials/connections.js";
export { LimitRegistry, effectiveLimits } from "./limits/limits.js";
export type { LimitOverride, LimitOverrides, Limiter } from "./limits/limits.js";
export { SharedLimitRegistry } from "./limits/shared.js";
export type { SharedLimitOptions } from "./limits/shared.js";
export { TokenCache } from "./credentials/tokens.js";
export type { TokenEntry, TokenCacheOptions, RenewalRetry } from "./credentials/tokens.js";
// From the files, not the state entry (state/index.ts): importing that one switches the default
// state to the environment's choice, which a client bundle must not carry unasked (layers.ts).
export { createStateStore } from "./state/config.js";
export { FakeClock, StateUnavailableError, systemClock } from "./state/types.js";
export { FileStateStore } from "./state/file.js";
export { MemoryStateStore } from "./state/memory.js";
export { RedisStateStore } from "./state/redis.js";
export { withLocalFallback } from "./state/fallback.js";
export { hashed, stateKey } from "./state/keys.js";
export type {
  Admission,
  AdmissionItem,
  Clock,
  CounterValue,
  Fence,
  LockBusy,
  LockGrant,
  SetOptions,
  SetResult,
  StateBackend,
  StateStore,
  StoredRecord,
} from "./state/types.js";
export type { StateConfig } from "./state/config.js";
export type {
  AttemptEndEvent,
  AttemptStartEvent,
  CallEndEvent,
  CallStartEvent,
  Hooks,
  Observer,
  PipelineEvent,
  RuntimeEvent,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
  ThrottleEvent,
  TokenEvent,
} from "./hooks.js";
export type { RetryOptions } from "./client/retry.js";
export { nextMidnight, dayIn, monthIn, nextMonthStart } from "./internal/time.js";
export { getPath, firstPath } from "./internal/values.js";
export { parseRetryAfter } from "./client/classify.js";
export type { TriggersExtension } from "./triggers/model-types.js";
