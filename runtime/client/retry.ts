/**
 * Retry policy: how long to wait before the next attempt, and whether a failed attempt may be sent
 * again at all.
 */
import type { ErrorRule } from "../descriptor.js";

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
export function resendSafe(rule: ErrorRule, status: number): boolean {
  if (rule.resendSafe !== undefined) return rule.resendSafe;
  return rule.kind === "rate_limited" || rule.kind === "quota_exhausted" || status === 503 || status === 429;
}

/** Transport error codes that mean the request never reached the server. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT", "ERR_INVALID_URL"]);

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
