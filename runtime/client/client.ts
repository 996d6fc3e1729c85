/**
 * The service client every generated module builds on: openapi-fetch's types for paths, parameters
 * and bodies, and its serialisers for the address and body (so values are encoded exactly as
 * openapi-fetch encodes them). The request is built once per call, as a URL, headers and a body
 * string, and not as a Request object: fetch makes its own, and a Request built here only to be
 * copied cost a third of the client's time per call. Each call then runs a loop of attempts: wait for room under the declared limits, put the credentials on (fetching
 * or refreshing an OAuth token when due), send with a per-attempt timeout, read the whole body,
 * classify the answer with the descriptor's error rules, and retry, renew or throw a typed error.
 * The serialised body is kept, so it can be sent again.
 *
 * Generated code passes the service descriptor; nothing here knows which service it talks to.
 */
import { createFinalURL, createQuerySerializer, defaultBodySerializer, defaultPathSerializer, mergeHeaders, serializeArrayParam } from "openapi-fetch";
import type { ParamsOption, RequestBodyOption } from "openapi-fetch";
import type { SuccessResponseJSON } from "openapi-typescript-helpers";
import { FORM_MEDIA_TYPE, OCTET_MEDIA_TYPE, type OperationDescriptor, type ServiceDescriptor } from "../descriptor.js";
import { AbortedError, ConnectionError, createError, NetworkError, redact, redactUrl, StepforgeError, TimeoutError } from "../errors.js";
import { fillTemplate } from "../internal/template.js";
import {
  applyCredentialsTo,
  type Connection,
  credentialQueryNames,
  fetchClientCredentialsToken,
  managedFields,
  parseExpiry,
  refreshAuthorizationCode,
  secretValues,
  type TokenRequestContext,
  tokenFields,
} from "../credentials/auth.js";
import { findFailure, requestIdOf, retryAfterOf } from "./classify.js";
import { baseUrlFields, type ConnectionStore, validateConnection } from "../credentials/connections.js";
import { emit, type Hooks } from "../hooks.js";
import { effectiveLimits, hashOf, type Limiter, LimitRegistry, type LimitOverrides, type LimitScopes, type PlannedLimit, planKey, QuotaRefusedError, type Ticket } from "../limits/limits.js";
import { SharedLimitRegistry } from "../limits/shared.js";
import { iteratePages, type Page, type PagingOptions } from "./paging.js";
import { backoffDelay, innerMessage, neverSent, resendSafe, resolveRetry, type RetryOptions } from "./retry.js";
import { sleep } from "../internal/time.js";
import { createStateStore, type StateConfig } from "../state/config.js";
import { isStateUnavailable, type StateStore } from "../state/types.js";
import { pathValueProblem } from "../internal/path-values.js";
import { type RenewalRetry, TokenCache, type TokenEntry } from "../credentials/tokens.js";

/** The error code of a path parameter refused before sending (`.`, `..`, empty). */
export const UNSAFE_PATH_VALUE = "UNSAFE_PATH_VALUE";

/**
 * Budgets and tokens shared by every client that uses the same object: limits are counted per
 * connection (or per declared credential field) across all of them, and one token serves them all.
 * Through `store` they are shared with other processes too: a folder (this machine) or Redis
 * (every machine). Clients share `defaultSharedState` unless given their own.
 */
export interface SharedState {
  /** Where state shared with other processes lives (memory: this process only). */
  store: StateStore;
  /** In this process (`LimitRegistry`), or across processes (`SharedLimitRegistry` over the store). */
  limits: Limiter;
  tokens: TokenCache;
}

/**
 * New shared state. The store is the one `config` names (`store`, `redisUrl`, `stateDir`); with
 * none named, `STEPFORGE_REDIS_URL` or `STEPFORGE_STATE_DIR` from the environment; else memory.
 */
export function createSharedState(config: StateConfig = {}): SharedState {
  const store = createStateStore(config);
  // One process: the in-process limiter (nothing to share, no store round trips per call).
  const limits = store.backend === "memory" ? new LimitRegistry() : new SharedLimitRegistry(store);
  return { store, limits, tokens: new TokenCache({ store }) };
}

let processState: SharedState | undefined;

