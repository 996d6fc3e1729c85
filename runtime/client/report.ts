/**
 * The events of a call's life, built from the call's state: start and end of the call, of each
 * attempt, the request and response of each attempt, and the pauses between them. Each function
 * is a no-op when nobody listens (the caller checks `events.active` before building anything).
 */
import { StepforgeError } from "../errors.js";
import type { SendInit } from "./attempt.js";
import type { CallState, ClientContext } from "./context.js";

/** An attempt as events describe it: where it went, masked, and when it was sent. */
export interface AttemptInfo extends SendInit {
  attempt: number;
  /** The redacted address. */
  shown: string;
  startedAt: number;
}

function place(ctx: ClientContext, call: CallState) {
  return { ...ctx.events.base, callId: call.callId, operation: call.op.operationId };
}

/** Host and port of an address; an address that does not parse has none (and is never quoted). */
function server(address: string): { serverAddress: string; serverPort: number | undefined } {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { serverAddress: "", serverPort: undefined };
  }
  return { serverAddress: url.hostname, serverPort: url.port ? Number(url.port) : undefined };
}

export function callStarted(ctx: ClientContext, call: CallState): void {
  ctx.events.emit({ type: "call_start", ...place(ctx, call), method: call.op.method, urlTemplate: call.op.path });
}

export function callEnded(ctx: ClientContext, call: CallState, error?: unknown): void {
  const failed = error instanceof StepforgeError ? error : undefined;
  ctx.events.emit({
    type: "call_end",
    ...place(ctx, call),
    outcome: error === undefined ? "success" : "failure",
    errorKind: error === undefined ? undefined : (failed?.kind ?? "internal"),
    status: call.lastStatus ?? failed?.status,
    outcomeUnknown: failed?.outcomeUnknown || undefined,
    attempts: call.attempts,
    retries: call.retries,
    durationMs: Date.now() - call.startedAt,
  });
}

export function attemptStarted(ctx: ClientContext, call: CallState, info: AttemptInfo): void {
  const { attempt, method } = info;
  const at = place(ctx, call);
  ctx.events.emit({
    type: "attempt_start",
    ...at,
    attempt,
    resendCount: attempt,
    method,
    urlTemplate: call.op.path,
    ...server(info.url),
  });
  ctx.events.emit({ type: "request", ...at, method, url: info.shown, attempt });
}

/** An answer came: the response event (with the service's code and request id) and the attempt's end. */
export function answered(
  ctx: ClientContext,
  call: CallState,
  info: AttemptInfo,
  answer: { status: number; code: string | undefined; errorKind: string | undefined; requestId: string | undefined },
): void {
  const { attempt, method } = info;
  const durationMs = Date.now() - info.startedAt;
  const at = place(ctx, call);
  const ok = answer.errorKind === undefined;
  const { status, code, requestId } = answer;
  ctx.events.emit({
    type: "response",
    ...at,
    method,
    url: info.shown,
    attempt,
    status,
    code,
    ok,
    durationMs,
    requestId,
  });
  attemptEnded(ctx, call, info, { status, errorType: answer.errorKind, durationMs });
}

/** No answer came (timeout, network, cancelled): only the attempt's end. */
export function attemptEnded(
  ctx: ClientContext,
  call: CallState,
  info: AttemptInfo,
  end: { status?: number | undefined; errorType: string | undefined; durationMs?: number },
): void {
  const { attempt, method } = info;
  ctx.events.emit({
    type: "attempt_end",
    ...place(ctx, call),
    attempt,
    resendCount: attempt,
    method,
    urlTemplate: call.op.path,
    ...server(info.url),
    status: end.status,
    errorType: end.errorType,
    durationMs: end.durationMs ?? Date.now() - info.startedAt,
  });
}

export function retrying(
  ctx: ClientContext,
  call: CallState,
  attempt: number,
  delayMs: number,
  reason: string,
  retryAfter: boolean,
): void {
  ctx.events.emit({ type: "retry", ...place(ctx, call), attempt, delayMs, reason, retryAfter });
}
