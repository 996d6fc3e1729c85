/**
 * Retry policy: after a failed attempt, what next — retry after a delay, renew the token once, or
 * give up — and whether a failed write's outcome is unknown (it may have been carried out, so it
 * is neither resent nor reported as retryable). Pure decisions: the loop (transport.ts) waits.
 */
import type { ShippedErrorRule, OperationDescriptor } from "../descriptor.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  attempts?: number | undefined;
  /** First backoff ceiling in ms (default 500); doubles per retry. */
  baseDelayMs?: number | undefined;
  /** Largest backoff ceiling in ms (default 30 000). */
  maxDelayMs?: number | undefined;
  /**
   * Most time in ms one call may spend waiting between attempts (default 60 000). A Retry-After
   * that would take the call past it ends the call at once with the service's error (which carries
   * `retryAfterMs`), rather than being shortened or ignored.
   */
  maxTotalWaitMs?: number | undefined;
  /** Time limit in ms for one attempt, response body included (default 30 000). */
  timeoutMs?: number | undefined;
  /** Source of randomness for jitter, in [0, 1) (tests pass a fixed one). */
  random?: (() => number) | undefined;
}

export type ResolvedRetry = Required<RetryOptions>;

export function resolveRetry(options: RetryOptions = {}): ResolvedRetry {
  const r: ResolvedRetry = {
    attempts: options.attempts ?? 3,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxTotalWaitMs: options.maxTotalWaitMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 30_000,
    random: options.random ?? Math.random,
  };
  for (const key of ["attempts", "baseDelayMs", "maxDelayMs", "maxTotalWaitMs", "timeoutMs"] as const) {
    const v = r[key];
    if (typeof v !== "number" || Number.isNaN(v) || v < 0) throw new RangeError(`retry.${key} must be a number ≥ 0`);
  }
  if (r.timeoutMs === 0) throw new RangeError("retry.timeoutMs must be > 0");
  return r;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^retry)]. */
export function backoffDelay(retry: number, options: ResolvedRetry): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.round(options.random() * ceiling);
}

/**
 * Whether the service certainly did not act on a refused request, so that even a
 * non-idempotent call may be sent again.
 */
export function resendSafe(rule: ShippedErrorRule, status: number): boolean {
  if (rule.resendSafe !== undefined) return rule.resendSafe;
  return rule.kind === "rate_limited" || rule.kind === "quota_exhausted" || status === 503 || status === 429;
}

/** Transport error codes that mean the request never reached the server. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_INVALID_URL",
]);

/** The first `code` along an error's cause chain (undici puts the socket error under `cause`). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The innermost readable message of an error chain. */
export function innerMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof Error && current.message) message = current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

export function neverSent(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_SENT.has(code);
}

/** What the loop does after a failed attempt (a refused token is decided first, by `shouldRenew`). */
export type NextStep =
  | { action: "retry"; delayMs: number; reason: string; fromService: boolean }
  | { action: "give_up" };

const GIVE_UP: NextStep = { action: "give_up" };

/**
 * No complete answer came. Sent and not idempotent: the outcome is unknown, and the request is not
 * resent; otherwise it is retried after a backoff.
 */
export function afterNoAnswer(
  op: OperationDescriptor,
  sent: boolean,
  timedOut: boolean,
  retries: number,
  retry: ResolvedRetry,
): NextStep {
  if (unknownWithoutAnswer(op, sent)) return GIVE_UP;
  return {
    action: "retry",
    delayMs: backoffDelay(retries, retry),
    reason: timedOut ? "timeout" : "network",
    fromService: false,
  };
}

/** A write that was sent and got no answer may have been carried out. */
export function unknownWithoutAnswer(op: OperationDescriptor, sent: boolean): boolean {
  return sent && !op.idempotent;
}

/** A 5xx that does not say the service did nothing leaves a non-idempotent write undecided. */
export function unknownAfterFailure(op: OperationDescriptor, rule: ShippedErrorRule, status: number): boolean {
  return rule.kind === "server" && !op.idempotent && !resendSafe(rule, status);
}

/**
 * The service refused the token a call carried (a rule with `reauth`): renew it once (shared with
 * every call that got the same answer for the same token) and repeat the call once.
 */
export function shouldRenew(rule: ShippedErrorRule, carriedToken: boolean, renewedBefore: boolean): boolean {
  return rule.reauth && carriedToken && !renewedBefore;
}

export interface FailedAnswer {
  rule: ShippedErrorRule;
  status: number;
  code?: string | undefined;
  /** The service's Retry-After, in ms. */
  retryAfterMs: number | undefined;
  /** How long a declared window the service says is full stays shut (the limiter's view). */
  windowWaitMs: number | undefined;
  /** The answer spent a quota: nothing more today. */
  quotaSpent: boolean;
}

/**
 * The service answered with a failure. Retried when its rule says so, no quota is spent, and
 * sending it again cannot do the work twice (idempotent, or the service certainly did nothing).
 * The wait: the service's Retry-After, else the declared window's (the limiter holds every other
 * caller too), else a backoff.
 */
export function afterFailure(
  op: OperationDescriptor,
  failed: FailedAnswer,
  retries: number,
  retry: ResolvedRetry,
): NextStep {
  const { rule, status } = failed;
  if (!rule.retry || failed.quotaSpent || !(op.idempotent || resendSafe(rule, status))) return GIVE_UP;
  const delayMs = failed.retryAfterMs ?? failed.windowWaitMs ?? backoffDelay(retries, retry);
  const reason = failed.code ? `code ${failed.code}` : `status ${status}`;
  return { action: "retry", delayMs, reason, fromService: failed.retryAfterMs !== undefined };
}

/** Whether one more pause of `delayMs` fits the call's budget (retries and total wait). */
export function withinBudget(retries: number, waitedMs: number, delayMs: number, retry: ResolvedRetry): boolean {
  return retries < retry.attempts && waitedMs + delayMs <= retry.maxTotalWaitMs;
}