/**
 * The process-wide state clients use when none is passed, built on first use (so the environment
 * is read when the first client needs it, not when this module is imported).
 */
export const defaultSharedState: SharedState = {
  get store() {
    return (processState ??= createSharedState()).store;
  },
  get limits() {
    return (processState ??= createSharedState()).limits;
  },
  get tokens() {
    return (processState ??= createSharedState()).tokens;
  },
};

/** Closes the process-wide state's store (a Redis connection), if one was opened; the next use opens a new one. */
export async function closeDefaultSharedState(): Promise<void> {
  const state = processState;
  processState = undefined;
  await state?.store.close();
}

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
   */
  maxLimitWaitMs?: number | undefined;
  /** Logging and metrics; silent when absent. */
  hooks?: Hooks | undefined;
  /** Shared limits and tokens (default: `defaultSharedState`). */
  shared?: SharedState | undefined;
  /** Limit numbers for this client, over the connection's own `limits` and the descriptor's. */
  limits?: LimitOverrides | undefined;
  /** Receives renewed authorization-code tokens (rotated refresh tokens) to store. */
  onTokens?: ((connectionName: string, fields: Record<string, string>) => void | Promise<void>) | undefined;
  /** Where rotated tokens are written back (`updateFields`), in addition to `onTokens`. */
  store?: ConnectionStore | undefined;
}

/** What a generated operation function accepts: typed params and body, plus an abort signal. */
export type OperationInit<Op> = ParamsOption<Op> & RequestBodyOption<Op> & { signal?: AbortSignal };

/** What a generated operation function resolves to: the JSON body of its success response. */
export type OperationData<Op> = Op extends Record<string | number, any> ? SuccessResponseJSON<Op> : never;

export type { Page, PagingOptions };

export interface ServiceClient {
  readonly descriptor: ServiceDescriptor;
  readonly baseUrl: string;
  readonly connectionName: string;
  /** Calls one operation by id; resolves to its success body or throws a StepforgeError. */
  call(operationId: string, init?: object): Promise<unknown>;
  /** The pages of a paged operation, following `x-stepforge-paging`. */
  pages(operationId: string, init?: object, options?: PagingOptions): AsyncIterable<Page>;
  /** The items of every page, one by one. */
  items(operationId: string, init?: object, options?: PagingOptions): AsyncIterable<unknown>;
}

export function resolveBaseUrl(descriptor: ServiceDescriptor, connection: Connection, override?: string): string {
  const raw = override ?? fillTemplate(descriptor.connection.baseUrl, connection.fields, `${descriptor.id} base address`);
  return raw.replace(/\/+$/, "");
}

/**
 * Checks an address before anything is sent to it: it must parse, carry no user information
 * (`user:password@`: fetch cannot send it, and the error it would throw quotes the whole address,
 * password and credential query included) and, unless it is an explicit override, use https.
 */
function checkAddress(descriptor: ServiceDescriptor, address: string, what: string, field: string | undefined, options: { https: boolean }): void {
  const refuse = (problem: string) => new ConnectionError(`${descriptor.title}: the ${what} ${problem}`, { service: descriptor.id, operation: "", field });
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    // An override that does not parse fails at the first request, with the address named.
    if (!options.https) return;
    throw refuse(`is not a valid address${field ? `; check the connection field "${field}"` : ""}`);
  }
  if (url.username || url.password) {
    throw refuse(`${redactUrl(address)} contains user information (user:password@), which is never sent; remove it${field ? ` from the connection field "${field}"` : ""}`);
  }
  if (options.https && url.protocol !== "https:") {
    throw refuse(`${redactUrl(address)} is not https; credentials are only sent over https (use the baseUrl option for a local mock)`);
  }
}

/** The token endpoint for OAuth kinds; follows a base-address override when it lives under the base address. */
export function resolveTokenUrl(descriptor: ServiceDescriptor, connection: Connection, baseOverride?: string, tokenOverride?: string): string | undefined {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return undefined;
  if (tokenOverride) return tokenOverride;
  const template = auth.tokenUrl;
  const baseTemplate = descriptor.connection.baseUrl.replace(/\/+$/, "");
  const base = baseOverride?.replace(/\/+$/, "");
  if (base !== undefined && template.startsWith(baseTemplate)) return base + template.slice(baseTemplate.length);
  const filled = fillTemplate(template, connection.fields, `${descriptor.id} token address`);
  if (base !== undefined) {
    try {
      const declared = resolveBaseUrl(descriptor, connection);
      if (filled.startsWith(declared)) return base + filled.slice(declared.length);
    } catch {
      /* the declared base needs fields the override made unnecessary */
    }
  }
  return filled;
}

