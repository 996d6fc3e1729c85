/**
 * A request's life (docs/runtime.md): build the request once, then loop over attempts —
 * admission under the declared limits → the credentials (an OAuth token fetched or renewed when
 * due) → one attempt (send, timeout, read, parse) → classification of the answer → the retry
 * policy's decision (return, retry after a pause, renew the token once, or throw a typed error).
 * Each step is its own part; this file only strings them together and reports events.
 */
import { StepforgeError } from "../errors.js";
import type { OperationDescriptor } from "../descriptor.js";
import { sleep } from "../internal/time.js";
import type { Ticket } from "../limits/limits.js";
import type { Credentialed } from "../credentials/placing.js";
import { isStateUnavailable } from "../state/types.js";
import { sendAttempt } from "./attempt.js";
import { classifyAnswer } from "./classify.js";
import type { CallOptions, CallState, ClientContext } from "./context.js";
import { aborted, invalidBase, noAnswer, serviceFailed, stateUnreachable, unsafePathValue } from "./failures.js";
import { newCallId } from "./observer.js";
import {
  admitted,
  answered,
  type AttemptInfo,
  attemptEnded,
  attemptStarted,
  callEnded,
  callStarted,
  retrying,
} from "./report.js";
import type { CallInit, PreparedRequest } from "./request.js";
import {
  afterFailure,
  afterNoAnswer,
  type NextStep,
  shouldRenew,
  unknownAfterFailure,
  unknownWithoutAnswer,
  withinBudget,
} from "./retry.js";

/** Runs one call of `op`; resolves to the parsed success body or rejects with a StepforgeError. */
export function callOperation(
  ctx: ClientContext,
  op: OperationDescriptor,
  init: CallOptions & CallInit,
): Promise<unknown> {
  // The builder reads only params, body and headers: no copy of init without the call options.
  const request: CallInit = init;
  const { hooks } = init;
  const observed = ctx.events.active || hooks !== undefined;
  const call: CallState = {
    op,
    callId: observed ? newCallId() : "",
    signal: callSignal(ctx.signal, init.signal),
    maxLimitWaitMs: init.maxLimitWaitMs ?? ctx.maxLimitWaitMs,
    startedAt: Date.now(),
    retries: 0,
    attempts: 0,
    waitedMs: 0,
    reauthed: false,
    lastStatus: undefined,
  };
  if (!observed) return run(ctx, call, request);
  // The call's own hooks hear its events, from its start to its end, and no other call's.
  if (hooks) ctx.events.attach(call.callId, hooks);
  callStarted(ctx, call);
  return run(ctx, call, request).then(
    (data) => {
      callEnded(ctx, call);
      if (hooks) ctx.events.detach(call.callId);
      return data;
    },
    (error: unknown) => {
      callEnded(ctx, call, error);
      if (hooks) ctx.events.detach(call.callId);
      throw error;
    },
  );
}

/**
 * Each call waits on its own signal: waits add abort listeners, and many calls listening on the
 * client's one signal would trip Node's "possible EventTarget memory leak" warning.
 */
function callSignal(client: AbortSignal | undefined, own: AbortSignal | undefined): AbortSignal | undefined {
  if (client && own) return AbortSignal.any([client, own]);
  return client ? AbortSignal.any([client]) : own;
}

/** Checks what can be checked before anything is sent, builds the request once, and runs the loop. */
function run(ctx: ClientContext, call: CallState, init: CallInit): Promise<unknown> {
  if (call.signal?.aborted) return Promise.reject(aborted(ctx, call));
  if (ctx.requests.baseInvalid) return Promise.reject(invalidBase(ctx, call));
  // A value that would resolve to another address is refused before anything is sent.
  const unsafe = ctx.requests.unsafePathValue(call.op, init);
  if (unsafe) return Promise.reject(unsafePathValue(ctx, call, unsafe.name, unsafe.problem));
  let request: PreparedRequest;
  try {
    request = ctx.requests.build(call.op, init);
  } catch (error) {
    return Promise.reject(error);
  }
  return transport(ctx, call, request);
}

/** The loop over attempts: admission → credentials → attempt → classification → retry policy. */
async function transport(ctx: ClientContext, call: CallState, request: PreparedRequest): Promise<unknown> {
  try {
    return await attempts(ctx, call, request);
  } catch (error) {
    // Shared limits or tokens could not be consulted: nothing was sent, and the caller may try again.
    if (isStateUnavailable(error)) throw stateUnreachable(ctx, call, error);
    throw error;
  }
}

