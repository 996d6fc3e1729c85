/**
 * Admission: which declared limits a call counts against (its plan, worked out once per operation,
 * or per path value when a limit counts per board or workspace or looks at the concrete path),
 * waiting for room under all of them, and the caller's bound on that wait (`maxLimitWaitMs`).
 * The result is a ticket (release it when the attempt is over) or a typed error: a spent quota,
 * a wait longer than allowed, a cancelled call. Nothing is sent before a ticket is held.
 */
import type { ShippedLimit, OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import type { Connection } from "../credentials/auth.js";
import { managedFields } from "../credentials/auth.js";
import type { StepforgeError } from "../errors.js";
import {
  hashOf,
  type LimitScopes,
  type PlannedLimit,
  type QuotaRefusal,
  QuotaRefusedError,
  type Ticket,
} from "../limits/limits.js";
import { isStateUnavailable } from "../state/types.js";
import { linkedAbort } from "../internal/abort.js";
import type { AdmissionStage, CallState, ClientContext } from "./context.js";
import { aborted, quotaRefused, waitTooLong } from "./failures.js";
import type { SharedState } from "./shared-state.js";

/** Path-keyed plans are kept up to this many per client (one per value seen), then forgotten. */
const MAX_PLANS = 4096;

/**
 * Who a client's limits and tokens belong to: the connection name plus a digest of its
 * credentials (rotating tokens excluded, so a refresh does not start new budgets), and a digest of
 * each field's value for `per: field:` limits shared by connections.
 */
export function accountScopes(descriptor: ServiceDescriptor, connection: Connection): LimitScopes {
  const managed = new Set(managedFields(descriptor));
  const identity = Object.entries(connection.fields)
    .filter(([name]) => !managed.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  return {
    connection: `${connection.name}#${hashOf(identity)}`,
    fields: Object.fromEntries(Object.entries(connection.fields).map(([name, value]) => [name, hashOf(value)])),
  };
}

export class Admission implements AdmissionStage {
  private readonly plans = new Map<string, PlannedLimit[]>();
  /** Some limit counts per path value or looks at the concrete path (plans then depend on the values). */
  private readonly byPath: boolean;

  constructor(
    private readonly descriptor: ServiceDescriptor,
    /** Read on each use: the process-wide state may be replaced after it was closed. */
    private readonly shared: SharedState,
    private readonly limits: ShippedLimit[],
    private readonly scopes: LimitScopes,
  ) {
    this.byPath = planKeyDependsOnPaths(limits);
  }

  /** The limits a call of `op` with these path values counts against. */
  plan(op: OperationDescriptor, pathValues: Record<string, unknown> | undefined): PlannedLimit[] {
    // An ad-hoc operation (the API Call step's) is planned afresh: its path is not the declared one.
    const declared = this.descriptor.operations[op.operationId] === op;
    const id = declared ? op.operationId + this.valuesKey(op, pathValues) : undefined;
    let planned = id === undefined ? undefined : this.plans.get(id);
    if (!planned) {
      planned = this.shared.limits.plan(this.descriptor.id, this.limits, op, this.scopes, pathValues);
      if (id !== undefined) {
        if (this.plans.size >= MAX_PLANS) this.plans.clear();
        this.plans.set(id, planned);
      }
    }
    return planned;
  }

  /**
   * What of the path values decides the plan (see `planKey`): nothing when no limit looks at paths;
   * else the values themselves, which name the concrete path as well as the path does, cheaper.
   */
  private valuesKey(op: OperationDescriptor, values: Record<string, unknown> | undefined): string {
    if (!this.byPath || !values || !op.path.includes("{")) return "";
    let key = "";
    for (const name in values) {
      const value = values[name];
      key += `\u0000${name}\u0000${value === undefined || value === null ? "\u0001" : String(value)}`;
    }
    return key;
  }

  /**
   * A ticket at once when the limiter has room now and nobody waits (no promise, no wait), else
   * the wait for one (`admit`).
   */
  admitNow(call: CallState, planned: PlannedLimit[]): Ticket | undefined {
    if (call.signal?.aborted) return undefined;
    return this.shared.limits.tryAcquire?.(planned);
  }

  /** Waits for room under every planned limit; a ticket, or a typed error when there will be none. */
  async admit(ctx: ClientContext, call: CallState, planned: PlannedLimit[]): Promise<Ticket> {
    const { events } = ctx;
    const onThrottle = events.active
      ? (limit: string, waitMs: number) => {
          const event = {
            type: "throttle",
            ...events.base,
            callId: call.callId,
            operation: call.op.operationId,
            limit,
            waitMs,
          } as const;
          events.emit(event);
        }
      : undefined;
    const max = call.maxLimitWaitMs;
    if (max === undefined) {
      try {
        return await this.shared.limits.acquire(planned, { signal: call.signal, onThrottle });
      } catch (error) {
        throw refusedAdmission(ctx, call, error);
      }
    }
    // Bounded: when the limiter says the call will be held longer than allowed (a finite estimate;
    // a full concurrency slot has none), the wait is abandoned and the call fails with `tooLong`.
    // The abort is deferred: the limiter reports the wait from inside its queue walk, which must
    // not see its queue change under it.
    const stop = linkedAbort(call.signal);
    let tooLong: StepforgeError | undefined;
    const bounded = (limit: string, waitMs: number) => {
      onThrottle?.(limit, waitMs);
      if (!Number.isFinite(waitMs) || waitMs <= max || tooLong) return;
      tooLong = waitTooLong(ctx, call, limit, waitMs, max);
      queueMicrotask(() => stop.abort(tooLong));
    };
    try {
      return await this.shared.limits.acquire(planned, { signal: stop.signal, onThrottle: bounded });
    } catch (error) {
      throw tooLong ?? refusedAdmission(ctx, call, error);
    } finally {
      stop.dispose();
    }
  }

  /** The service refused a call with a limit's declared rejection: the limiter believes it. */
  noteRejection(
    planned: PlannedLimit[],
    status: number,
    code: string | undefined,
    retryAfterMs: number | undefined,
  ): {
    refusal?: QuotaRefusal;
    waitMs?: number;
  } {
    return this.shared.limits.noteRejection(planned, status, code, retryAfterMs);
  }
}

/** Mirrors `planKey`: whether any limit makes a plan depend on the call's path values. */
function planKeyDependsOnPaths(limits: ShippedLimit[]): boolean {
  return limits.some(
    (l) => l.per.startsWith("path:") || l.pathPrefix !== undefined || l.excludePathPrefixes !== undefined,
  );
}

function refusedAdmission(ctx: ClientContext, call: CallState, error: unknown): unknown {
  if (error instanceof QuotaRefusedError) return quotaRefused(ctx, call, error.refusal);
  // The shared limits could not be consulted: the call turns it into a NetworkError (state_unreachable).
  if (isStateUnavailable(error)) return error;
  return aborted(ctx, call);
}
