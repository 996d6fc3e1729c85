/**
 * What each kind of limit counts, and how it decides whether a call may go now: the state of one
 * budget (a window's log, requests in flight, a day's or month's count, what the service reports
 * is left), the verdict for a planned call, and the ticket that returns what the call took. The
 * registry (limits.ts) queues callers over these; the shared registry (shared.ts) mirrors them.
 */
import type { ShippedLimit } from "../descriptor.js";

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
export interface PeriodState {
  kind: "daily-quota" | "monthly-quota";
  period: string;
  count: number;
  exhausted: boolean;
}
export interface HeaderState {
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

/**
 * How the quota kinds count (quotas.ts `quotaCounting`): a part of its own, which a client whose
 * spec declares a daily, monthly or header quota registers when it is built (`useQuotaCounting`).
 */
export interface QuotaCounting {
  newState(spec: ShippedLimit): State;
  /** Why the quota cannot take a call now (its period's count spent, or the reported budget). */
  refusal(spec: ShippedLimit, state: State, now: number): QuotaRefusal | undefined;
  /** Takes the call's share; what the returned function does when the attempt is over. */
  take(spec: ShippedLimit, state: State): (outcome: { sent: boolean; headers?: Headers | undefined }) => void;
  remaining(spec: ShippedLimit, state: State): number | undefined;
  /** The service refused a call under the quota: spent until its reset. */
  spent(spec: ShippedLimit, state: State, now: number): QuotaRefusal;
  /** What the state counts, for snapshots: requests this period, or what the service reports is left. */
  count(state: State): number;
}

let quotas: QuotaCounting | undefined;

export function useQuotaCounting(counting: QuotaCounting): void {
  quotas = counting;
}

/** The quota kinds' counting; a spec's quota without it is a program error, named. */
export function quotaCountingFor(spec: { id: string; kind: string }): QuotaCounting {
  if (!quotas)
    throw new Error(
      `limit "${spec.id}" is a ${spec.kind}, but no client built with the quota part ran in this program; ` +
        "pass { quotas: quotaCounting } to createClient, or use createServiceClient",
    );
  return quotas;
}

export function newState(spec: ShippedLimit): State {
  if (spec.kind === "window") return { kind: "window", pending: 0, answered: [], start: 0, blockedUntil: 0 };
  if (spec.kind === "concurrency") return { kind: "concurrency", active: 0, blockedUntil: 0 };
  return quotaCountingFor(spec).newState(spec);
}

export function evaluate(planned: PlannedLimit[], now: number): Verdict {
  // Quotas first: a call that cannot be made today fails now instead of waiting for a window.
  for (const { spec, state } of planned) {
    if (state.kind === "window" || state.kind === "concurrency") continue;
    const refusal = quotaCountingFor(spec).refusal(spec, state, now);
    if (refusal) return { ok: false, refusal };
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
      default:
        releases.push(quotaCountingFor(spec).take(spec, state));
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
      default:
        return quotaCountingFor(spec).remaining(spec, state);
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
