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
 * long after the service refused one; `excludePathPrefixes` exempts routes the limit does not cover. Waiters are served first come, first served per
 * limiting state; one waiter blocked on a full window does not hold back a waiter of another
 * connection.
 */
import { createHash } from "node:crypto";
import type { LimitSpec, OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import { dayIn, monthIn, nextMidnight, nextMonthStart } from "../internal/time.js";

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
export function effectiveLimits(descriptor: ServiceDescriptor, ...overrides: Array<LimitOverrides | undefined>): LimitSpec[] {
  const byId = new Map(descriptor.limits.map((l) => [l.id, { ...l }] as [string, LimitSpec]));
  for (const set of overrides) {
    if (!set) continue;
    for (const [id, o] of Object.entries(set)) {
      const limit = byId.get(id);
      if (!limit) {
        const known = [...byId.keys()];
        throw new Error(
          `${descriptor.id}: limit override "${id}" names no declared limit; use one of ${known.length ? known.join(", ") : "(none declared)"}`,
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
        if (!(name in limit)) throw new Error(`${descriptor.id}: limit "${id}" (${limit.kind}) has no setting "${name}"`);
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
export function limitCovers(spec: LimitSpec, op: OperationDescriptor, path: string): boolean {
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
export function planKey(limits: LimitSpec[], op: OperationDescriptor, values: PathValues): string {
  if (!values || !op.path.includes("{")) return "";
  const byPath = limits.some((l) => l.per.startsWith("path:") || l.pathPrefix !== undefined || l.excludePathPrefixes !== undefined);
  return byPath ? `|${concretePath(op, values)}` : "";
}

/** The scope a limit counts a call under: the connection, a credential field's value or a path value (hashed). */
export function scopeOf(spec: LimitSpec, scopes: LimitScopes, values: PathValues): string {
  if (spec.per === "connection") return `c:${scopes.connection}`;
  if (spec.per.startsWith("field:")) return `f:${scopes.fields[spec.per.slice(6)] ?? scopes.connection}`;
  const value = values?.[spec.per.slice(5)];
  // A path limit with no value (a caller that left it out) is counted per connection, never skipped.
  return value === undefined || value === null ? `c:${scopes.connection}` : `p:${hashOf(String(value))}`;
}

export function hashOf(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}

type Entry = { t: number };

interface WindowState {
  kind: "window";
  entries: Entry[];
  /** The service said this window is full (someone else spent it): send nothing before this. */
  blockedUntil: number;
  /** Prune expired entries once the log is this long (keeps the per-call cost flat). */
  pruneAt: number;
}
interface ConcurrencyState {
  kind: "concurrency";
  active: number;
  /** A penalty period after the service refused a call: send nothing before this. */
  blockedUntil: number;
}
/** A daily or monthly quota: `period` is the calendar day or month it counts. */
interface PeriodState {
  kind: "daily-quota" | "monthly-quota";
  period: string;
  count: number;
  exhausted: boolean;
}
interface HeaderState {
  kind: "header-quota";
  day: string;
  remaining: number | undefined;
  reserved: number;
  cost: number;
}
type State = WindowState | ConcurrencyState | PeriodState | HeaderState;

export interface PlannedLimit {
  spec: LimitSpec;
  /** Names the budget: service, limit and scope (never a secret: credential values are hashed). */
  key: string;
  state: State;
}

/** Why a call cannot be made at all today. */
export interface QuotaRefusal {
  limit: LimitSpec;
  resetsAt: Date;
  message: string;
}

export class QuotaRefusedError extends Error {
  constructor(readonly refusal: QuotaRefusal) {
    super(refusal.message);
    this.name = "QuotaRefusedError";
  }
}

export interface Ticket {
  /**
   * Call once when the attempt is over. `sent: false` when the request never left (it then counts
   * against nothing); `headers` lets header quotas learn what is left.
   */
  release(outcome: { sent: boolean; headers?: Headers | undefined }): void;
}

interface Waiter {
  planned: PlannedLimit[];
  resolve: (ticket: Ticket) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
  onThrottle?: ((limit: string, waitMs: number) => void) | undefined;
  throttled: Set<string>;
  /** Limits whose wait was reported as a finite estimate (a first report may have had none). */
  estimated: Set<string>;
}

type Verdict = { ok: true } | { ok: false; wait: number; blocking: State[]; limit: string } | { ok: false; refusal: QuotaRefusal };

const NOOP_TICKET: Ticket = { release() {} };

/**
 * What clients need from a limiter: this in-process registry, or one over the shared state layer
 * (`SharedLimitRegistry`, runtime/limits/shared.ts) that many processes use together.
 */
export interface Limiter {
  plan(service: string, limits: LimitSpec[], op: OperationDescriptor, scopes: LimitScopes, values?: PathValues): PlannedLimit[];
  acquire(
    planned: PlannedLimit[],
    options?: { signal?: AbortSignal | undefined; onThrottle?: ((limit: string, waitMs: number) => void) | undefined },
  ): Promise<Ticket>;
  noteRejection(planned: PlannedLimit[], status: number, code: string | undefined, retryAfterMs: number | undefined): { refusal?: QuotaRefusal; waitMs?: number };
  /** This process's view of its budgets, for tests and introspection. */
  snapshot(): Array<{ key: string; kind: string; value: number }>;
}

export class LimitRegistry implements Limiter {
  private readonly states = new Map<string, State>();
  private readonly queue: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  /**
   * The limits that apply to one call of `op`, with their shared state. `values` are the call's
   * path parameters (needed for `per: path:` limits and path prefixes; see `planKey`).
   */
  plan(service: string, limits: LimitSpec[], op: OperationDescriptor, scopes: LimitScopes, values?: PathValues): PlannedLimit[] {
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
  acquire(
    planned: PlannedLimit[],
    options: { signal?: AbortSignal | undefined; onThrottle?: ((limit: string, waitMs: number) => void) | undefined } = {},
  ): Promise<Ticket> {
    if (planned.length === 0) return Promise.resolve(NOOP_TICKET);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { planned, resolve, reject, signal: options.signal, onThrottle: options.onThrottle, throttled: new Set(), estimated: new Set() };
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
   * The service refused a call with a limit's declared rejection: believe it. A quota is then spent
   * for the day or month (the refusal says until when); a window is full until Retry-After, or for
   * one whole window when the service gave none, and every caller sharing it holds back (`waitMs`).
   * A limit with `penaltySeconds` holds its key back at least that long (window or concurrency).
   */
  noteRejection(
    planned: PlannedLimit[],
    status: number,
    code: string | undefined,
    retryAfterMs: number | undefined,
  ): { refusal?: QuotaRefusal; waitMs?: number } {
    const now = Date.now();
    let waitMs: number | undefined;
    for (const p of planned) {
      const r = p.spec.rejection;
      const matches = (r.code !== undefined && r.code === code) || (r.code === undefined && r.status === status);
      if (!matches) continue;
      if (p.state.kind === "daily-quota" || p.state.kind === "monthly-quota") {
        p.state.exhausted = true;
        return { refusal: refusalFor(p.spec, now) };
      }
      if (p.state.kind === "header-quota") {
        p.state.remaining = 0;
        p.state.day = dayIn((p.spec as Extract<LimitSpec, { kind: "header-quota" }>).resetTimeZone);
        return { refusal: refusalFor(p.spec, now) };
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
          return { key, kind: s.kind, value: s.entries.length };
        case "concurrency":
          return { key, kind: s.kind, value: s.active };
        case "daily-quota":
        case "monthly-quota":
          return { key, kind: s.kind, value: s.count };
        case "header-quota":
          return { key, kind: s.kind, value: s.remaining ?? Number.NaN };
      }
    });
  }

  private pump(): void {
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
        waiter.resolve(commit(waiter.planned, () => this.pump()));
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
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, Math.ceil(wait)));
  }
}

function newState(spec: LimitSpec): State {
  switch (spec.kind) {
    case "window":
      return { kind: "window", entries: [], blockedUntil: 0, pruneAt: 64 };
    case "concurrency":
      return { kind: "concurrency", active: 0, blockedUntil: 0 };
    case "daily-quota":
    case "monthly-quota":
      return { kind: spec.kind, period: "", count: 0, exhausted: false };
    case "header-quota":
      return { kind: "header-quota", day: "", remaining: undefined, reserved: 0, cost: 1 };
  }
}

/** The calendar period a quota counts (day or month in its zone) and when the next one starts. */
export function quotaPeriod(spec: LimitSpec, now: number): { period: string; resetsAt: Date } {
  const zone = "resetTimeZone" in spec ? spec.resetTimeZone : "UTC";
  return spec.kind === "monthly-quota"
    ? { period: monthIn(zone, now), resetsAt: nextMonthStart(zone, now) }
    : { period: dayIn(zone, now), resetsAt: nextMidnight(zone, now) };
}

export function refusalFor(spec: LimitSpec, now: number): QuotaRefusal {
  const zone = "resetTimeZone" in spec ? spec.resetTimeZone : "UTC";
  const { resetsAt } = quotaPeriod(spec, now);
  const what =
    spec.kind === "daily-quota"
      ? `the daily quota of ${spec.requests} requests ("${spec.id}") is used up`
      : spec.kind === "monthly-quota"
        ? `the monthly quota of ${spec.requests} requests ("${spec.id}") is used up`
        : `the quota reported by the service ("${spec.id}") is used up`;
  const when = spec.kind === "monthly-quota" ? `midnight on the 1st, ${zone}` : `midnight ${zone}`;
  return {
    limit: spec,
    resetsAt,
    message: `${what}; it resets at ${resetsAt.toISOString()} (${when})`,
  };
}

function evaluate(planned: PlannedLimit[], now: number): Verdict {
  // Quotas first: a call that cannot be made today fails now instead of waiting for a window.
  for (const { spec, state } of planned) {
    if ((state.kind === "daily-quota" || state.kind === "monthly-quota") && (spec.kind === "daily-quota" || spec.kind === "monthly-quota")) {
      const { period } = quotaPeriod(spec, now);
      if (state.period !== period) Object.assign(state, { period, count: 0, exhausted: false });
      if (state.exhausted || state.count >= spec.requests) return { ok: false, refusal: refusalFor(spec, now) };
    } else if (state.kind === "header-quota" && spec.kind === "header-quota") {
      const day = dayIn(spec.resetTimeZone, now);
      if (state.day !== day) Object.assign(state, { day, remaining: undefined });
      if (state.remaining !== undefined && state.remaining - state.reserved - state.cost < 0) {
        return { ok: false, refusal: refusalFor(spec, now) };
      }
    }
  }
  let wait = 0;
  let limit = "";
  const blocking: State[] = [];
  for (const { spec, state } of planned) {
    let w = 0;
    if (state.kind === "window" && spec.kind === "window") {
      const span = spec.windowSeconds * 1000;
      if (state.entries.length >= spec.requests || state.entries.length >= state.pruneAt) {
        state.entries = state.entries.filter((e) => e.t > now - span);
        state.pruneAt = Math.max(64, state.entries.length * 2);
      }
      const excess = state.entries.length - spec.requests + 1;
      if (state.blockedUntil > now) w = state.blockedUntil - now;
      else if (excess > 0) {
        const done = state.entries.filter((e) => Number.isFinite(e.t)).map((e) => e.t).sort((a, b) => a - b);
        w = done.length >= excess ? done[excess - 1]! + span - now + 1 : Infinity;
      }
    } else if (state.kind === "concurrency" && spec.kind === "concurrency") {
      if (state.blockedUntil > now) w = state.blockedUntil - now;
      else if (state.active >= spec.max) w = Infinity;
    }
    if (w > 0) {
      blocking.push(state);
      if (w > wait || !limit) {
        wait = Math.max(wait, w);
        limit = spec.id;
      }
    }
  }
  return blocking.length ? { ok: false, wait, blocking, limit } : { ok: true };
}

function commit(planned: PlannedLimit[], pump: () => void): Ticket {
  const releases: Array<(outcome: { sent: boolean; headers?: Headers | undefined }) => void> = [];
  for (const { spec, state } of planned) {
    switch (state.kind) {
      case "window": {
        const entry: Entry = { t: Infinity };
        state.entries.push(entry);
        releases.push(({ sent }) => {
          if (sent) entry.t = Date.now();
          else {
            const i = state.entries.indexOf(entry);
            if (i >= 0) state.entries.splice(i, 1);
          }
        });
        break;
      }
      case "concurrency":
        state.active++;
        releases.push(() => {
          state.active--;
        });
        break;
      case "daily-quota":
      case "monthly-quota":
        state.count++;
        releases.push(({ sent }) => {
          if (!sent) state.count = Math.max(0, state.count - 1);
        });
        break;
      case "header-quota": {
        const cost = state.cost;
        state.reserved += cost;
        const h = spec as Extract<LimitSpec, { kind: "header-quota" }>;
        releases.push(({ headers }) => {
          state.reserved = Math.max(0, state.reserved - cost);
          if (!headers) return;
          const remaining = numberHeader(headers, h.remainingHeader);
          if (remaining !== undefined) {
            state.remaining = remaining;
            state.day = dayIn(h.resetTimeZone);
          }
          const spent = h.costHeader ? numberHeader(headers, h.costHeader) : undefined;
          if (spent !== undefined && spent > 0) state.cost = Math.max(1, spent);
        });
        break;
      }
    }
  }
  let released = false;
  return {
    release(outcome) {
      if (released) return;
      released = true;
      for (const r of releases) r(outcome);
      pump();
    },
  };
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}
