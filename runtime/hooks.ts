/**
 * What the request pipeline tells the outside world, as events (docs/runtime.md lists them).
 * Silent by default: nothing is built or printed unless the caller passes hooks or observers.
 *
 * - `hooks` get the five request-level events (request, response, retry, throttle, token), each
 *   through its own function and then `onEvent`, as they always did.
 * - `observers` get every event, the call and attempt lifecycle included: call start and end,
 *   attempt start and end. Tracing and a call log attach here (issue 23), not inside the pipeline.
 *
 * Every event carries the id of the call it belongs to (`callId`, unique in the process), so an
 * observer can pair a call's start with its end and its attempts with the call. Events are built
 * from redacted data (URLs pass through `redactUrl`; no header, body or token value is included),
 * so an observer can log an event as it is. A throwing hook or observer never breaks a call.
 */

interface EventBase {
  service: string;
  /** The operation id, when the event belongs to a call. */
  operation?: string | undefined;
  /** The connection name. */
  connection: string;
  /** The call the event belongs to (a token renewal: the call that needed the token). */
  callId: string;
}

export interface RequestEvent extends EventBase {
  type: "request";
  method: string;
  /** Redacted. */
  url: string;
  /** 0 for the first attempt. */
  attempt: number;
}

export interface ResponseEvent extends EventBase {
  type: "response";
  method: string;
  url: string;
  attempt: number;
  status: number;
  /** The service's error code when the answer was a failure (HTTP or envelope). */
  code?: string | undefined;
  ok: boolean;
  durationMs: number;
  requestId?: string | undefined;
}

export interface RetryEvent extends EventBase {
  type: "retry";
  attempt: number;
  delayMs: number;
  /** Why: `status 429`, `code 606`, `timeout`, `network`, `reauth`, `token server`. */
  reason: string;
  /** Whether the delay came from the service's Retry-After. */
  retryAfter: boolean;
}

export interface ThrottleEvent extends EventBase {
  type: "throttle";
  /** The declared limit that made the call wait. */
  limit: string;
  /** How long the limiter expects the wait to be (Infinity: until a call in flight ends). */
  waitMs: number;
}

export interface TokenEvent extends EventBase {
  type: "token";
  action: "fetched" | "refreshed" | "invalidated" | "rotated" | "failed";
  /** When the new token expires (ISO 8601), if known. */
  expiresAt?: string | undefined;
}

/**
 * A success answer differs from the spec's schema for it (`validate: "warn"` or `"strict"`): one
 * event per difference. Carries the JSON type seen, never the value.
 */
export interface DriftEvent extends EventBase {
  type: "drift";
  operation: string;
  status: number;
  /** What differs: `type`, `missing-field`, `undocumented-field`, `enum`, … (runtime/observe/conformance.ts). */
  kind: string;
  /** JSON pointer into the body: `/body/labels/0/color`. */
  pointer: string;
  /** What the spec says, in words: `type string`, `required`, `not in the spec`. */
  expected: string;
  /** The JSON type of the value seen (absent for a missing value). */
  got?: string | undefined;
}

/** A call begins (before limits, tokens or anything is sent). */
export interface CallStartEvent extends EventBase {
  type: "call_start";
  operation: string;
  method: string;
  /** The operation's path template (`/1/cards/{id}`): no values, so nothing secret or high-cardinality. */
  urlTemplate: string;
}

/** A call is over: resolved with the success body, or rejected with a typed error. */
export interface CallEndEvent extends EventBase {
  type: "call_end";
  operation: string;
  outcome: "success" | "failure";
  /** The error's kind (`rate_limited`, `auth`, `timeout`, …) when the call failed. */
  errorKind?: string | undefined;
  /** The last answer's HTTP status, if one came. */
  status?: number | undefined;
  /** Whether a failed write may still have been carried out (see StepforgeError.outcomeUnknown). */
  outcomeUnknown?: boolean | undefined;
  /** Requests sent (0 when the call failed before sending: a refused quota, a token failure). */
  attempts: number;
  retries: number;
  durationMs: number;
}

