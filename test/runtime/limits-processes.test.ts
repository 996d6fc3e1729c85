/**
 * Many workers, one account: two and four real processes share each service's limits through the
 * state layer (a real redis-server on a free loopback port; a state folder), offered 3× each
 * limit's rate, against the behavioural mocks at the REAL declared windows (10 s, 20 s, 60 s). The
 * mock must refuse nothing and each limit must be used to ≥ 97 %. Then Redis is killed mid-run and
 * started again (empty): no limit is exceeded, calls fail with the typed error while it is down,
 * and traffic resumes after.
 *
 * (Before the shared limiter, two processes on one account were refused by the same mocks: see
 * bench/limiter-processes.ts for the per-process figures.)
 *
 * The scenarios run two or three at a time (each its own mocks, account and Redis database or
 * folder) to keep the wall time near two runs: ~140 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { describeResult, runScenario, type ScenarioResult } from "./limits-harness.js";

// The longest declared window is World News's 60 s: one whole window of it, six of the 10 s ones.
const DURATION_MS = 61_000;

let redis: RunningRedis;
let outage: RunningRedis;
beforeAll(async () => {
  [redis, outage] = await Promise.all([startRedis(), startRedis()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), outage?.stop()]);
});

function expectShared(result: ScenarioResult): void {
  console.log(describeResult(result));
  for (const report of result.reports) {
    expect(report.error).toBeUndefined();
    expect(report.failed).toEqual({});
  }
  expect(result.rejections).toEqual({});
  for (const use of result.uses) expect(use.used, use.name).toBeGreaterThanOrEqual(0.97);
}

function scenario(backend: "redis" | "file", procs: number) {
  it(`${procs} processes on ${backend}: 0 rejections, ≥ 97 % of every limit used`, async () => {
    // Its own Redis database, so scenarios running side by side do not share budgets.
    expectShared(await runScenario({ backend, procs, durationMs: DURATION_MS, redisUrl: backend === "redis" ? `${redis.url}/${procs}` : undefined }));
  }, 150_000);
}

describe.concurrent("four processes on one account, real windows, 3× offered load", () => {
  scenario("redis", 4);
  scenario("file", 4);
});

describe.concurrent("two processes on one account, real windows, 3× offered load", () => {
  scenario("redis", 2);
  scenario("file", 2);

  it("Redis killed mid-run and started again empty: no limit exceeded, typed errors while down, traffic after", async () => {
    const killAt = 8_000;
    const downFor = 6_000;
    let timers: Array<ReturnType<typeof setTimeout>> = [];
    let restartedAt = 0;
    const result = await runScenario({
      backend: "redis",
      procs: 2,
      durationMs: 32_000,
      only: ["trello perToken"],
      redisUrl: outage.url,
      unreachableAfterMs: 1_000,
      onStart: (startAt) => {
        timers = [
          setTimeout(() => void outage.kill(), startAt + killAt - Date.now()),
          setTimeout(() => void outage.restart().then(() => (restartedAt = Date.now())), startAt + killAt + downFor - Date.now()),
        ];
      },
    });
    for (const t of timers) clearTimeout(t);
    console.log(describeResult(result), JSON.stringify(result.reports));
    // Never over the limit: the mock refused nothing, before, during or after the outage.
    expect(result.rejections).toEqual({});
    // While it was down, calls failed with the typed error (NetworkError, code state_unreachable) and nothing else.
    const failures = result.reports.flatMap((r) => Object.keys(r.failed));
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(["trello/network/state_unreachable"]));
    const downSeconds = result.reports.flatMap((r) => r.unreachableAt);
    expect(Math.min(...downSeconds)).toBeGreaterThanOrEqual(killAt / 1000);
    // And traffic came back after the restart (the windows held back one window, as the new Redis knew nothing).
    expect(restartedAt).toBeGreaterThan(0);
    const after = result.arrivals["trello perToken"]!.filter((t) => t > restartedAt);
    expect(after.length).toBeGreaterThan(0);
  }, 150_000);
});
