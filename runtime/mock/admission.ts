/**
 * Admission: the service's own limits, enforced the way the service enforces them — a request
 * over a limit is refused at once with the service's answer (no queueing; that is the client's
 * job, runtime/limits/limits.ts). The limits and overrides are the descriptor's, read through the
 * runtime's `effectiveLimits`; days and months are the runtime's (`dayIn`, `monthIn`).
 *
 * - `window`: a sliding log of the last `windowSeconds`.
 * - `concurrency`: requests in flight.
 * - `daily-quota` / `monthly-quota`: requests per calendar day / month in `resetTimeZone`.
 * - `header-quota`: points per day (`x-stepforge.mock.quota`), charged after the answer and
 *   reported in the limit's headers.
 *
 * Each limit counts per connection, per credential field (`field:apiKey`) or per path parameter
 * (`path:idBoard`, for every caller); `excludePathPrefixes` routes are neither counted nor refused;
 * after a refusal a limit with `penaltySeconds` refuses its key for that long.
 */
import type { ShippedLimit } from "../descriptor.js";
import { effectiveLimits, type LimitOverrides } from "../limits/limits.js";
import { dayIn, monthIn, nextMidnight, nextMonthStart } from "../internal/time.js";
import type { Answers } from "./answers.js";
import type { Caller } from "./auth.js";
import type { MockAnswer, MockService } from "./extension-types.js";
import type { Context } from "./template.js";
import { bump, type MockCounters, type MockDefinition, type MockLimitOptions, type Reply } from "./types.js";

/** What admission needs to know about the request. */
export interface AdmissionRequest {
  limitClass: "read" | "write";
  /** Names of the path template's parameters, and their values. */
  pathParams: Record<string, string>;
  path: string;
}

export interface Ticket {
  release(): void;
  /** header-quota limits to charge once the answer is known. */
  quotas?: Array<{ key: string; limit: Extract<ShippedLimit, { kind: "header-quota" }>; points: number }>;
}

const FREE: Ticket = { release() {} };

type Scaled = ShippedLimit & { points?: number };

export class Admission {
  readonly limits: Scaled[];
  private windows = new Map<string, number[]>();
  private inFlight = new Map<string, number>();
  private counts = new Map<string, number>();
  private points = new Map<string, number>();
  private penalties = new Map<string, number>();

  constructor(
    definition: MockDefinition,
    options: MockLimitOptions,
    private readonly model: MockService,
    private readonly answers: Answers,
    private readonly counters: () => MockCounters,
    private readonly clock: () => number,
  ) {
    const overrides: LimitOverrides = {};
    const points: Record<string, number> = {};
    for (const [id, o] of Object.entries(options.overrides ?? {})) {
      const { points: p, ...rest } = o;
      overrides[id] = rest;
      if (p !== undefined) {
        if (!(p > 0))
          throw new Error(`${definition.descriptor.id} mock: limit override ${id}.points must be a positive number`);
        points[id] = p;
      }
    }
    if (options.scale !== undefined && !(options.scale > 0))
      throw new Error(`${definition.descriptor.id} mock: the limit scale must be a positive number`);
    const scale = options.scale ?? 1;
    const effective = effectiveLimits(definition.descriptor, overrides);
    this.limits = options.off
      ? []
      : effective.map((l) => {
          const out: Scaled = { ...l };
          if ("requests" in out) out.requests = Math.max(1, Math.round(out.requests * scale));
          if ("max" in out) out.max = Math.max(1, Math.round(out.max * scale));
          if (l.kind === "header-quota")
            out.points = (points[l.id] ?? model.quota?.points ?? Number.POSITIVE_INFINITY) * scale;
          return out;
        });
  }

  reset(): void {
    for (const m of [this.windows, this.inFlight, this.counts, this.points, this.penalties]) m.clear();
  }

  private applies(limit: Scaled, req: AdmissionRequest): boolean {
    if (limit.applies !== "all" && limit.applies !== req.limitClass) return false;
    if (limit.pathPrefix && !req.path.startsWith(limit.pathPrefix)) return false;
    if (limit.excludePathPrefixes?.some((p) => req.path.startsWith(p))) return false;
    if (limit.per.startsWith("path:") && req.pathParams[limit.per.slice(5)] === undefined) return false;
    return true;
  }

  private keyOf(limit: Scaled, req: AdmissionRequest, caller: Caller): string {
    if (limit.per === "connection") return `${limit.id}|c${caller.index}`;
    if (limit.per.startsWith("field:")) return `${limit.id}|f${caller.credential[limit.per.slice(6)] ?? ""}`;
    return `${limit.id}|p${req.pathParams[limit.per.slice(5)]}`;
  }

