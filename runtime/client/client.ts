/**
 * The service client every generated module builds on. Its calls run the request pipeline
 * (docs/runtime.md): request building (request.ts) → admission under the declared limits
 * (admission.ts) → credentials (credentials/placing.ts; OAuth tokens in source.ts) → one attempt
 * (attempt.ts) → classification (classify.ts) → the retry policy (retry.ts), strung together by
 * transport.ts, reporting to hooks and observers (observer.ts, report.ts).
 *
 * Generated code passes the service descriptor; nothing here knows which service it talks to.
 * `createClient` takes only the parts the spec needs (the OAuth flows, paging, quota counting) as
 * values, so a bundle of a client whose spec declares none of them carries none; `createServiceClient` is the
 * client with every part, for callers that take any descriptor (tool steps, MCP, the API Call step).
 */
import {
  declaredQuotaOf,
  declaredWireOf,
  type HttpMethod,
  type OperationDescriptor,
  type ServiceDescriptor,
} from "../descriptor.js";
import { redact, redactUrl } from "../errors.js";
import type { Connection } from "../credentials/auth.js";
import { baseUrlFields, type ConnectionStore, validateConnection } from "../credentials/connections.js";
import { type CredentialsFlow, placedCredentials } from "../credentials/placing.js";
import { oauthCredentials } from "../credentials/source.js";
import type { Hooks, Observer } from "../hooks.js";
import {
  effectiveLimits,
  type LimitOverrides,
  type QuotaCounting,
  quotaCounting,
  useQuotaCounting,
} from "../limits/limits.js";
import { checkAddress, normaliseConnection, resolveBaseUrl, resolveTokenUrl } from "./address.js";
import { Admission, accountScopes } from "./admission.js";
import type { CallOptions, ClientContext } from "./context.js";
import { Events } from "./observer.js";
import { iteratePages, type Page, type PagingOptions } from "./paging.js";
import { adHocOperation, RequestBuilder } from "./request.js";
import { resolveRetry, type RetryOptions } from "./retry.js";
import { defaultSharedState, type SharedState } from "./shared-state.js";
import { callOperation } from "./transport.js";
import { declaredWire, type WireFormats } from "./wire.js";
import { combineHooks } from "../observe/logger.js";
import { METRICS_ENV, type MetricsOption, type TracingOption, TRACING_ENV, tracingWanted } from "../observe/options.js";
import type { ValidateOption } from "../observe/response-check.js";
import { missingLayer, OBSERVE_ENTRY, type ObserveLayer, observeLayer } from "./layers.js";

export { checkAddress, normaliseConnection, resolveBaseUrl, resolveTokenUrl } from "./address.js";
export { closeDefaultSharedState, defaultSharedState, localSharedState, type SharedState } from "./shared-state.js";
export { querySerializerFor } from "./params.js";
export { UNSAFE_PATH_VALUE } from "./failures.js";
export type { CallOptions } from "./context.js";
export type { Page, PagingOptions };
export { DEFAULT_MAX_PAGES, iteratePages, PagingStoppedError } from "./paging.js";