interface CallState {
  op: OperationDescriptor;
  signal: AbortSignal | undefined;
  retries: number;
  attempts: number;
  waitedMs: number;
  reauthed: boolean;
}

/** What a generated operation passes: openapi-fetch's `params` and `body` shapes. */
interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  headers?: Record<string, string>;
}

/** One call's request, built once and sent by every attempt (each attempt adds credentials to a copy). */
interface PreparedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string | FormData | Blob | undefined;
  /** The call's path parameters (per-board or per-workspace limits count by them). */
  pathValues: Record<string, unknown> | undefined;
}

function prepareRequest(baseUrl: string, op: OperationDescriptor, init: CallInit, querySerializer: (query: Record<string, unknown>) => string): PreparedRequest {
  const params = init.params ?? {};
  const url = createFinalURL(op.path, { baseUrl, params: params as never, querySerializer, pathSerializer: defaultPathSerializer });
  const given = mergeHeaders(init.headers, params.header as never);
  const raw = init.body === undefined || init.body instanceof FormData ? undefined : rawBody(op.requestMediaType, init.body);
  if (raw) return { method: op.method.toUpperCase(), url, headers: mergeHeaders({ "Content-Type": op.requestMediaType! }, given), body: raw, pathValues: params.path };
  // The implementation also reads the headers (a form content type gets a form body); its .d.ts omits them.
  const serializeBody = defaultBodySerializer as (body: unknown, headers: Headers) => string | FormData;
  const body = init.body === undefined ? undefined : serializeBody(init.body, given);
  // Only a JSON body gets a content type; FormData brings its own with the boundary.
  const headers = body === undefined || body instanceof FormData ? given : mergeHeaders({ "Content-Type": "application/json" }, given);
  return { method: op.method.toUpperCase(), url, headers, body, pathValues: params.path };
}

/**
 * A body the operation takes in a media type that is not JSON (the descriptor's requestMediaType):
 * form fields (arrays repeat the key, as form style explodes them) or the bytes as given. A Blob,
 * unlike a stream, can be sent again by a retry. Undefined: send it as JSON.
 */
function rawBody(mediaType: string | undefined, body: unknown): string | Blob | undefined {
  const type = mediaType?.toLowerCase();
  if (type === FORM_MEDIA_TYPE && body !== null && typeof body === "object" && !isBinary(body)) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) {
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) form.append(name, String(item));
    }
    return form.toString();
  }
  if (type === OCTET_MEDIA_TYPE && (typeof body === "string" || isBinary(body))) return body instanceof Blob ? body : new Blob([body as string | ArrayBuffer | Uint8Array<ArrayBuffer>]);
  return undefined;
}