  /** Takes room under every limit that applies, or answers with the first that has none. */
  admit(req: AdmissionRequest, caller: Caller, ctx: Context): Ticket | Reply {
    if (this.limits.length === 0) return FREE;
    const now = this.clock();
    const planned: Array<{ limit: Scaled; key: string; period?: string }> = [];
    for (const limit of this.limits) {
      if (!this.applies(limit, req)) continue;
      const key = this.keyOf(limit, req, caller);
      const penalty = this.penalties.get(key);
      if (penalty !== undefined && penalty > now)
        return this.refuse(limit, key, ctx, Math.ceil((penalty - now) / 1000));
      switch (limit.kind) {
        case "window": {
          const span = limit.windowSeconds * 1000;
          let log = this.windows.get(key);
          if (!log) this.windows.set(key, (log = []));
          let expired = 0;
          while (expired < log.length && log[expired]! <= now - span) expired++;
          if (expired) log.splice(0, expired);
          if (log.length >= limit.requests)
            return this.refuse(limit, key, ctx, Math.ceil((log[0]! + span - now) / 1000));
          planned.push({ limit, key });
          break;
        }
        case "concurrency":
          if ((this.inFlight.get(key) ?? 0) >= limit.max) return this.refuse(limit, key, ctx, 1);
          planned.push({ limit, key });
          break;
        case "daily-quota":
        case "monthly-quota": {
          const daily = limit.kind === "daily-quota";
          const period = `${key}|${daily ? dayIn(limit.resetTimeZone, now) : monthIn(limit.resetTimeZone, now)}`;
          if ((this.counts.get(period) ?? 0) >= limit.requests) {
            const resets = daily ? nextMidnight(limit.resetTimeZone, now) : nextMonthStart(limit.resetTimeZone, now);
            return this.refuse(limit, key, ctx, Math.ceil((resets.getTime() - now) / 1000));
          }
          planned.push({ limit, key, period });
          break;
        }
        case "header-quota": {
          const period = `${key}|${dayIn(limit.resetTimeZone, now)}`;
          if ((this.points.get(period) ?? 0) >= limit.points!)
            return this.refuse(
              limit,
              key,
              ctx,
              Math.ceil((nextMidnight(limit.resetTimeZone, now).getTime() - now) / 1000),
            );
          planned.push({ limit, key, period });
          break;
        }
      }
    }
    if (planned.length === 0) return FREE;
    const held: string[] = [];
    const quotas: NonNullable<Ticket["quotas"]> = [];
    for (const { limit, key, period } of planned) {
      if (limit.kind === "window") this.windows.get(key)!.push(now);
      else if (limit.kind === "concurrency") {
        this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
        held.push(key);
      } else if (limit.kind === "header-quota") quotas.push({ key: period!, limit, points: limit.points! });
      else this.counts.set(period!, (this.counts.get(period!) ?? 0) + 1);
    }
    let released = held.length === 0;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const key of held) this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
      },
      ...(quotas.length ? { quotas } : {}),
    };
  }

  /** Charges header quotas for an answered call (a list costs per result) and reports them in its headers. */
  charge(ticket: Ticket, reply: Reply, resultCount: number): void {
    const q = this.model.quota;
    for (const { key, limit, points } of ticket.quotas ?? []) {
      const cost = Math.round(((q?.perCall ?? 1) + (q?.perResult ?? 0) * resultCount) * 100) / 100;
      const used = Math.round(((this.points.get(key) ?? 0) + cost) * 100) / 100;
      this.points.set(key, used);
      if (limit.costHeader) reply.headers[limit.costHeader.toLowerCase()] = String(cost);
      if (limit.usedHeader) reply.headers[limit.usedHeader.toLowerCase()] = String(used);
      if (Number.isFinite(points))
        reply.headers[limit.remainingHeader.toLowerCase()] = String(
          Math.max(0, Math.round((points - used) * 100) / 100),
        );
    }
  }

  private refuse(limit: Scaled, key: string, ctx: Context, retryAfterSeconds: number): Reply {
    const c = this.counters();
    c.rateLimited++;
    bump(c.rejections, limit.id);
    if (limit.penaltySeconds !== undefined && !(this.penalties.get(key)! > this.clock())) {
      this.penalties.set(key, this.clock() + limit.penaltySeconds * 1000);
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.ceil(limit.penaltySeconds));
    }
    const la = this.model.limits[limit.id];
    const answer: MockAnswer = {
      status: limit.rejection.status,
      code: la?.code ?? limit.rejection.code,
      // Generated mocks carry every limit's text in their own data (emit/mock.ts): clients' descriptors ship none.
      message: la?.message ?? limit.description ?? `limit ${limit.id} exceeded`,
      template: la?.template,
    };
    const headers: Record<string, string> = {};
    if (la?.retryAfter) headers["retry-after"] = String(Math.max(1, retryAfterSeconds));
    return this.answers.error(answer, { ...ctx, limit }, headers);
  }
}