export interface ClientOptions {
  /** The named connection whose credentials and limits this client uses. */
  connection: Connection;
  /**
   * Overrides the base address the descriptor derives from the connection (mocks, proxies). The
   * only way to reach an address the connection's field patterns would refuse, such as loopback.
   * A token endpoint under the declared base address moves with it.
   */
  baseUrl?: string | undefined;
  /** Overrides the OAuth token endpoint. */
  tokenUrl?: string | undefined;
  /** The fetch to send requests with; global fetch by default. */
  fetch?: typeof fetch | undefined;
  retry?: RetryOptions | undefined;
  /** Cancels every call of this client (a call's own `init.signal` also works). */
  signal?: AbortSignal | undefined;
  /**
   * Longest a client-side limit may hold a call, in ms. A call the limiter would hold longer (its
   * estimate when the call is first held) fails at once with a `rate_limited` error carrying
   * `retryAfterMs`, and nothing is sent. Default: no bound, the call waits for room. For callers
   * that give up sooner than a limit's window (an MCP client times out after about a minute).
   * A call may set its own (`init.maxLimitWaitMs`).
   */
  maxLimitWaitMs?: number | undefined;
  /** Logging and metrics: the request-level events; silent when absent. */
  hooks?: Hooks | undefined;
  /** Every event of every call, lifecycle included (tracing, a call log); see docs/runtime.md. */
  observers?: readonly Observer[] | undefined;
  /**
   * OpenTelemetry spans for every call (docs/observability.md): `true` uses the global tracer
   * provider, `{ tracer }` a tracer of yours. Needs `@opentelemetry/api` (an optional peer; without
   * it, nothing happens). Default: on when STEPFORGE_TRACING is set.
   */
  tracing?: TracingOption | undefined;
  /**
   * OpenTelemetry metrics (request and call duration, limit waits, retries, token renewals, drift):
   * `true` uses the global meter provider, `{ meter }` a meter of yours. Default: on when
   * STEPFORGE_METRICS is set.
   */
  metrics?: MetricsOption | undefined;
  /**
   * Checks each success answer against the spec: `"warn"` reports differences as `drift` events,
   * `"strict"` also fails the call with a ResponseDriftError. Default: `"warn"` when NODE_ENV is
   * `development`, else `"off"` (docs/observability.md).
   */
  validate?: ValidateOption | undefined;
  /** Shared limits and tokens (default: `defaultSharedState`). */
  shared?: SharedState | undefined;
  /** Limit numbers for this client, over the connection's own `limits` and the descriptor's. */
  limits?: LimitOverrides | undefined;
  /** Receives renewed authorization-code tokens (rotated refresh tokens) to store. */
  onTokens?: ((connectionName: string, fields: Record<string, string>) => void | Promise<void>) | undefined;
  /** Where rotated tokens are written back (`updateFields`), in addition to `onTokens`. */
  store?: ConnectionStore | undefined;
}

export type { OperationData, OperationInit, PageItem } from "./operation-types.js";

/** A request to any path of the service, outside the declared operations (the API Call step's). */
export interface RawRequest {
  method: HttpMethod;
  /** A path under the base address, already checked by the caller (`checkEndpoint`). */
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** Names the call in errors and events (default `request`). */
  operationId?: string | undefined;
}

export interface ServiceClient {
  readonly descriptor: ServiceDescriptor;
  readonly baseUrl: string;
  readonly connectionName: string;
  /** Calls one operation by id; resolves to its success body or throws a StepforgeError. */
  call(operationId: string, init?: object): Promise<unknown>;
  /** Sends a request to any path through the same pipeline (credentials, limits, retries, errors). */
  request(request: RawRequest, options?: CallOptions): Promise<unknown>;
  /** The pages of a paged operation, following `x-stepforge-paging`. */
  pages(operationId: string, init?: object, options?: PagingOptions): AsyncIterable<Page>;
  /** The items of every page, one by one. */
  items(operationId: string, init?: object, options?: PagingOptions): AsyncIterable<unknown>;
}

/** The parts of a client that only some specs need, passed as values (see createClient). */
export interface ClientParts {
  /** The OAuth flows (`oauthCredentials`), for a spec that declares one; else the placed fields only. */
  credentials?: CredentialsFlow | undefined;
  /** Following `x-stepforge-paging` (`iteratePages`), for a spec with a paged operation. */
  paging?: typeof iteratePages | undefined;
  /** Declared parameter styles, non-JSON bodies, operation servers (`declaredWire`), for a spec that has them. */
  wire?: WireFormats | undefined;
  /** The observability layer to use when the program did not register one (the tool steps pass theirs). */
  observe?: ObserveLayer | undefined;
  /** Daily, monthly and header quotas (`quotaCounting`), for a spec that declares one. */
  quotas?: QuotaCounting | undefined;
}

/**
 * The client for `descriptor`'s service, with every part: for callers that take any descriptor.
 * `observe` is the observability layer to use when the program did not register one; see layers.ts.
 */
export function createServiceClient(
  descriptor: ServiceDescriptor,
  options: ClientOptions,
  observe?: ObserveLayer,
): ServiceClient {
  const parts = {
    credentials: oauthCredentials,
    paging: iteratePages,
    wire: declaredWire,
    observe,
    quotas: quotaCounting,
  };
  return createClient(descriptor, options, parts);
}

