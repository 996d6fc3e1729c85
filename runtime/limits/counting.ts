/**
 * What each kind of limit counts, and how it decides whether a call may go now: the state of one
 * budget (a window's log, requests in flight, a day's or month's count, what the service reports
 * is left), the verdict for a planned call, and the ticket that returns what the call took. The
 * registry (limits.ts) queues callers over these; the shared registry (shared.ts) mirrors them.
 */
import type { ShippedLimit } from "../descriptor.js";
import { dayIn, monthIn, nextMidnight, nextMonthStart } from "../internal/time.js";

export interface WindowState {
  kind: "window";
  /** Requests admitted whose answer has not come yet: they count, with no time yet. */
  pending: number;
  /**
   * When each answered request's answer came (ms), oldest first, from index `start` on (older
   * ones have left the window). Plain numbers, not an object per request: a window with a lot of
   * room holds every call of its span, and per-call objects showed in the per-call cost.
   */
  answered: number[];
  start: number;
  /** The service said this window is full (someone else spent it): send nothing before this. */
  blockedUntil: number;
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
export type State = WindowState | ConcurrencyState | PeriodState | HeaderState;

export interface PlannedLimit {
  spec: ShippedLimit;
  /** Names the budget: service, limit and scope (never a secret: credential values are hashed). */
  key: string;
  state: State;
}

/** Why a call cannot be made at all today. */
export interface QuotaRefusal {
  limit: ShippedLimit;
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
  /**
   * What each planned limit has left right after this admission, in plan order (undefined: not
   * known, such as a header quota the service has not reported yet). Read at once after admission,
   * only when someone watches the budgets, so a limiter may work it out when asked.
   */
  remaining?(): ReadonlyArray<number | undefined>;
}

export type Verdict =
  | { ok: true }
  | { ok: false; wait: number; blocking: State[]; limit: string }
  | { ok: false; refusal: QuotaRefusal };

export const NOOP_TICKET: Ticket = { release() {} };

export function newState(spec: ShippedLimit): State {
  switch (spec.kind) {
    case "window":
      return { kind: "window", pending: 0, answered: [], start: 0, blockedUntil: 0 };
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
export function quotaPeriod(spec: ShippedLimit, now: number): { period: string; resetsAt: Date } {
  const zone = "resetTimeZone" in spec ? spec.resetTimeZone : "UTC";
  return spec.kind === "monthly-quota"
    ? { period: monthIn(zone, now), resetsAt: nextMonthStart(zone, now) }
    : { period: dayIn(zone, now), resetsAt: nextMidnight(zone, now) };
}

export function refusalFor(spec: ShippedLimit, now: number): QuotaRefusal {
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

export function evaluate(planned: PlannedLimit[], now: number): Verdict {
  // Quotas first: a call that cannot be made today fails now instead of waiting for a window.
  for (const { spec, state } of planned) {
    if (
      (state.kind === "daily-quota" || state.kind === "monthly-quota") &&
      (spec.kind === "daily-quota" || spec.kind === "monthly-quota")
    ) {
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
      forgetBefore(state, now - span);
      const done = state.answered.length - state.start;
      const excess = state.pending + done - spec.requests + 1;
      if (state.blockedUntil > now) w = state.blockedUntil - now;
      else if (excess > 0) {
        // Room comes when the oldest answers leave the window; requests still out have no time yet.
        w = done >= excess ? state.answered[state.start + excess - 1]! + span - now + 1 : Infinity;
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

export function commit(planned: PlannedLimit[], pump: () => void): Ticket {
  const releases: Array<(outcome: { sent: boolean; headers?: Headers | undefined }) => void> = [];
  for (const { spec, state } of planned) {
    switch (state.kind) {
      case "window": {
        state.pending++;
        releases.push(({ sent }) => {
          state.pending--;
          if (sent) noteAnswer(state, Date.now());
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
        const h = spec as Extract<ShippedLimit, { kind: "header-quota" }>;
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
    remaining: () => remainingOf(planned, Date.now()),
  };
}

/** What each planned limit has left now (see `Ticket.remaining`), in the limit's own unit. */
export function remainingOf(planned: PlannedLimit[], now: number): Array<number | undefined> {
  return planned.map(({ spec, state }) => {
    switch (state.kind) {
      case "window": {
        if (spec.kind !== "window") return undefined;
        forgetBefore(state, now - spec.windowSeconds * 1000);
        return Math.max(0, spec.requests - (state.pending + state.answered.length - state.start));
      }
      case "concurrency":
        return spec.kind === "concurrency" ? Math.max(0, spec.max - state.active) : undefined;
      case "daily-quota":
      case "monthly-quota":
        return "requests" in spec ? Math.max(0, spec.requests - state.count) : undefined;
      case "header-quota":
        return state.remaining === undefined ? undefined : Math.max(0, state.remaining - state.reserved);
    }
  });
}

/** Drops answers at or before `cutoff` (out of the window); compacts the list now and then. */
function forgetBefore(state: WindowState, cutoff: number): void {
  const { answered } = state;
  while (state.start < answered.length && answered[state.start]! <= cutoff) state.start++;
  if (state.start >= 1024 && state.start * 2 >= answered.length) {
    state.answered = answered.slice(state.start);
    state.start = 0;
  }
}

/** Records an answer's time, keeping the list in order (a clock set back lands it in its place). */
function noteAnswer(state: WindowState, at: number): void {
  const { answered } = state;
  let i = answered.length;
  while (i > state.start && answered[i - 1]! > at) i--;
  if (i === answered.length) answered.push(at);
  else answered.splice(i, 0, at);
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}
