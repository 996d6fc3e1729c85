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
 * Wall time ~120 s: the Redis runs and the outage side by side (~70 s), then each folder run alone
 * (~24 s each).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { describeResult, MEASURED, runScenario, type ScenarioResult, SECRETS } from "./limits-harness.js";

// The longest declared window is World News's 60 s: one whole window of it, six of the 10 s ones.
const DURATION_MS = 61_000;
const FOLDER_MEASURED = MEASURED.filter((m) => m.windowSeconds <= 20).map((m) => m.name);

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
    expect(report.error, `${result.backend} ${result.procs}`).toBeUndefined();
    expect(report.failed, `${result.backend} ${result.procs}`).toEqual({});
  }
  expect(result.rejections, `${result.backend} ${result.procs}`).toEqual({});
  for (const use of result.uses)
    expect(use.used, `${result.backend} ${result.procs}: ${use.name}`).toBeGreaterThanOrEqual(0.97);
  // The budgets were in the store, under key names that carry no credential.
  expect(result.stateKeys.some((k) => k.includes("limits:"))).toBe(true);
  for (const key of result.stateKeys) for (const secret of SECRETS) expect(key).not.toContain(secret);
}

/** Redis killed mid-run and started again (empty); what the workers and the mock saw. */
async function outageRun() {
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
        setTimeout(
          () => void outage.restart().then(() => (restartedAt = Date.now())),
          startAt + killAt + downFor - Date.now(),
        ),
      ];
    },
  });
  for (const t of timers) clearTimeout(t);
  return { result, restartedAt, killAt };
}

// The Redis runs and the outage side by side, each with its own mocks, account and store (a Redis
// database each): eight worker processes on the machine's two cores. Then each folder run alone. A
// folder admits one call at a time per process, at the pace of its lock, so a folder run stays near
// the bound whenever it shares the machine: on a slow night (2026-11-29) the 4-process folder run
// beside the Redis runs used 92.5 % of a Trello window in a fresh-clone CI run, and the two folder
// runs side by side 87 % in one of two runs. Alone, both used every window to ≥ 97 % in every run on
// record (bench/RESULTS.md, round 16, has the earlier arrangements and their figures).
describe("one account, many processes, real windows, 3× offered load", () => {
  it("on Redis and on a state folder, 2 and 4 processes: 0 rejections, ≥ 97 % of every limit used; Redis " +
    "killed and restarted: no limit exceeded, typed errors while down, traffic after", async () => {
    // The folder runs take 22 s: two 10 s windows and one 20 s one. World News's 60 s window is
    // measured whole on Redis only. They took 43 s (four and two windows, and World News's first
    // minute) until CI's time was trimmed: the second window shows the sharing holds past the
    // first, and more windows add nothing to that.
    const [two, four, down] = await Promise.all([
      runScenario({ backend: "redis", procs: 2, durationMs: DURATION_MS, redisUrl: `${redis.url}/2` }),
      runScenario({ backend: "redis", procs: 4, durationMs: DURATION_MS, redisUrl: `${redis.url}/4` }),
      outageRun(),
    ]);
    const folder = { backend: "file", durationMs: 22_000, only: FOLDER_MEASURED } as const;
    const fileFour = await runScenario({ ...folder, procs: 4 });
    const fileTwo = await runScenario({ ...folder, procs: 2 });
    for (const result of [two, four, fileTwo, fileFour]) expectShared(result);

    const { result, restartedAt, killAt } = down;
    console.log(describeResult(result), JSON.stringify(result.reports));
    // Never over the limit: the mock refused nothing, before, during or after the outage.
    expect(result.rejections).toEqual({});
    // While it was down, calls failed with the typed error (NetworkError, code state_unreachable) and nothing else.
    const failures = result.reports.flatMap((r) => Object.keys(r.failed));
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(["trello/network/state_unreachable"]));
    expect(Math.min(...result.reports.flatMap((r) => r.unreachableAt))).toBeGreaterThanOrEqual(killAt / 1000);
    // And traffic came back after the restart (held back one window first: the new Redis knew nothing).
    expect(restartedAt).toBeGreaterThan(0);
    expect(result.arrivals["trello perToken"]!.filter((t) => t > restartedAt).length).toBeGreaterThan(0);
  }, 180_000);
});
