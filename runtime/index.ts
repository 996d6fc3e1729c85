/**
 * The public runtime: what generated modules import and what callers may use directly. One export
 * statement a module, its values and types together, so that what a module gives the public is
 * read in one place; modules that give only types use `export type`.
 */
// The descriptor's types, not the zod schemas behind them (descriptor-schemas.ts): those validate
// specs in the generator, and exporting them from here would put zod (half a megabyte minified)
// into every bundle that imports a client.
export {
  type AuthSpec,
  type ConnectionField,
  type DelimitedStyle,
  type ParamSerialization,
  type ParamStyle,
  type ErrorKind,
  type ErrorRule,
  type ErrorsSpec,
  type HttpMethod,
  type LimitSpec,
  type OperationDescriptor,
  type PagingSpec,
  type Placement,
  type ServiceDescriptor,
  type ServiceExtension,
  type ShippedErrorRule,
  type ShippedErrors,
  type ShippedLimit,
  withOperationDefaults,
} from "./descriptor.js";
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
  type CallOptions,
  type ClientOptions,
  type ClientParts,
  type RawRequest,
  type ServiceClient,
  type SharedState,
  type Page,
  type PagingOptions,
} from "./client/client.js";
export type { OperationData, OperationInit, PageItem } from "./client/operation-types.js";
export { declaredWire, type WireFormats } from "./client/wire.js";
export type { RetryOptions } from "./client/retry.js";
export { parseRetryAfter } from "./client/classify.js";
export {
  authorizeUrl,
  exchangeAuthorizationCode,
  secretValues,
  parseExpiry,
  type Connection,
} from "./credentials/auth.js";
export { oauthCredentials } from "./credentials/source.js";
export { placedCredentials, type Credentials, type CredentialsFlow } from "./credentials/placing.js";
export {
  connectionProblems,
  validateConnection,
  requireConnection,
  MemoryConnectionStore,
  FileConnectionStore,
  StateConnectionStore,
  type ConnectionStore,
  type ConnectionRef,
  type RotationStep,
} from "./credentials/connections.js";
export { TokenCache, type TokenEntry, type TokenCacheOptions, type RenewalRetry } from "./credentials/tokens.js";
export { quotaCounting } from "./limits/quotas.js";
export {
  LimitRegistry,
  effectiveLimits,
  type LimitOverride,
  type LimitOverrides,
  type Limiter,
} from "./limits/limits.js";
export { SharedLimitRegistry, type SharedLimitOptions } from "./limits/shared.js";
// From the files, not the state entry (state/index.ts): importing that one switches the default
// state to the environment's choice, which a client bundle must not carry unasked (layers.ts).
export { createSharedState } from "./state/shared.js";
export { createStateStore, type StateConfig } from "./state/config.js";
export {
  FakeClock,
  StateUnavailableError,
  systemClock,
  type Admission,
  type AdmissionItem,
  type Clock,
  type CounterValue,
  type Fence,
  type LockBusy,
  type LockGrant,
  type SetOptions,
  type SetResult,
  type StateBackend,
  type StateStore,
  type StoredRecord,
} from "./state/types.js";
export { FileStateStore } from "./state/file.js";
export { MemoryStateStore } from "./state/memory.js";
export { RedisStateStore } from "./state/redis.js";
export { withLocalFallback } from "./state/fallback.js";
export { hashed, stateKey } from "./state/keys.js";
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
export type { TriggersExtension } from "./triggers/extension-types.js";
export { pathValueProblem } from "./internal/path-values.js";
export { nextMidnight, dayIn, monthIn, nextMonthStart } from "./internal/time.js";
export { getPath, firstPath } from "./internal/values.js";
