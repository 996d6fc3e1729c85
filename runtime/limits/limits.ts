/**
 * Proactive client-side limiting from the limits a spec declares, so a busy caller runs close to a
 * service's limits without being refused:
 *
 * - `window`: a sliding-window log. A request counts from the moment it is sent until `window`
 *   after its response arrived (the server counted it somewhere in between, so this never lets
 *   through a request the server's own sliding or fixed window would refuse).
 * - `concurrency`: requests in flight.
 * - `daily-quota` / `monthly-quota`: requests per calendar day (month) in the service's zone; past
 *   it, calls fail at once with a QuotaExhaustedError naming the reset time.
 * - `header-quota`: what the service reports is left (response headers); a call that would take
 *   it below zero fails at once, before it is sent.
 *
 * State lives in a LimitRegistry, keyed by limit id and scope (the connection, the value of a
 * declared credential field such as Trello's API key, or the value of a path parameter such as a
 * board or workspace id, hashed), so every client sharing the registry shares budgets as the
 * service counts them. A limit with `penaltySeconds` holds every caller of its key back for that
 * long after the service refused one; `excludePathPrefixes` exempts routes the limit does not cover. Waiters are served
 * first come, first served per
 * limiting state; one waiter blocked on a full window does not hold back a waiter of another
 * connection.
 */
import { createHash } from "node:crypto";
import type { ShippedLimit, OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import {
  commit,
  evaluate,
  NOOP_TICKET,
  newState,
  type PlannedLimit,
  type QuotaRefusal,
  QuotaRefusedError,
  quotaCountingFor,
  type State,
  type Ticket,
} from "./counting.js";

export {
  type PlannedLimit,
  type QuotaCounting,
  type QuotaRefusal,
  QuotaRefusedError,
  type Ticket,
  useQuotaCounting,
} from "./counting.js";
export { quotaCounting, quotaPeriod, refusalFor } from "./quotas.js";

/** Per-connection changes to declared limits: a paid plan's numbers, or shrunk windows in tests. */
export interface LimitOverride {
  requests?: number;
  windowSeconds?: number;
  max?: number;
  /** Stop limiting client-side for this limit (the service still enforces it). */
  disabled?: boolean;
}
export type LimitOverrides = Record<string, LimitOverride>;

/** The descriptor's limits with overrides applied in order; unknown ids are an error naming them. */
export function effectiveLimits(
  descriptor: ServiceDescriptor,
  ...overrides: Array<LimitOverrides | undefined>
): ShippedLimit[] {
  const byId = new Map(descriptor.limits.map((l) => [l.id, { ...l }] as [string, ShippedLimit]));
  for (const set of overrides) {
    if (!set) continue;
    for (const [id, o] of Object.entries(set)) {
      const limit = byId.get(id);
      if (!limit) {
        const known = [...byId.keys()];
        throw new Error(
          `${descriptor.id}: limit override "${id}" names no declared limit; use one of ` +
            `${known.length ? known.join(", ") : "(none declared)"}`,
        );
      }
      if (o.disabled) {
        byId.delete(id);
        continue;
      }
      for (const [name, value] of Object.entries(o)) {
        if (name === "disabled") continue;
        if (typeof value !== "number" || !(value > 0)) {
          throw new Error(`${descriptor.id}: limit override ${id}.${name} must be a positive number`);
        }
        if (!(name in limit))
          throw new Error(`${descriptor.id}: limit "${id}" (${limit.kind}) has no setting "${name}"`);
        (limit as Record<string, unknown>)[name] = value;
      }
    }
  }
  return [...byId.values()];
}

/** Stable, non-secret keys for "this connection" and "this value of field F". */
export interface LimitScopes {
  connection: string;
  fields: Record<string, string>;
}

/** One call's path parameter values (the `params.path` of a call), for `per: path:` limits and path prefixes. */
export type PathValues = Record<string, unknown> | undefined;

/** The call's concrete path: the operation's template with the given values filled in. */
export function concretePath(op: OperationDescriptor, values: PathValues): string {
  if (!values) return op.path;
  return op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined || value === null ? whole : encodeURIComponent(String(value));
  });
}

/** Whether a limit counts a call to `op` at `path` (its class, prefix and exclusions). */
export function limitCovers(spec: ShippedLimit, op: OperationDescriptor, path: string): boolean {
  if (spec.applies !== "all" && spec.applies !== op.limitClass) return false;
  if (spec.pathPrefix && !path.startsWith(spec.pathPrefix)) return false;
  if (spec.excludePathPrefixes?.some((prefix) => path.startsWith(prefix))) return false;
  if (spec.per.startsWith("path:") && !op.path.includes(`{${spec.per.slice(5)}}`)) return false;
  return true;
}

/**
 * The part of a call that decides which limit states it uses, beyond the operation itself: the
 * values of the path parameters a `path:` limit or a path prefix looks at. Callers cache plans by
 * `operationId + planKey(...)`; an empty key means one plan serves every call of the operation.
 */