/**
 * The client for `descriptor`'s service with the parts given (what generated clients call: the
 * generator passes the parts its spec needs). A spec that needs a part which was not given fails
 * naming it: an OAuth spec or a quota when the client is built, a paged operation when its pages
 * are asked for.
 */
export function createClient(
  descriptor: ServiceDescriptor,
  options: ClientOptions,
  parts: ClientParts = {},
): ServiceClient {
  const ctx = createClientContext(descriptor, options, parts.observe, parts.credentials, parts.wire);
  // One counting serves every registry of the process (registries outlive clients and are shared).
  if (parts.quotas) useQuotaCounting(parts.quotas);
  else if (declaredQuotaOf(descriptor.limits))
    throw new Error(
      `${descriptor.id} declares a ${declaredQuotaOf(descriptor.limits)} limit, but this client was built ` +
        "without the quota part; pass { quotas: quotaCounting } to createClient, or use createServiceClient",
    );
  const call = (operationId: string, init: object = {}): Promise<unknown> => {
    // An unknown operation rejects, as every other failure of a call does; it never throws.
    try {
      return callOperation(ctx, operationOf(descriptor, operationId), init);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const pages = (operationId: string, init: object = {}, paging: PagingOptions = {}): AsyncIterable<Page> => {
    const op = operationOf(descriptor, operationId);
    if (!op.paging)
      throw new Error(
        `${descriptor.id}: operation "${operationId}" declares no paging (x-stepforge-paging); use call()`,
      );
    if (!parts.paging)
      throw new Error(
        `${descriptor.id}: operation "${operationId}" pages, but this client was built without paging; ` +
          "pass { paging: iteratePages } to createClient, or use createServiceClient",
      );
    return parts.paging(descriptor.id, op, (pageInit) => call(operationId, pageInit), init as never, paging);
  };
  return {
    descriptor,
    baseUrl: ctx.baseUrl,
    connectionName: ctx.connection.name,
    call,
    request: (raw, options = {}) => {
      const init: Record<string, unknown> = {};
      if (raw.query && Object.keys(raw.query).length > 0) init.params = { query: raw.query };
      if (raw.body !== undefined) init.body = raw.body;
      const op = adHocOperation(raw.operationId ?? "request", raw.method, raw.path);
      return callOperation(ctx, op, mergeCallOptions(init, options));
    },
    pages,
    async *items(operationId, init = {}, paging = {}) {
      for await (const page of pages(operationId, init, paging)) yield* page.items;
    },
  };
}

/** The client's parts, built once: every call of the client shares them. */
export function createClientContext(
  descriptor: ServiceDescriptor,
  options: ClientOptions,
  observe: ObserveLayer | undefined = observeLayer(),
  credentialsFlow: CredentialsFlow = placedCredentials,
  wire?: WireFormats,
): ClientContext {
  const oauth =
    descriptor.auth.kind === "oauth2-client-credentials" || descriptor.auth.kind === "oauth2-authorization-code";
  if (oauth && credentialsFlow === placedCredentials)
    throw new Error(
      `${descriptor.id} authenticates with ${descriptor.auth.kind}, but this client was built without the OAuth ` +
        "flows; pass { credentials: oauthCredentials } to createClient, or use createServiceClient",
    );
  if (!wire) {
    for (const op of Object.values(descriptor.operations)) {
      const declared = declaredWireOf(op);
      if (declared)
        throw new Error(
          `${descriptor.id}: operation "${op.operationId}" declares ${declared}, but this client was built ` +
            "without the declared wire formats; pass { wire: declaredWire } to createClient, " +
            "or use createServiceClient",
        );
    }
  }
  const connection = normaliseConnection(descriptor, options.connection);
  validateConnection(descriptor, connection, { skipPatternFor: options.baseUrl ? baseUrlFields(descriptor) : [] });
  const baseUrl = resolveBaseUrl(descriptor, connection, options.baseUrl);
  const baseField = options.baseUrl ? undefined : baseUrlFields(descriptor)[0];
  checkAddress(descriptor, baseUrl, "base address", baseField, { https: !options.baseUrl });
  const tokenUrl = resolveTokenUrl(descriptor, connection, options.baseUrl, options.tokenUrl);
  if (tokenUrl)
    checkAddress(descriptor, tokenUrl, "token address", undefined, { https: !options.baseUrl && !options.tokenUrl });

  const send = options.fetch ?? globalThis.fetch;
  const retry = resolveRetry(options.retry);
  const shared = options.shared ?? defaultSharedState;
  const layer = observe ?? observeLayer() ?? refuseObserving(descriptor, options);
  const observers = layer ? layer.observers(options.observers, options.tracing, options.metrics) : options.observers;
  const events = new Events({ service: descriptor.id, connection: connection.name }, options.hooks, observers);
  const scopes = accountScopes(descriptor, connection);
  const limits = effectiveLimits(descriptor, connection.limits, options.limits);
  const { onTokens, store } = options;
  const credentials = credentialsFlow({
    descriptor,
    connection,
    tokenUrl,
    account: scopes.connection,
    send,
    retry,
    shared,
    events,
    onTokens,
    store,
  });
  const { secrets, queryNames } = credentials;
  return {
    descriptor,
    connection,
    baseUrl,
    send,
    retry,
    signal: options.signal,
    maxLimitWaitMs: options.maxLimitWaitMs,
    events,
    requests: new RequestBuilder(
      baseUrl,
      wire && {
        ...wire,
        serverBase: (server: string, base: string) =>
          wire.operationBase(descriptor, connection, server, base, options.baseUrl !== undefined),
      },
    ),
    admission: new Admission(descriptor, shared, limits, scopes),
    credentials,
    checkAnswer: layer?.answerValidation(descriptor, options.validate),
    showUrl: (url) => redactUrl(url, secrets, queryNames),
    clean: (text) => redact(text, secrets),
  };
}

/**
 * Without the observability layer: nothing to do unless tracing, metrics or a response check was
 * asked for, which fails naming the import. The development default (`validate: "warn"` when
 * NODE_ENV is development) is part of the layer: without it, answers are not checked.
 */
function refuseObserving(descriptor: ServiceDescriptor, options: ClientOptions): undefined {
  const asked =
    options.tracing !== undefined && options.tracing !== false
      ? "tracing is on"
      : options.metrics !== undefined && options.metrics !== false
        ? "metrics are on"
        : options.tracing === undefined && tracingWanted(undefined, TRACING_ENV)
          ? `${TRACING_ENV} is set`
          : options.metrics === undefined && tracingWanted(undefined, METRICS_ENV)
            ? `${METRICS_ENV} is set`
            : validating(options.validate)
              ? `validate is "${typeof options.validate === "object" ? options.validate.mode : options.validate}"`
              : undefined;
  const what = "(it holds tracing, metrics and response checks)";
  if (asked) throw missingLayer(`${descriptor.id}: ${asked}`, OBSERVE_ENTRY, what);
  return undefined;
}

function validating(option: ValidateOption | undefined): boolean {
  const mode = typeof option === "object" ? option.mode : option;
  return mode !== undefined && mode !== "off";
}

/** `init` with per-call options added: both signals cancel it; its own wait bound wins; both hooks hear it. */
export function mergeCallOptions(init: object, extra: CallOptions): object {
  if (extra.signal === undefined && extra.maxLimitWaitMs === undefined && extra.hooks === undefined) return init;
  const own = init as CallOptions;
  const signal =
    own.signal && extra.signal ? AbortSignal.any([own.signal, extra.signal]) : (own.signal ?? extra.signal);
  const maxLimitWaitMs = own.maxLimitWaitMs ?? extra.maxLimitWaitMs;
  const hooks = combineHooks(own.hooks, extra.hooks);
  return hooks ? { ...init, signal, maxLimitWaitMs, hooks } : { ...init, signal, maxLimitWaitMs };
}

export function operationOf(descriptor: ServiceDescriptor, operationId: string): OperationDescriptor {
  // Own keys only: "toString" must not find Object.prototype.toString.
  const op = Object.hasOwn(descriptor.operations, operationId) ? descriptor.operations[operationId] : undefined;
  if (!op) throw new Error(`${descriptor.id} has no operation "${operationId}"`);
  return op;
}