async function attempts(ctx: ClientContext, call: CallState, request: PreparedRequest): Promise<unknown> {
  const { op } = call;
  const planned = ctx.admission.plan(op, request.pathValues);
  for (;;) {
    if (call.signal?.aborted) throw aborted(ctx, call);
    const ticket = ctx.admission.admitNow(call, planned) ?? (await ctx.admission.admit(ctx, call, planned));
    if (planned.length > 0 && ctx.events.wants("budget")) admitted(ctx, call, planned, ticket);
    const token = ctx.credentials.usesTokens ? await carriedToken(ctx, call, ticket) : undefined;
    const info = startAttempt(ctx, call, request, token, ticket);
    const outcome = await sendAttempt(ctx.send, info, call.signal, ctx.retry.timeoutMs);

    if (!outcome.answered) {
      ticket.release({ sent: outcome.sent, headers: outcome.headers });
      const cancelled = call.signal?.aborted === true;
      if (ctx.events.active) {
        const errorType = cancelled ? "cancelled" : outcome.timedOut ? "timeout" : "network";
        attemptEnded(ctx, call, info, { errorType });
      }
      if (cancelled) throw aborted(ctx, call);
      const unknown = unknownWithoutAnswer(op, outcome.sent);
      const origin = originOf(info.url);
      const error = noAnswer(ctx, call, { timedOut: outcome.timedOut, unknown, cause: outcome.cause, origin });
      if (await pause(ctx, call, afterNoAnswer(op, outcome.sent, outcome.timedOut, call.retries, ctx.retry))) continue;
      error.retries = call.retries;
      throw error;
    }

    const { response, body } = outcome;
    ticket.release({ sent: true, headers: response.headers });
    call.lastStatus = response.status;
    const answer = classifyAnswer(ctx.descriptor, response, body);
    const { failure } = answer;
    if (ctx.events.active) {
      const { status } = response;
      answered(ctx, call, info, {
        status,
        code: failure?.code,
        errorKind: failure?.rule.kind,
        requestId: answer.requestId,
      });
    }
    if (!failure) return ctx.checkAnswer ? ctx.checkAnswer(ctx, call, response.status, body) : body;

    if (token !== undefined && shouldRenew(failure.rule, true, call.reauthed)) {
      call.reauthed = true;
      ctx.credentials.invalidate(token, call);
      if (ctx.events.active) retrying(ctx, call, info.attempt, 0, "reauth", false);
      continue;
    }
    const { retryAfterMs } = answer;
    const { refusal, waitMs } = ctx.admission.noteRejection(planned, response.status, failure.code, retryAfterMs);
    const unknown = unknownAfterFailure(op, failure.rule, response.status);
    const error = serviceFailed(ctx, call, failure, { requestId: answer.requestId, retryAfterMs, refusal, unknown });
    const failed = { ...failure, retryAfterMs, windowWaitMs: waitMs, quotaSpent: refusal !== undefined };
    if (await pause(ctx, call, afterFailure(op, failed, call.retries, ctx.retry))) continue;
    error.retries = call.retries;
    throw error;
  }
}

/** Where a request went, for an error (an address that does not parse is shown masked, whole). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url.split("?")[0]!;
  }
}

/** The OAuth token this attempt carries; a failure to get one ends the call, with nothing sent. */
async function carriedToken(ctx: ClientContext, call: CallState, ticket: Ticket): Promise<string | undefined> {
  try {
    return await ctx.credentials.accessToken(call);
  } catch (error) {
    ticket.release({ sent: false });
    if (call.signal?.aborted) throw aborted(ctx, call);
    // A token endpoint that timed out, dropped the connection or answered 5xx was already
    // retried with backoff by the one shared renewal; its final failure is this call's answer.
    if (error instanceof StepforgeError) error.retries = call.retries;
    throw error;
  }
}

/** The attempt's own address and headers, with the credentials on them. */
function startAttempt(
  ctx: ClientContext,
  call: CallState,
  request: PreparedRequest,
  token: string | undefined,
  ticket: Ticket,
): AttemptInfo {
  let placed: Credentialed;
  try {
    placed = ctx.credentials.place(request.url, request.headers, token);
  } catch (error) {
    // A placement naming a field the connection lacks: nothing is sent.
    ticket.release({ sent: false });
    throw error;
  }
  const attempt = call.attempts++;
  const info: AttemptInfo = {
    body: request.body,
    attempt,
    url: placed.url,
    headers: placed.headers,
    method: request.method,
    startedAt: Date.now(),
  };
  if (ctx.events.active) attemptStarted(ctx, call, info);
  return info;
}

/** Waits before the next attempt as the policy decided; false when it gave up or the budget is spent. */
async function pause(ctx: ClientContext, call: CallState, step: NextStep): Promise<boolean> {
  if (step.action === "give_up" || !withinBudget(call.retries, call.waitedMs, step.delayMs, ctx.retry)) return false;
  if (ctx.events.active) retrying(ctx, call, call.attempts, step.delayMs, step.reason, step.fromService);
  try {
    await sleep(step.delayMs, call.signal);
  } catch {
    throw aborted(ctx, call);
  }
  call.waitedMs += step.delayMs;
  call.retries++;
  return true;
}
