/** Runs planned calls through the tool-step entry points, records each outcome and checks it against the rules. */

import {
  createServiceClient,
  StepforgeError,
  type ClientOptions,
  type ErrorKind,
  type Hooks,
  type LimitOverrides,
  type RetryOptions,
  type ServiceClient,
  type SharedState,
} from "../../../runtime/index.js";
import {
  AuthError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PermissionError,
  QuotaExhaustedError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../../../runtime/errors.js";
import type { RunningMock } from "../../../runtime/mock/index.js";
import { executeTool, executeToolByName, type ToolContext, type ToolResult } from "../../../runtime/tools/index.js";
import type { PlannedCall } from "./plan.js";
import { ALL_TOOLS, CONNECTIONS, createdId, type Service, TOOLS } from "./settings.js";

export interface Outcome {
  call: PlannedCall;
  result?: ToolResult;
  /** executeTool / executeToolByName threw (it must never). */
  threw?: unknown;
  /** What the service client threw beneath the step (only for calls run with an observed client). */
  thrown?: unknown;
  observed: boolean;
  /** Attempts sent (hook `request` events) and retries announced (`retry` events, renewals apart). */
  attempts: number;
  retries: number;
  reauths: number;
  waitedMs: number;
  throttled: number;
  /** Attempts that ran out of time (retried, or the call's final TimeoutError). */
  timeouts: number;
  /** Why each retry happened, as the hooks said (`status 503`, `code 606`, `network`, ...). */
  reasons: string[];
  /**
   * For a successful create: the id the step returned (the rest of a success's data is dropped, so the outcomes hold
   * no answers).
   */
  createdId?: unknown;
}

export interface Runtime {
  mocks: Record<Service, RunningMock>;
  shared: SharedState;
  retry: (service: Service) => RetryOptions;
  limits: (service: Service) => LimitOverrides;
  /** A signal that lives as long as the caller (an agent session's "cancel everything"); never aborted here. */
  signal?: AbortSignal | undefined;
}

/** An outcome with nothing seen yet (no attempts, retries or waits). */
export function emptyOutcome(call: PlannedCall): Outcome {
  return {
    call,
    observed: false,
    attempts: 0,
    retries: 0,
    reauths: 0,
    waitedMs: 0,
    throttled: 0,
    timeouts: 0,
    reasons: [],
  };
}

/** The client options a call to `service` runs with: the soak's connection, mock, shared state, limits, retries. */
export function serviceOptions(rt: Runtime, service: Service) {
  return {
    connection: CONNECTIONS[service],
    baseUrl: rt.mocks[service].url,
    shared: rt.shared,
    limits: rt.limits(service),
    retry: rt.retry(service),
  };
}

/** Runs one planned call through the tool-step entry points and records what happened. */
export async function runCall(call: PlannedCall, rt: Runtime): Promise<Outcome> {
  const outcome = emptyOutcome(call);
  const hooks: Hooks = {
    onRequest: () => void outcome.attempts++,
    onRetry: (e) => {
      outcome.reasons.push(e.reason);
      if (e.reason === "reauth") outcome.reauths++;
      else {
        if (e.reason === "timeout") outcome.timeouts++;
        outcome.retries++;
        outcome.waitedMs += e.delayMs;
      }
    },
    onThrottle: () => void outcome.throttled++,
  };
  const options: ClientOptions = { ...serviceOptions(rt, call.service), signal: rt.signal, hooks };
  const tool = TOOLS[call.service].find((t) => t.name === call.tool);
  try {
    if (!tool) throw new Error(`no tool ${call.tool}`);
    if (tool.kind === "operation" && call.seq % 2 === 0) {
      // A client of our own beneath the step, to see the error object the runtime throws.
      const client = createServiceClient(tool.descriptor, options);
      const observedClient: ServiceClient = {
        ...client,
        call: async (operationId, init) => {
          try {
            return await client.call(operationId, init);
          } catch (error) {
            outcome.thrown = error;
            throw error;
          }
        },
      };
      outcome.observed = true;
      const context: ToolContext = { ...options, client: observedClient };
      outcome.result = await executeTool(tool, call.input, context);
    } else {
      // The catalogue path: the step builds its own client from the context.
      outcome.result = await executeToolByName(ALL_TOOLS, call.tool, call.input, () => options);
    }
  } catch (error) {
    outcome.threw = error;
  }
  if (outcome.result?.ok === false && outcome.result.error.kind === "timeout") outcome.timeouts++;
  if (outcome.result?.ok) {
    if (call.creates) outcome.createdId = createdId(call.service, outcome.result.data);
    outcome.result = { ok: true, data: undefined };
  }
  return outcome;
}

/** Runs `calls` with `concurrency` in flight (in plan order as workers free up). */
export async function runPool(calls: PlannedCall[], concurrency: number, rt: Runtime): Promise<Outcome[]> {
  const out: Outcome[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const i = next++;
      out[i] = await runCall(calls[i]!, rt);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return out;
}

export const ERROR_CLASS_OF: Record<ErrorKind, typeof StepforgeError> = {
  auth: AuthError,
  permission: PermissionError,
  not_found: NotFoundError,
  validation: ValidationError,
  conflict: ConflictError,
  rate_limited: RateLimitedError,
  quota_exhausted: QuotaExhaustedError,
  timeout: TimeoutError,
  network: NetworkError,
  server: ServerError,
};

/** Why an outcome breaks the soak's rules ("" when it does not). */
export function ruleBreach(o: Outcome, budget: number, retry: RetryOptions): string {
  const where = `#${o.call.seq} ${o.call.tool}`;
  if (o.threw !== undefined) return `${where}: the step threw ${String(o.threw)}`;
  const r = o.result;
  if (!r) return `${where}: no result`;
  if (o.attempts > budget) return `${where}: ${o.attempts} attempts > budget ${budget}`;
  if (o.retries > (retry.attempts ?? 3)) return `${where}: ${o.retries} retries > ${retry.attempts}`;
  if (o.reauths > 1) return `${where}: ${o.reauths} token renewals`;
  if (o.waitedMs > (retry.maxTotalWaitMs ?? 60_000)) return `${where}: waited ${o.waitedMs} ms between attempts`;
  if (r.ok) {
    // (A call may fail before its first attempt: the OAuth token request beneath it failed.)
    if (o.attempts < 1) return `${where}: succeeded without sending anything`;
    if (o.call.missing) return `${where}: a missing id was found`;
    return "";
  }
  const kind = r.error.kind;
  if (!(kind in ERROR_CLASS_OF)) return `${where}: untyped tool error ${kind}: ${r.error.message}`;
  if (o.observed) {
    const t = o.thrown;
    if (!(t instanceof StepforgeError))
      return `${where}: the client threw a non-StepforgeError ${Object.prototype.toString.call(t)} ${String(t)}`;
    if (!(t instanceof ERROR_CLASS_OF[kind as ErrorKind]) || t.kind !== kind)
      return `${where}: thrown ${t.name}/${t.kind} but the step reported ${kind}`;
    if (t.retries !== o.retries) return `${where}: the error says ${t.retries} retries, the hooks saw ${o.retries}`;
  }
  if (o.call.missing && kind !== "not_found" && !TRANSIENT.has(kind)) return `${where}: a missing id gave ${kind}`;
  if (!o.call.missing && !TRANSIENT.has(kind)) return `${where}: unexpected ${kind}: ${r.error.message}`;
  return "";
}

/** What the faults and the limits may end a call with. */
export const TRANSIENT = new Set(["server", "network", "timeout", "rate_limited"]);
/** Outcomes after which a create may or may not have been applied (the answer never arrived whole, or a 5xx). */
export const AMBIGUOUS = new Set(["server", "network", "timeout"]);