export function planKey(limits: ShippedLimit[], op: OperationDescriptor, values: PathValues): string {
  if (!values || !op.path.includes("{")) return "";
  const byPath = limits.some(
    (l) => l.per.startsWith("path:") || l.pathPrefix !== undefined || l.excludePathPrefixes !== undefined,
  );
  return byPath ? `|${concretePath(op, values)}` : "";
}

/** The scope a limit counts a call under: the connection, a credential field's value or a path value (hashed). */
export function scopeOf(spec: ShippedLimit, scopes: LimitScopes, values: PathValues): string {
  if (spec.per === "connection") return `c:${scopes.connection}`;
  if (spec.per.startsWith("field:")) return `f:${scopes.fields[spec.per.slice(6)] ?? scopes.connection}`;
  const value = values?.[spec.per.slice(5)];
  // A path limit with no value (a caller that left it out) is counted per connection, never skipped.
  return value === undefined || value === null ? `c:${scopes.connection}` : `p:${hashOf(String(value))}`;
}

export function hashOf(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}

/** How a caller waits in `acquire`: given up when the signal aborts, told of each limit it waits for. */
export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  onThrottle?: ((limit: string, waitMs: number) => void) | undefined;
}

/** What a service's refusal means: a quota spent until a time (`refusal`), or how long to hold back. */
export type RejectionOutcome = { refusal?: QuotaRefusal; waitMs?: number };

/** Whether a refused call is this limit's declared rejection: its error code when it names one, else its status. */
export function isDeclaredRejection(spec: ShippedLimit, status: number, code: string | undefined): boolean {
  const r = spec.rejection;
  return (r.code !== undefined && r.code === code) || (r.code === undefined && r.status === status);
}

/** What every limiter keeps of a caller waiting for room: its limits, its promise and its options. */
export interface WaiterBase extends AcquireOptions {
  planned: PlannedLimit[];
  resolve: (ticket: Ticket) => void;
  reject: (error: unknown) => void;
  onAbort?: (() => void) | undefined;
  /** Limits already reported to `onThrottle` during this wait. */
  throttled: Set<string>;
}

/** A new waiter's common part, from `acquire`'s arguments (this registry and the shared one). */
export function waiterBase(
  planned: PlannedLimit[],
  resolve: (ticket: Ticket) => void,
  reject: (error: unknown) => void,
  options: AcquireOptions,
): WaiterBase {
  return { planned, resolve, reject, signal: options.signal, onThrottle: options.onThrottle, throttled: new Set() };
}

interface Waiter extends WaiterBase {
  /** Limits whose wait was reported as a finite estimate (a first report may have had none). */
  estimated: Set<string>;
}

/**
 * What clients need from a limiter: this in-process registry, or one over the shared state layer
 * (`SharedLimitRegistry`, runtime/limits/shared.ts) that many processes use together.
 */
export interface Limiter {
  plan(
    service: string,
    limits: ShippedLimit[],
    op: OperationDescriptor,
    scopes: LimitScopes,
    values?: PathValues,
  ): PlannedLimit[];
  acquire(planned: PlannedLimit[], options?: AcquireOptions): Promise<Ticket>;
  noteRejection(
    planned: PlannedLimit[],
    status: number,
    code: string | undefined,
    retryAfterMs: number | undefined,
  ): RejectionOutcome;
  /**
   * A ticket at once when nobody waits and every planned limit has room, else undefined (then
   * `acquire`). Optional: a limiter whose state lives elsewhere cannot answer without waiting.
   */
  tryAcquire?(planned: PlannedLimit[]): Ticket | undefined;
  /** This process's view of its budgets, for tests and introspection. */
  snapshot(): Array<{ key: string; kind: string; value: number }>;
}

export class LimitRegistry implements Limiter {
  private readonly states = new Map<string, State>();
  private readonly queue: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  /** What a released ticket calls: one function for every ticket, not a closure per call. */
  private readonly pumpLater = () => this.pump();

  /**
   * The limits that apply to one call of `op`, with their shared state. `values` are the call's
   * path parameters (needed for `per: path:` limits and path prefixes; see `planKey`).
   */
  plan(...[service, limits, op, scopes, values]: Parameters<Limiter["plan"]>): PlannedLimit[] {
    const planned: PlannedLimit[] = [];
    const path = concretePath(op, values);
    for (const spec of limits) {
      if (!limitCovers(spec, op, path)) continue;
      const key = `${service}|${spec.id}|${spec.per}|${scopeOf(spec, scopes, values)}`;
      let state = this.states.get(key);
      if (!state || state.kind !== spec.kind) {
        state = newState(spec);
        this.states.set(key, state);
      }
      planned.push({ spec, key, state });
    }
    return planned;
  }