function isBinary(value: unknown): value is Blob | ArrayBuffer | Uint8Array {
  return value instanceof Blob || value instanceof ArrayBuffer || value instanceof Uint8Array;
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a && b) return AbortSignal.any([a, b]);
  return a ?? b;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function parseBody(bytes: ArrayBuffer, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return undefined;
  const text = new TextDecoder().decode(bytes);
  const trimmed = text.trim();
  if (/json/i.test(contentType ?? "") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The connection with each field's declared `trimSuffix` (and trailing slashes on it) removed, so
 * a value pasted as shown in the service's admin page works.
 */
export function normaliseConnection(descriptor: ServiceDescriptor, connection: Connection): Connection {
  let fields = connection.fields;
  for (const [name, spec] of Object.entries(descriptor.connection.fields)) {
    const value = fields[name];
    if (!spec.trimSuffix || typeof value !== "string") continue;
    let trimmed = value.replace(/\/+$/, "");
    if (trimmed.endsWith(spec.trimSuffix)) trimmed = trimmed.slice(0, -spec.trimSuffix.length).replace(/\/+$/, "");
    if (trimmed !== value) fields = { ...fields, [name]: trimmed };
  }
  return fields === connection.fields ? connection : { ...connection, fields };
}

export function createServiceClient(descriptor: ServiceDescriptor, options: ClientOptions): ServiceClient {
  const connection = normaliseConnection(descriptor, options.connection);
  validateConnection(descriptor, connection, { skipPatternFor: options.baseUrl ? baseUrlFields(descriptor) : [] });
  const baseUrl = resolveBaseUrl(descriptor, connection, options.baseUrl);
  checkAddress(descriptor, baseUrl, "base address", options.baseUrl ? undefined : baseUrlFields(descriptor)[0], { https: !options.baseUrl });
  const tokenUrl = resolveTokenUrl(descriptor, connection, options.baseUrl, options.tokenUrl);
  if (tokenUrl) checkAddress(descriptor, tokenUrl, "token address", undefined, { https: !options.baseUrl && !options.tokenUrl });

  const auth = descriptor.auth;
  const send = options.fetch ?? globalThis.fetch;
  const retry = resolveRetry(options.retry);
  const shared = options.shared ?? defaultSharedState;
  const hooks = options.hooks;
  const limits = effectiveLimits(descriptor, connection.limits, options.limits);
  const secrets = new Set(secretValues(descriptor, connection));
  const queryKeys = credentialQueryNames(descriptor);
  const managed = new Set(managedFields(descriptor));

  // Limits and tokens are kept per account: the connection name plus a digest of its credentials
  // (rotating tokens excluded), and per value of each credential field for `per: field:` limits.
  const identity = Object.entries(connection.fields)
    .filter(([name]) => !managed.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  const scopes: LimitScopes = {
    connection: `${connection.name}#${hashOf(identity)}`,
    fields: Object.fromEntries(Object.entries(connection.fields).map(([name, value]) => [name, hashOf(value)])),
  };
  const tokenKey =
    auth.kind === "oauth2-client-credentials"
      ? // The secret is part of the key: a connection with the right client id but a wrong secret must not get another's token.
        `${descriptor.id}|cc|${hashOf(`${connection.fields[auth.clientIdField] ?? ""}\n${connection.fields[auth.clientSecretField] ?? ""}\n${tokenUrl}`)}`
      : `${descriptor.id}|ac|${scopes.connection}`;
  const renewBeforeMs = auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code" ? auth.renewBeforeSeconds * 1000 : 0;
  /** The token an authorization-code connection holds (as given, or as stored). */
  const storedEntry = (c: Connection | undefined): TokenEntry | undefined => {
    if (auth.kind !== "oauth2-authorization-code" || !c) return undefined;
    const accessToken = c.fields[auth.accessTokenField];
    const refreshToken = c.fields[auth.refreshTokenField] || undefined;
    if (!accessToken && !refreshToken) return undefined;
    return { accessToken: accessToken ?? "", refreshToken, expiresAt: auth.expiresAtField ? parseExpiry(c.fields[auth.expiresAtField]) : undefined };
  };
  const seeded = storedEntry(connection);
  if (seeded?.accessToken) shared.tokens.seed(tokenKey, seeded, renewBeforeMs);

  const base = { service: descriptor.id, connection: connection.name };
  const showUrl = (url: string) => redactUrl(url, secrets, queryKeys);
  const clean = (text: string) => redact(text, secrets);

  async function persistTokens(entry: TokenEntry, oldRefreshToken: string | undefined, operation: string, stored: boolean): Promise<void> {
    const fields = tokenFields(descriptor, entry);
    const rotated = oldRefreshToken !== undefined && entry.refreshToken !== oldRefreshToken;
    if (rotated) emit(hooks, { type: "token", ...base, operation, action: "rotated" });
    try {
      await options.onTokens?.(connection.name, fields);
      if (!stored) await options.store?.updateFields(descriptor.id, connection.name, fields);
    } catch {
      // The new tokens stay in the shared cache and keep working in this process; the hook tells
      // the caller its store did not take them.
      emit(hooks, { type: "token", ...base, operation, action: "failed" });
    }
  }

  function renewToken(operation: string) {
    return async (current: TokenEntry | undefined): Promise<TokenEntry> => {
      const ctx: TokenRequestContext = { descriptor, connection, fetch: send, tokenUrl: tokenUrl!, timeoutMs: retry.timeoutMs, secrets, operation };
      if (auth.kind === "oauth2-client-credentials") {
        const entry = await fetchClientCredentialsToken(ctx);
        emit(hooks, { type: "token", ...base, operation, action: "fetched", expiresAt: entry.expiresAt ? new Date(entry.expiresAt).toISOString() : undefined });
        return entry;
      }
      const store = options.store;
      if (store?.rotate) {
        // Renew under the store's lock (other processes wait), from the freshest stored tokens.
        const outcome = await store.rotate(descriptor.id, connection.name, async (stored) => {
          const latest = storedEntry(stored);
          if (latest?.accessToken && latest.accessToken !== current?.accessToken && stillValid(latest)) {
            // Another process already renewed: use its token, send nothing.
            return { result: { entry: latest, refreshed: false, from: current?.refreshToken } };
          }
          const from = latest ?? current;
          const entry = await refreshOnce(ctx, from, operation);
          return { fields: tokenFields(descriptor, entry), result: { entry, refreshed: true, from: from?.refreshToken } };
        });
        if (outcome.refreshed) await persistTokens(outcome.entry, outcome.from, operation, true);
        return outcome.entry;
      }
      const oldRefreshToken = current?.refreshToken ?? (auth.kind === "oauth2-authorization-code" ? connection.fields[auth.refreshTokenField] : undefined);
      const entry = await refreshOnce(ctx, current, operation);
      await persistTokens(entry, oldRefreshToken, operation, false);
      return entry;
    };
  }

  /** Not expired, with a second to spare for the request that will carry it. */
  function stillValid(entry: TokenEntry): boolean {
    return entry.expiresAt === undefined || entry.expiresAt > Date.now() + 1000;
  }

  /**
   * One refresh. When the service refuses the refresh token (invalid_grant), the store is read once
   * more before the connection is declared dead: another worker may have rotated it a moment ago.
   */
  async function refreshOnce(ctx: TokenRequestContext, from: TokenEntry | undefined, operation: string): Promise<TokenEntry> {
    try {
      const entry = await refreshAuthorizationCode(ctx, from);
      emit(hooks, { type: "token", ...base, operation, action: "refreshed", expiresAt: entry.expiresAt ? new Date(entry.expiresAt).toISOString() : undefined });
      return entry;
    } catch (error) {
      if (!(error instanceof StepforgeError) || error.kind !== "auth" || !options.store) throw error;
      const latest = storedEntry(await options.store.get(descriptor.id, connection.name).catch(() => undefined));
      if (!latest || latest.refreshToken === from?.refreshToken) throw error;
      if (latest.accessToken && latest.accessToken !== from?.accessToken && stillValid(latest)) return latest;
      const entry = await refreshAuthorizationCode(ctx, latest);
      emit(hooks, { type: "token", ...base, operation, action: "refreshed", expiresAt: entry.expiresAt ? new Date(entry.expiresAt).toISOString() : undefined });
      return entry;
    }
  }

  /** One shared attempt at the token endpoint: retried with backoff by whoever renews, waited for by everyone else. */
  function renewalRetry(state: CallState): RenewalRetry {
    return {
      attempts: retry.attempts,
      // Equal jitter (half fixed, half random): one attempt speaks for every caller, so its waits
      // should add up to a predictable span that rides out a short outage.
      delayMs: (n) => {
        const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** n);
        return Math.round(ceiling / 2 + (retry.random() * ceiling) / 2);
      },
      retryable: (error) => error instanceof StepforgeError && error.retryable,
      onRetry: (error, n, delayMs) => {
        const kind = error instanceof StepforgeError ? error.kind : "error";
        emit(hooks, { type: "retry", ...base, operation: state.op.operationId, attempt: n, delayMs, reason: `token ${kind}`, retryAfter: false });
      },
    };
  }

  async function accessTokenFor(state: CallState): Promise<string | undefined> {
    if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return undefined;
    const entry = await abortable(shared.tokens.get(tokenKey, renewBeforeMs, renewToken(state.op.operationId), renewalRetry(state)), state.signal);
    secrets.add(entry.accessToken);
    if (entry.refreshToken) secrets.add(entry.refreshToken);
    return entry.accessToken;
  }

  function details(state: CallState) {
    return { service: descriptor.id, operation: state.op.operationId, retries: state.retries };
  }

  function aborted(state: CallState): AbortedError {
    return new AbortedError(`${descriptor.title} ${state.op.operationId}: cancelled by the caller`, details(state));
  }

  /**
   * The limiter's wait with `maxLimitWaitMs` applied: when the limiter says a call will be held
   * longer (a finite estimate; a full concurrency slot has none), the wait is abandoned and the call
   * fails with `tooLong`. The abort is deferred: the limiter reports the wait from inside its queue
   * walk, which must not see its queue change under it.
   */
  function boundedWait(state: CallState, onThrottle: ((limit: string, waitMs: number) => void) | undefined) {
    const max = options.maxLimitWaitMs;
    if (max === undefined) return { signal: state.signal, onThrottle, tooLong: undefined };
    const stop = new AbortController();
    const out: { signal: AbortSignal; onThrottle: (limit: string, waitMs: number) => void; tooLong: StepforgeError | undefined } = {
      signal: combineSignals(state.signal, stop.signal)!,
      tooLong: undefined,
      onThrottle: (limit, waitMs) => {
        onThrottle?.(limit, waitMs);
        if (!Number.isFinite(waitMs) || waitMs <= max || out.tooLong) return;
        out.tooLong = createError(
          "rate_limited",
          `${descriptor.title} ${state.op.operationId}: the client-side limit "${limit}" would hold this call about ${Math.max(1, Math.round(waitMs / 1000))} s, longer than the ${max} ms allowed; nothing was sent`,
          { ...details(state), retryable: true, retryAfterMs: Math.ceil(waitMs) },
        );
        queueMicrotask(() => stop.abort(out.tooLong));
      },
    };
    return out;
  }

  /** Waits before the next attempt; false when the wait would exceed the call's budget. */
  async function pause(state: CallState, delayMs: number, reason: string, fromService: boolean): Promise<boolean> {
    if (state.retries >= retry.attempts || state.waitedMs + delayMs > retry.maxTotalWaitMs) return false;
    emit(hooks, { type: "retry", ...base, operation: state.op.operationId, attempt: state.attempts, delayMs, reason, retryAfter: fromService });
    try {
      await sleep(delayMs, state.signal);
    } catch {
      throw aborted(state);
    }
    state.waitedMs += delayMs;
    state.retries++;
    return true;
  }

  // The limits each operation counts against, with their shared state (planned once per operation,
  // or per path value when a limit counts per board/workspace or looks at the concrete path).
  const plans = new Map<string, PlannedLimit[]>();

  async function transport(request: PreparedRequest, state: CallState): Promise<unknown> {
    const { op } = state;
    const { method, body } = request;
    const planId = op.operationId + planKey(limits, op, request.pathValues);
    let planned = plans.get(planId);
    if (!planned) {
      planned = shared.limits.plan(descriptor.id, limits, op, scopes, request.pathValues);
      if (plans.size >= 4096) plans.clear(); // path-keyed plans: one per value seen, kept bounded
      plans.set(planId, planned);
    }
    const onThrottle = hooks ? (limit: string, waitMs: number) => emit(hooks, { type: "throttle", ...base, operation: op.operationId, limit, waitMs }) : undefined;

    for (;;) {
      if (state.signal?.aborted) throw aborted(state);
      let ticket: Ticket;
      const bounded = boundedWait(state, onThrottle);
      try {
        ticket = await shared.limits.acquire(planned, { signal: bounded.signal, onThrottle: bounded.onThrottle });
      } catch (error) {
        if (bounded.tooLong) throw bounded.tooLong;
        if (error instanceof QuotaRefusedError) {
          throw createError("quota_exhausted", `${descriptor.title} ${op.operationId}: ${error.refusal.message}`, {
            ...details(state),
            code: error.refusal.limit.rejection.code,
            status: error.refusal.limit.rejection.status,
            retryable: false,
            resetsAt: error.refusal.resetsAt.toISOString(),
          });
        }
        // The shared limits could not be consulted: `call` turns it into a NetworkError (state_unreachable).
        if (isStateUnavailable(error)) throw error;
        throw aborted(state);
      }

      const attempt = state.attempts++;
      const url = new URL(request.url);
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), retry.timeoutMs);
      const signal = combineSignals(state.signal, timeout.signal)!;
      let accessToken: string | undefined;
      let response: Response | undefined;
      let bytes: ArrayBuffer;
      const started = Date.now();
      try {
        try {
          accessToken = await accessTokenFor(state);
        } catch (error) {
          ticket.release({ sent: false });
          if (state.signal?.aborted) throw aborted(state);
          // A token endpoint that timed out, dropped the connection or answered 5xx was already
          // retried with backoff by the one shared renewal; its final failure is this call's answer.
          if (error instanceof StepforgeError) error.retries = state.retries;
          throw error;
        }
        const headers = new Headers(request.headers);
        applyCredentialsTo(descriptor, connection, url, headers, accessToken);
        if (hooks) emit(hooks, { type: "request", ...base, operation: op.operationId, method, url: showUrl(url.toString()), attempt });
        try {
          response = await send(url.href, { method, headers, body, signal, redirect: "manual" });
          bytes = await response.arrayBuffer();
        } catch (error) {
          const sent = response !== undefined || !neverSent(error);
          ticket.release({ sent, headers: response?.headers });
          if (state.signal?.aborted) throw aborted(state);
          const timedOut = timeout.signal.aborted;
          // Sent and not idempotent: it may have been carried out, so the caller must not just repeat it.
          const unknown = sent && !op.idempotent;
          const failure = timedOut
            ? new TimeoutError("timeout", `${descriptor.title} ${op.operationId}: no complete answer within ${retry.timeoutMs} ms`, {
                ...details(state),
                retryable: !unknown,
                outcomeUnknown: unknown,
              })
            : new NetworkError("network", clean(`${descriptor.title} ${op.operationId}: could not reach ${showUrl(url.origin)}: ${innerMessage(error)}`), {
                ...details(state),
                retryable: !unknown,
                outcomeUnknown: unknown,
              });
          // A request that may have reached the server is resent only when the operation is idempotent.
          const mayResend = !sent || op.idempotent;
          if (mayResend && (await pause(state, backoffDelay(state.retries, retry), timedOut ? "timeout" : "network", false))) continue;
          failure.retries = state.retries;
          throw failure;
        }
      } finally {
        clearTimeout(timer);
      }

      ticket.release({ sent: true, headers: response.headers });
      const parsed = parseBody(bytes, response.headers.get("content-type"));
      const failure = findFailure(descriptor, response, parsed);
      const requestId = requestIdOf(descriptor, response, parsed);
      if (hooks) emit(hooks, {
        type: "response",
        ...base,
        operation: op.operationId,
        method,
        url: showUrl(url.toString()),
        attempt,
        status: response.status,
        code: failure?.code,
        ok: !failure,
        durationMs: Date.now() - started,
        requestId,
      });
      if (!failure) return parsed;

      if (failure.rule.reauth && accessToken !== undefined && !state.reauthed) {
        // Renew once (shared with every call that got the same answer for the same token) and repeat once.
        state.reauthed = true;
        if (shared.tokens.invalidate(tokenKey, accessToken)) {
          emit(hooks, { type: "token", ...base, operation: op.operationId, action: "invalidated" });
        }
        emit(hooks, { type: "retry", ...base, operation: op.operationId, attempt, delayMs: 0, reason: "reauth", retryAfter: false });
        continue;
      }

      const retryAfterMs = retryAfterOf(descriptor, response);
      const { refusal, waitMs: windowWaitMs } = shared.limits.noteRejection(planned, response.status, failure.code, retryAfterMs);
      const what = failure.code ? `${failure.code} ` : "";
      // A 5xx that does not say the service did nothing leaves a non-idempotent write undecided.
      const unknown = failure.rule.kind === "server" && !op.idempotent && !resendSafe(failure.rule, response.status);
      const error = createError(failure.rule.kind, clean(`${descriptor.title} ${op.operationId}: ${what}${failure.message}${refusal ? ` (${refusal.message})` : ""}`), {
        ...details(state),
        status: failure.status,
        code: failure.code,
        requestId,
        retryable: failure.rule.retry && !unknown,
        outcomeUnknown: unknown,
        retryAfterMs,
        resetsAt: refusal?.resetsAt.toISOString(),
      });
      if (failure.rule.retry && !refusal && (op.idempotent || resendSafe(failure.rule, response.status))) {
        // A declared window the service says is full: wait it out (the limiter holds every other caller too).
        const delay = retryAfterMs ?? windowWaitMs ?? backoffDelay(state.retries, retry);
        const reason = failure.code ? `code ${failure.code}` : `status ${response.status}`;
        if (await pause(state, delay, reason, retryAfterMs !== undefined)) continue;
      }
      error.retries = state.retries;
      throw error;
    }
  }

  const serializers = new Map<string, (query: Record<string, unknown>) => string>();

  async function call(operationId: string, init: object = {}): Promise<unknown> {
    const op = operationOf(descriptor, operationId);
    const { signal, ...rest } = init as { signal?: AbortSignal } & CallInit;
    const state: CallState = {
      op,
      // Each call waits on its own signal: waits add abort listeners, and many calls listening on the
      // client's one signal would trip Node's "possible EventTarget memory leak" warning.
      signal: options.signal && !signal ? AbortSignal.any([options.signal]) : combineSignals(options.signal, signal),
      retries: 0,
      attempts: 0,
      waitedMs: 0,
      reauthed: false,
    };
    if (state.signal?.aborted) throw aborted(state);
    // A value that would resolve to another address is refused before anything is sent.
    for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
      const problem = pathValueProblem(rest.params?.path?.[name!]);
      if (problem) {
        throw createError("validation", `${descriptor.title} ${op.operationId}: path parameter "${name}" refused: ${problem}; give the id of the ${name === "id" ? "resource" : name} itself`, {
          service: descriptor.id,
          operation: op.operationId,
          code: UNSAFE_PATH_VALUE,
          retryable: false,
        });
      }
    }
    let querySerializer = serializers.get(op.operationId);
    if (!querySerializer) {
      querySerializer = querySerializerFor(op) ?? defaultQuery;
      serializers.set(op.operationId, querySerializer);
    }
    return transport(prepareRequest(baseUrl, op, rest, querySerializer), state).catch((error: unknown) => {
      // Shared limits or tokens could not be consulted: nothing was sent, and the caller may try again.
      if (isStateUnavailable(error)) {
        throw new NetworkError("network", `${descriptor.title} ${operationId}: ${error.message}`, { ...details(state), code: error.code, retryable: true });
      }
      throw error;
    });
  }

  function pages(operationId: string, init: object = {}, pagingOptions: PagingOptions = {}): AsyncIterable<Page> {
    const op = operationOf(descriptor, operationId);
    if (!op.paging) throw new Error(`${descriptor.id}: operation "${operationId}" declares no paging (x-stepforge-paging); use call()`);
    return iteratePages(descriptor.id, op, (pageInit) => call(operationId, pageInit), init as never, pagingOptions);
  }

  async function* items(operationId: string, init: object = {}, pagingOptions: PagingOptions = {}): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pages(operationId, init, pagingOptions)) yield* page.items;
  }

  return { descriptor, baseUrl, connectionName: connection.name, call, pages, items };
}

const defaultQuery = createQuerySerializer();

/**
 * openapi-fetch serialises every array the same way; this sends the operation's `explode: false`
 * parameters as one delimited value (Marketo's filterValues=a,b) and the rest as usual.
 */
export function querySerializerFor(op: OperationDescriptor): ((query: Record<string, unknown>) => string) | undefined {
  const delimited = op.delimitedQuery;
  if (!delimited || Object.keys(delimited).length === 0) return undefined;
  return (query) => {
    const parts: string[] = [];
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      const style = delimited[name];
      const part = Array.isArray(value) && style ? serializeArrayParam(name, value, { style, explode: false }) : defaultQuery({ [name]: value });
      if (part) parts.push(part);
    }
    return parts.join("&");
  };
}

export function operationOf(descriptor: ServiceDescriptor, operationId: string): OperationDescriptor {
  // Own keys only: "toString" must not find Object.prototype.toString.
  const op = Object.hasOwn(descriptor.operations, operationId) ? descriptor.operations[operationId] : undefined;
  if (!op) throw new Error(`${descriptor.id} has no operation "${operationId}"`);
  return op;
}