/** Which request an attempt event is about: the same fields when it starts and when it ends. */
interface AttemptBase extends EventBase {
  operation: string;
  /** 0 for the first attempt. */
  attempt: number;
  /** Times this request was sent before (OpenTelemetry's http.request.resend_count). */
  resendCount: number;
  method: string;
  urlTemplate: string;
  /** Host name of the address the request goes to. */
  serverAddress: string;
  serverPort?: number | undefined;
}

/** One request is about to be sent (after the limits admitted it and the credentials are on). */
export interface AttemptStartEvent extends AttemptBase {
  type: "attempt_start";
}

/** One request is over: answered (any status), timed out or failed on the network. */
export interface AttemptEndEvent extends AttemptBase {
  type: "attempt_end";
  /** The HTTP status, when an answer came. */
  status?: number | undefined;
  /**
   * Why the attempt failed, low-cardinality: the error kind of a failed answer (`rate_limited`,
   * `server`, …) or `timeout` / `network` when no answer came. Absent on success.
   */
  errorType?: string | undefined;
  durationMs: number;
}

/** What one declared limit has left, right after it admitted a request. */
export interface BudgetReading {
  /** The limit's id. */
  limit: string;
  /** Whose budget it is, as the spec declares it: `connection`, `field:apiKey`, `path:idBoard`. */
  per: string;
  /** Requests (or, for a header quota with a cost header, the service's cost units) still allowed now. */
  remaining: number;
  unit: "request" | "cost";
}

/**
 * A request was admitted under the client's declared limits (once per attempt): what each limit it
 * counts against has left. Only observers that name it receive it (the metrics' budget gauge); a
 * limit whose budget is unknown (a header quota the service has not reported yet) is left out.
 */
export interface BudgetEvent extends EventBase {
  type: "budget";
  operation: string;
  limits: BudgetReading[];
}

/** The events `hooks` receive. */
export type RuntimeEvent = RequestEvent | ResponseEvent | RetryEvent | ThrottleEvent | TokenEvent | DriftEvent;

/** Every event the pipeline emits: what observers receive. */
export type PipelineEvent =
  | RuntimeEvent
  | CallStartEvent
  | CallEndEvent
  | AttemptStartEvent
  | AttemptEndEvent
  | BudgetEvent;

export interface Hooks {
  onRequest?: (event: RequestEvent) => void;
  onResponse?: (event: ResponseEvent) => void;
  onRetry?: (event: RetryEvent) => void;
  onThrottle?: (event: ThrottleEvent) => void;
  onToken?: (event: TokenEvent) => void;
  /** A success answer differs from the spec (response validation, `validate: "warn"`). */
  onDrift?: (event: DriftEvent) => void;
  /** Every request-level event (the six above), after its specific hook. */
  onEvent?: (event: RuntimeEvent) => void;
}

/** Receives every event of every call of a client, in the order they happen. */
export interface Observer {
  onEvent(event: PipelineEvent): void;
  /**
   * The event types this observer reads; the pipeline need not build the others for it (absent:
   * every type). A tracer names no `request` or `response`, so no address is masked for it.
   */
  readonly eventTypes?: readonly PipelineEvent["type"][] | undefined;
}

/** The hooks that can take an event of type `T` (the specific one, and `onEvent`). */
type HookFor<T extends RuntimeEvent["type"]> = {
  [H in keyof Hooks]-?: Extract<RuntimeEvent, { type: T }> extends Parameters<NonNullable<Hooks[H]>>[0] ? H : never;
}[keyof Hooks];

/** The hook each event type calls before `onEvent`. */
const HOOK_OF: { readonly [T in RuntimeEvent["type"]]: Exclude<HookFor<T>, "onEvent"> } = {
  request: "onRequest",
  response: "onResponse",
  retry: "onRetry",
  throttle: "onThrottle",
  token: "onToken",
  drift: "onDrift",
};

/** Calls the hooks for `event`; a throwing hook never breaks a call. */
export function emit(hooks: Hooks | undefined, event: RuntimeEvent): void {
  if (!hooks) return;
  try {
    // HOOK_OF's type pairs each event type with a hook that takes that event.
    (hooks[HOOK_OF[event.type]] as ((event: RuntimeEvent) => void) | undefined)?.(event);
    hooks.onEvent?.(event);
  } catch {
    // Observability must not change behaviour.
  }
}