  /** Waits until every planned limit has room, then takes it. Rejects with QuotaRefusedError or the signal's reason. */
  acquire(planned: PlannedLimit[], options: AcquireOptions = {}): Promise<Ticket> {
    if (planned.length === 0) return Promise.resolve(NOOP_TICKET);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const now = this.tryAcquire(planned);
    if (now) return Promise.resolve(now);
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { ...waiterBase(planned, resolve, reject, options), estimated: new Set() };
      if (options.signal) {
        waiter.onAbort = () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(options.signal!.reason);
          this.pump();
        };
        options.signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.pump();
    });
  }

  /**
   * Nobody waiting and room under every limit (the common case): admitted at once, as the queue
   * walk would admit it, without a promise, a waiter, listeners or a walk.
   */
  tryAcquire(planned: PlannedLimit[]): Ticket | undefined {
    if (planned.length === 0) return NOOP_TICKET;
    if (this.queue.length > 0 || !evaluate(planned, Date.now()).ok) return undefined;
    return commit(planned, this.pumpLater);
  }

  /**
   * The service refused a call with a limit's declared rejection: believe it. A quota is then spent
   * for the day or month (the refusal says until when); a window is full until Retry-After, or for
   * one whole window when the service gave none, and every caller sharing it holds back (`waitMs`).
   * A limit with `penaltySeconds` holds its key back at least that long (window or concurrency).
   */
  noteRejection(...[planned, status, code, retryAfterMs]: Parameters<Limiter["noteRejection"]>): RejectionOutcome {
    const now = Date.now();
    let waitMs: number | undefined;
    for (const p of planned) {
      if (!isDeclaredRejection(p.spec, status, code)) continue;
      if (p.state.kind !== "window" && p.state.kind !== "concurrency") {
        return { refusal: quotaCountingFor(p.spec).spent(p.spec, p.state, now) };
      }
      const penaltyMs = (p.spec.penaltySeconds ?? 0) * 1000;
      if (p.state.kind === "window" && p.spec.kind === "window") {
        const wait = Math.max(retryAfterMs ?? p.spec.windowSeconds * 1000, penaltyMs);
        p.state.blockedUntil = Math.max(p.state.blockedUntil, now + wait);
        waitMs = Math.max(waitMs ?? 0, p.state.blockedUntil - now);
      } else if (p.state.kind === "concurrency" && penaltyMs > 0) {
        p.state.blockedUntil = Math.max(p.state.blockedUntil, now + Math.max(retryAfterMs ?? 0, penaltyMs));
        waitMs = Math.max(waitMs ?? 0, p.state.blockedUntil - now);
      }
    }
    return waitMs === undefined ? {} : { waitMs };
  }

  /** For tests and introspection: how many requests a window currently counts, etc. */
  snapshot(): Array<{ key: string; kind: string; value: number }> {
    return [...this.states.entries()].map(([key, s]) => {
      switch (s.kind) {
        case "window":
          return { key, kind: s.kind, value: s.pending + s.answered.length - s.start };
        case "concurrency":
          return { key, kind: s.kind, value: s.active };
        default:
          return { key, kind: s.kind, value: quotaCountingFor({ id: key, kind: s.kind }).count(s) };
      }
    });
  }

  private pump(): void {
    if (this.queue.length === 0) {
      // Nothing waits (a release with no one queued): only a stale timer to drop.
      this.schedule(Infinity, 0);
      return;
    }
    const now = Date.now();
    const blocked = new Set<State>();
    let soonest = Infinity;
    for (let i = 0; i < this.queue.length; ) {
      const waiter = this.queue[i]!;
      if (waiter.planned.some((p) => blocked.has(p.state))) {
        i++;
        continue;
      }
      const verdict = evaluate(waiter.planned, now);
      if (verdict.ok) {
        this.queue.splice(i, 1);
        this.settle(waiter);
        waiter.resolve(commit(waiter.planned, this.pumpLater));
        continue;
      }
      if ("refusal" in verdict) {
        this.queue.splice(i, 1);
        this.settle(waiter);
        waiter.reject(new QuotaRefusedError(verdict.refusal));
        continue;
      }
      for (const s of verdict.blocking) blocked.add(s);
      // Reported once when first held, and once more when a wait that had no estimate (requests
      // still in flight) gets one: a caller bounding its wait (maxLimitWaitMs) needs the number.
      const known = Number.isFinite(verdict.wait);
      if (!waiter.throttled.has(verdict.limit) || (known && !waiter.estimated.has(verdict.limit))) {
        waiter.throttled.add(verdict.limit);
        if (known) waiter.estimated.add(verdict.limit);
        try {
          waiter.onThrottle?.(verdict.limit, verdict.wait);
        } catch {
          /* hooks never break calls */
        }
      }
      soonest = Math.min(soonest, verdict.wait);
      i++;
    }
    this.schedule(soonest, now);
  }

  private settle(waiter: Waiter): void {
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
  }

  private schedule(wait: number, now: number): void {
    if (!Number.isFinite(wait) || this.queue.length === 0) {
      if (this.queue.length === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.timerAt = Infinity;
      }
      return;
    }
    const at = now + wait;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      },
      Math.max(0, Math.ceil(wait)),
    );
  }
}
