/**
 * How the quota kinds count: `daily-quota` and `monthly-quota` (requests per calendar day or month
 * in the service's zone) and `header-quota` (what the service's headers say is left). A part of
 * its own, as paging is: only clients whose spec declares such a quota carry it and the calendar
 * arithmetic under it (runtime/internal/time.ts); the window and concurrency kinds, which every
 * client needs, stay in counting.ts. A client registers it when built (`useQuotaCounting`).
 */
import type { ShippedLimit } from "../descriptor.js";
import { dayIn, monthIn, nextMidnight, nextMonthStart } from "../internal/time.js";
import type { HeaderState, PeriodState, QuotaCounting, QuotaRefusal, State } from "./counting.js";

type HeaderQuota = Extract<ShippedLimit, { kind: "header-quota" }>;

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

const isPeriod = (state: State): state is PeriodState => state.kind === "daily-quota" || state.kind === "monthly-quota";

function numberHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** The quota kinds' counting, for counting.ts and the registries (see QuotaCounting). */
export const quotaCounting: QuotaCounting = {
  newState(spec) {
    return spec.kind === "header-quota"
      ? { kind: "header-quota", day: "", remaining: undefined, reserved: 0, cost: 1 }
      : { kind: spec.kind as PeriodState["kind"], period: "", count: 0, exhausted: false };
  },

  refusal(spec, state, now) {
    if (isPeriod(state) && "requests" in spec) {
      const { period } = quotaPeriod(spec, now);
      if (state.period !== period) Object.assign(state, { period, count: 0, exhausted: false });
      if (state.exhausted || state.count >= spec.requests) return refusalFor(spec, now);
    } else if (state.kind === "header-quota" && spec.kind === "header-quota") {
      const day = dayIn(spec.resetTimeZone, now);
      if (state.day !== day) Object.assign(state, { day, remaining: undefined });
      if (state.remaining !== undefined && state.remaining - state.reserved - state.cost < 0) {
        return refusalFor(spec, now);
      }
    }
    return undefined;
  },

  take(spec, state) {
    if (isPeriod(state)) {
      state.count++;
      return ({ sent }) => {
        if (!sent) state.count = Math.max(0, state.count - 1);
      };
    }
    const header = state as HeaderState;
    const h = spec as HeaderQuota;
    const cost = header.cost;
    header.reserved += cost;
    return ({ headers }) => {
      header.reserved = Math.max(0, header.reserved - cost);
      if (!headers) return;
      const remaining = numberHeader(headers, h.remainingHeader);
      if (remaining !== undefined) {
        header.remaining = remaining;
        header.day = dayIn(h.resetTimeZone);
      }
      const spent = h.costHeader ? numberHeader(headers, h.costHeader) : undefined;
      if (spent !== undefined && spent > 0) header.cost = Math.max(1, spent);
    };
  },

  remaining(spec, state) {
    if (isPeriod(state)) return "requests" in spec ? Math.max(0, spec.requests - state.count) : undefined;
    const header = state as HeaderState;
    return header.remaining === undefined ? undefined : Math.max(0, header.remaining - header.reserved);
  },

  spent(spec, state, now) {
    if (isPeriod(state)) state.exhausted = true;
    else {
      const header = state as HeaderState;
      header.remaining = 0;
      header.day = dayIn((spec as HeaderQuota).resetTimeZone);
    }
    return refusalFor(spec, now);
  },

  count(state) {
    return isPeriod(state) ? state.count : ((state as HeaderState).remaining ?? Number.NaN);
  },
};
