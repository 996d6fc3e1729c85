/**
 * The events of a call's life, built from the call's state: start and end of the call, of each
 * attempt, the request and response of each attempt, and the pauses between them. Each function
 * is a no-op when nobody listens (the caller checks `events.active` before building anything).
 */
import { StepforgeError } from "../errors.js";
import type { BudgetReading } from "../hooks.js";
import type { PlannedLimit, Ticket } from "../limits/limits.js";
import type { SendInit } from "./attempt.js";
import type { CallState, ClientContext } from "./context.js";

/** An attempt as events describe it: where it went and when it was sent. */
export interface AttemptInfo extends SendInit {
  attempt: number;
  startedAt: number;
}

/**
 * Host and port of an address, by the text before its path: the addresses of a client's calls
 * share a few of those, and parsing each attempt's whole address twice cost more than the rest of
 * its events. An address that does not parse has none (and is never quoted).
 */
interface Server {
  serverAddress: string;
  serverPort: number | undefined;
}

const servers = new Map<string, Server>();

function server(address: string): Server {
  const scheme = address.indexOf("://");
  const path = scheme < 0 ? -1 : address.indexOf("/", scheme + 3);
  // The authority ends at or before the first "/" after the scheme, so the text up to it parses
  // to the same host and port as the whole address.
  const key = path < 0 ? address : address.slice(0, path);
  let found = servers.get(key);
  if (found === undefined) {
    found = parseServer(key);
    // Bounded: a process that calls many hosts keeps the latest few hundred.
    if (servers.size >= 256) servers.clear();
    servers.set(key, found);
  }
  return found;
}

function parseServer(address: string): Server {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { serverAddress: "", serverPort: undefined };
  }
  return { serverAddress: url.hostname, serverPort: url.port ? Number(url.port) : undefined };
}

// The events below are written out field by field, not spread from a shared part: they are built
// for every call anyone watches, and literals of one shape are several times cheaper than spreads.

export function callStarted(ctx: ClientContext, call: CallState): void {
  if (!ctx.events.wants("call_start")) return;
  const { service, connection } = ctx.events.base;
  const { op, callId } = call;
  ctx.events.emit({
    type: "call_start",
    service,
    connection,
    callId,
    operation: op.operationId,
    method: op.method,
    urlTemplate: op.path,
  });
}

export function callEnded(ctx: ClientContext, call: CallState, error?: unknown): void {
  if (!ctx.events.wants("call_end")) return;
  const failed = error instanceof StepforgeError ? error : undefined;
  const { service, connection } = ctx.events.base;
  ctx.events.emit({
    type: "call_end",
    service,
    connection,
    callId: call.callId,
    operation: call.op.operationId,
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
  const { events } = ctx;
  const { service, connection } = events.base;
  const { attempt, method } = info;
  const { callId } = call;
  const operation = call.op.operationId;
  if (events.wants("attempt_start")) {
    const { serverAddress, serverPort } = server(info.url);
    events.emit({
      type: "attempt_start",
      service,
      connection,
      callId,
      operation,
      attempt,
      resendCount: attempt,
      method,
      urlTemplate: call.op.path,
      serverAddress,
      serverPort,
    });
  }
  if (events.wants("request")) {
    const url = ctx.showUrl(info.url);
    events.emit({ type: "request", service, connection, callId, operation, method, url, attempt });
  }
}

/** An answer came: the response event (with the service's code and request id) and the attempt's end. */
export function answered(
  ctx: ClientContext,
  call: CallState,
  info: AttemptInfo,
  answer: { status: number; code: string | undefined; errorKind: string | undefined; requestId: string | undefined },
): void {
  const durationMs = Date.now() - info.startedAt;
  const { status } = answer;
  if (ctx.events.wants("response")) {
    const { service, connection } = ctx.events.base;
    ctx.events.emit({
      type: "response",
      service,
      connection,
      callId: call.callId,
      operation: call.op.operationId,
      method: info.method,
      url: ctx.showUrl(info.url),
      attempt: info.attempt,
      status,
      code: answer.code,
      ok: answer.errorKind === undefined,
      durationMs,
      requestId: answer.requestId,
    });
  }
  attemptEnded(ctx, call, info, { status, errorType: answer.errorKind, durationMs });
}

/** No answer came (timeout, network, cancelled): only the attempt's end. */
export function attemptEnded(
  ctx: ClientContext,
  call: CallState,
  info: AttemptInfo,
  end: { status?: number | undefined; errorType: string | undefined; durationMs?: number },
): void {
  if (!ctx.events.wants("attempt_end")) return;
  const { service, connection } = ctx.events.base;
  const { attempt } = info;
  const { serverAddress, serverPort } = server(info.url);
  ctx.events.emit({
    type: "attempt_end",
    service,
    connection,
    callId: call.callId,
    operation: call.op.operationId,
    attempt,
    resendCount: attempt,
    method: info.method,
    urlTemplate: call.op.path,
    serverAddress,
    serverPort,
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
  if (!ctx.events.wants("retry")) return;
  const { service, connection } = ctx.events.base;
  const { callId } = call;
  const operation = call.op.operationId;
  ctx.events.emit({ type: "retry", service, connection, callId, operation, attempt, delayMs, reason, retryAfter });
}

/**
 * A request was admitted: what each of its limits has left (the metrics' budget gauge). The
 * limiter works the numbers out only here, when someone reads them (the caller checks `wants`).
 */
export function admitted(ctx: ClientContext, call: CallState, planned: PlannedLimit[], ticket: Ticket): void {
  const left = ticket.remaining?.();
  if (!left) return;
  const limits: BudgetReading[] = [];
  for (let i = 0; i < planned.length; i++) {
    const remaining = left[i];
    if (remaining === undefined) continue;
    const { spec } = planned[i]!;
    const unit = spec.kind === "header-quota" && spec.costHeader ? "cost" : "request";
    limits.push({ limit: spec.id, per: spec.per, remaining, unit });
  }
  if (limits.length === 0) return;
  const { service, connection } = ctx.events.base;
  ctx.events.emit({ type: "budget", service, connection, callId: call.callId, operation: call.op.operationId, limits });
}
