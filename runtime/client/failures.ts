/**
 * The typed errors a call ends with, one builder per way it can fail, so every part words them
 * the same way: `<Service title> <operationId>: what happened; what to do`, secrets masked.
 */
import type { ShippedErrorRule } from "../descriptor.js";
import {
  AbortedError,
  ConnectionError,
  createError,
  NetworkError,
  redactUrl,
  type StepforgeError,
  TimeoutError,
} from "../errors.js";
import type { QuotaRefusal } from "../limits/limits.js";
import type { StateUnavailableError } from "../state/types.js";
import type { CallState, ClientContext } from "./context.js";
import type { ServiceFailure } from "./classify.js";
import { innerMessage } from "./retry.js";

/** The fields every error of a call carries. */
export function details(ctx: ClientContext, call: CallState): { service: string; operation: string; retries: number } {
  return { service: ctx.descriptor.id, operation: call.op.operationId, retries: call.retries };
}

/** The error code of a path parameter refused before sending (`.`, `..`, empty). */
export const UNSAFE_PATH_VALUE = "UNSAFE_PATH_VALUE";

function what(ctx: ClientContext, call: CallState): string {
  return `${ctx.descriptor.title} ${call.op.operationId}`;
}

export function aborted(ctx: ClientContext, call: CallState): AbortedError {
  return new AbortedError(`${what(ctx, call)}: cancelled by the caller`, details(ctx, call));
}

export function unsafePathValue(ctx: ClientContext, call: CallState, name: string, problem: string): StepforgeError {
  const fix = `give the id of the ${name === "id" ? "resource" : name} itself`;
  return createError("validation", `${what(ctx, call)}: path parameter "${name}" refused: ${problem}; ${fix}`, {
    service: ctx.descriptor.id,
    operation: call.op.operationId,
    code: UNSAFE_PATH_VALUE,
    retryable: false,
  });
}

/** The base address (an override) does not parse: nothing can be sent; the address is shown masked. */
export function invalidBase(ctx: ClientContext, call: CallState): ConnectionError {
  const shown = redactUrl(ctx.baseUrl, ctx.credentials.secrets);
  const message = `${what(ctx, call)}: the base address ${shown} is not a valid address; fix the baseUrl option`;
  return new ConnectionError(message, { service: ctx.descriptor.id, operation: call.op.operationId, field: undefined });
}

/** A client-side limit would hold the call longer than the caller allows (`maxLimitWaitMs`). */
export function waitTooLong(
  ctx: ClientContext,
  call: CallState,
  limit: string,
  waitMs: number,
  maxMs: number,
): StepforgeError {
  const seconds = Math.max(1, Math.round(waitMs / 1000));
  const held = `would hold this call about ${seconds} s, longer than the ${maxMs} ms allowed`;
  const message = `the client-side limit "${limit}" ${held}`;
  return createError("rate_limited", `${what(ctx, call)}: ${message}; nothing was sent`, {
    ...details(ctx, call),
    retryable: true,
    retryAfterMs: Math.ceil(waitMs),
  });
}

/** A daily, monthly or reported quota is spent: no call can be made before it resets. */
export function quotaRefused(ctx: ClientContext, call: CallState, refusal: QuotaRefusal): StepforgeError {
  return createError("quota_exhausted", `${what(ctx, call)}: ${refusal.message}`, {
    ...details(ctx, call),
    code: refusal.limit.rejection.code,
    status: refusal.limit.rejection.status,
    retryable: false,
    resetsAt: refusal.resetsAt.toISOString(),
  });
}

/** Shared limits or tokens could not be consulted: nothing was sent, and the caller may try again. */
export function stateUnreachable(ctx: ClientContext, call: CallState, error: StateUnavailableError): NetworkError {
  return new NetworkError("network", `${what(ctx, call)}: ${error.message}`, {
    ...details(ctx, call),
    code: error.code,
    retryable: true,
  });
}

/**
 * No complete answer came: the attempt timed out or the network failed. `unknown`: a write that
 * is not idempotent was sent, so it may have been carried out and must not just be repeated.
 */
export function noAnswer(
  ctx: ClientContext,
  call: CallState,
  failure: { timedOut: boolean; unknown: boolean; cause: unknown; origin: string },
): StepforgeError {
  const flags = { ...details(ctx, call), retryable: !failure.unknown, outcomeUnknown: failure.unknown };
  if (failure.timedOut) {
    return new TimeoutError(
      "timeout",
      `${what(ctx, call)}: no complete answer within ${ctx.retry.timeoutMs} ms`,
      flags,
    );
  }
  const message = `${what(ctx, call)}: could not reach ${ctx.showUrl(failure.origin)}: ${innerMessage(failure.cause)}`;
  return new NetworkError("network", ctx.clean(message), flags);
}

/** The service answered with a failure its rules (or HTTP) classify. */
export function serviceFailed(
  ctx: ClientContext,
  call: CallState,
  failure: ServiceFailure,
  answer: {
    requestId: string | undefined;
    retryAfterMs: number | undefined;
    refusal: QuotaRefusal | undefined;
    unknown: boolean;
  },
): StepforgeError {
  const code = failure.code ? `${failure.code} ` : "";
  const refusal = answer.refusal ? ` (${answer.refusal.message})` : "";
  const rule: ShippedErrorRule = failure.rule;
  return createError(rule.kind, ctx.clean(`${what(ctx, call)}: ${code}${failure.message}${refusal}`), {
    ...details(ctx, call),
    status: failure.status,
    code: failure.code,
    requestId: answer.requestId,
    retryable: rule.retry && !answer.unknown,
    outcomeUnknown: answer.unknown,
    retryAfterMs: answer.retryAfterMs,
    resetsAt: answer.refusal?.resetsAt.toISOString(),
  });
}
