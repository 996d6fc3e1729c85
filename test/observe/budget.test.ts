/**
 * The remaining budget per limit (`stepforge.limit.remaining`), read through the OpenTelemetry
 * SDK's metric reader: after N calls against a window of M requests the gauge reads M - N, with the
 * in-process limiter and with the shared one on a real redis-server (the number comes back from the
 * same script that admits). Then a scan of every label for the connection's secrets and its name.
 */
import { type DataPoint, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
// The observability layer (tracing, metrics, validate) is an explicit import, as in an application.
import "../../runtime/observe/index.js";
import { descriptor as trello } from "../../generated/trello/descriptor.js";
import { descriptor as worldnews } from "../../generated/worldnews/descriptor.js";
import {
  createServiceClient,
  createSharedState,
  LimitRegistry,
  type PipelineEvent,
  type SharedState,
} from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { haveRedis, type RunningRedis, startRedis } from "../helpers/redis.js";
import { CARD, WORLDNEWS } from "../mock/helpers.js";
import { hexMarker, textMarker } from "../reliability/markers.js";

/** Collects on demand (no timer). */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const apiKey = hexMarker("trello.apiKey");
const token = textMarker("trello.token");
const LIMIT = 10;
const CALLS = 3;

let mock: RunningMock;
let redis: RunningRedis | undefined;
beforeAll(async () => {
  mock = await startMock("trello", { auth: { credentials: { apiKey: apiKey.value, token: token.value } } });
});
afterAll(async () => {
  await mock?.close();
  await redis?.stop();
});

/** Makes CALLS calls of getCard through `shared` with the per-token window set to LIMIT; the gauge's points. */
async function budgetAfterCalls(shared: SharedState): Promise<{ points: DataPoint<number>[]; unit: string }> {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  const client = createServiceClient(trello, {
    connection: { name: "acme-work", fields: { apiKey: apiKey.value, token: token.value } },
    baseUrl: mock.url,
    shared,
    limits: { perToken: { requests: LIMIT } },
    metrics: { meter: provider.getMeter("test") },
  });
  for (let i = 0; i < CALLS; i++) await client.call("getCard", { params: { path: { id: CARD } } });
  const { resourceMetrics } = await reader.collect();
  const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  const gauge = metrics.find((m) => m.descriptor.name === "stepforge.limit.remaining");
  const labels = JSON.stringify(metrics.map((m) => m.dataPoints.map((p) => p.attributes)));
  for (const secret of [apiKey, token]) {
    expect(labels).not.toContain(secret.value);
    expect(labels).not.toContain(secret.tail);
  }
  expect(labels).not.toContain("acme");
  await provider.shutdown();
  return { points: (gauge?.dataPoints ?? []) as DataPoint<number>[], unit: gauge?.descriptor.unit ?? "" };
}

/** limit id → [scope, value] for the getCard call's limits (members covers only /1/members/). */
function byLimit(points: DataPoint<number>[]): Record<string, [unknown, number]> {
  return Object.fromEntries(
    points.map((p) => [p.attributes["stepforge.limit"], [p.attributes["stepforge.limit.scope"], p.value]]),
  );
}

describe("remaining budget per limit", () => {
  it("in-process limiter: after N calls against a window of M the gauge reads M - N", async () => {
    const { points, unit } = await budgetAfterCalls(createSharedState());
    expect(unit).toBe("{request}");
    expect(byLimit(points)).toEqual({
      perToken: ["connection", LIMIT - CALLS],
      perKey: ["field:apiKey", 300 - CALLS],
    });
    expect(points[0]!.attributes["stepforge.service"]).toBe("trello");
    expect(points[0]!.attributes["stepforge.connection.hash"]).toMatch(/^[0-9a-f]{16}$/);
  });

  it("a header quota counted in the service's cost units is its own gauge, once the service reported it", async () => {
    const news = await startMock("worldnews", { auth: { credentials: { apiKey: WORLDNEWS.apiKey } } });
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    try {
      const client = createServiceClient(worldnews, {
        connection: { name: "news", fields: { apiKey: WORLDNEWS.apiKey } },
        baseUrl: news.url,
        shared: createSharedState(),
        metrics: { meter: provider.getMeter("test") },
      });
      const search = { params: { query: { text: "electric", number: 1 } } };
      await client.call("searchNews", search);
      const gauge = async () => {
        const { resourceMetrics } = await reader.collect();
        const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
        return metrics.find((m) => m.descriptor.name === "stepforge.limit.remaining_cost");
      };
      // Nothing is known before the first answer's headers: no reading rather than a made-up one.
      expect((await gauge())?.dataPoints ?? []).toEqual([]);
      await client.call("searchNews", search);
      const cost = await gauge();
      expect(cost?.descriptor.unit).toBe("{cost}");
      // 50 points a day; the first call cost 1.01 (1 + 0.01 per result) and the second holds as much.
      expect(cost?.dataPoints.map((p) => p.attributes["stepforge.limit"])).toEqual(["points"]);
      expect(cost?.dataPoints[0]?.value).toBeCloseTo(50 - 2 * 1.01, 6);
    } finally {
      await provider.shutdown();
      await news.close();
    }
  });

  it("nobody reads budgets (a tracer-like observer): the limiter is never asked for one", async () => {
    /** Counts how often a ticket's budget is worked out. */
    class CountingRegistry extends LimitRegistry {
      asked = 0;
      override tryAcquire(...args: Parameters<LimitRegistry["tryAcquire"]>) {
        const ticket = super.tryAcquire(...args);
        const remaining = ticket?.remaining;
        if (!ticket || !remaining) return ticket;
        const counted = () => {
          this.asked++;
          return remaining();
        };
        return { release: ticket.release, remaining: counted };
      }
    }
    const run = async (eventTypes: PipelineEvent["type"][]) => {
      const limits = new CountingRegistry();
      const seen: PipelineEvent["type"][] = [];
      const client = createServiceClient(trello, {
        connection: { name: "t", fields: { apiKey: apiKey.value, token: token.value } },
        baseUrl: mock.url,
        shared: { ...createSharedState(), limits },
        observers: [{ eventTypes, onEvent: (e) => void seen.push(e.type) }],
      });
      for (let i = 0; i < CALLS; i++) await client.call("getCard", { params: { path: { id: CARD } } });
      return { asked: limits.asked, budgets: seen.filter((t) => t === "budget").length };
    };
    expect(await run(["call_start", "call_end", "attempt_start", "attempt_end"])).toEqual({ asked: 0, budgets: 0 });
    expect(await run(["call_end", "budget"])).toEqual({ asked: CALLS, budgets: CALLS });
  });

  // Not skipped without redis-server: a skip passes in silence (.ci/run installs it).
  it("shared limiter on Redis: the same reading, from the admitting script", { timeout: 30_000 }, async () => {
    if (!haveRedis()) throw new Error("redis-server is not installed (apt-get install redis-server)");
    redis = await startRedis();
    const shared = createSharedState({ redisUrl: redis.url });
    try {
      expect(shared.limits.constructor.name).toBe("SharedLimitRegistry");
      // No extra round trip: one admission per call, and no read of a budget besides it.
      const admits = vi.spyOn(shared.store, "admit");
      const reads = [vi.spyOn(shared.store, "slots"), vi.spyOn(shared.store, "counter")];
      const { points } = await budgetAfterCalls(shared);
      expect(byLimit(points)).toEqual({
        perToken: ["connection", LIMIT - CALLS],
        perKey: ["field:apiKey", 300 - CALLS],
      });
      expect(admits).toHaveBeenCalledTimes(CALLS);
      for (const read of reads) expect(read).not.toHaveBeenCalled();
    } finally {
      await shared.store.close();
    }
  });
});
