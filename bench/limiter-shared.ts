/**
 * The limiter on the shared state layer, side by side with the in-process one a user would
 * otherwise keep (and with nothing shared, as before):
 *
 * 1. Per-call overhead: acquire + release of one window with room to spare (a 50 ms window, so a few
 *    dozen entries are live as in a busy real window), sequentially, through
 *    the in-process LimitRegistry and through SharedLimitRegistry over the memory, folder and Redis
 *    stores (a real redis-server on a free loopback port).
 * 2. Wait under load: 4 limiters (standing for 4 processes) on one store share a 100 per 1 s
 *    window, offered 3× for 3 s; p50 and p99 of the time each call waits for its slot.
 * 3. Many processes, one account (real processes, the behavioural mocks at their real windows,
 *    3× offered load for 21 s): what the mock refused with per-process limits (before) and with the
 *    shared limiter on a folder and on Redis (after). Skipped with --quick.
 * 4. Admissions per second through one store: 4 real processes, 5 operations each with 8 calls in
 *    flight, every window with ample room (bench/lib/admit-worker.ts), on a folder and on Redis.
 *
 *   npx tsx bench/limiter-shared.ts [--quick]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Limiter, LimitRegistry } from "../runtime/limits/limits.js";
import { SharedLimitRegistry } from "../runtime/limits/shared.js";
import { FileStateStore } from "../runtime/state/file.js";
import { MemoryStateStore } from "../runtime/state/memory.js";
import { RedisStateStore } from "../runtime/state/redis.js";
import type { StateStore } from "../runtime/state/types.js";
import { startRedis } from "../test/helpers/redis.js";
import { describeResult, MEASURED, runScenario } from "../test/runtime/limits-harness.js";
import { readOperation, windowLimit } from "./lib/limit-specs.js";
import { median, ratio, table } from "./lib/report.js";

const quick = process.argv.includes("--quick");
const op = readOperation("getThing", "/things/{id}");
const scopes = { connection: "bench", fields: {} };

const redis = await startRedis();
const dir = mkdtempSync(join(tmpdir(), "sf-bench-limits-"));
const stores: Array<[string, () => StateStore]> = [
  ["memory store", () => new MemoryStateStore()],
  ["folder", () => new FileStateStore(dir)],
  ["Redis", () => new RedisStateStore(redis.url)],
];

try {
  // 1. Per-call overhead.
  const calls = quick ? 500 : 2000;
  const perCall = async (limiter: Limiter): Promise<number> => {
    // Room to spare, and a short window so the store holds a realistic few dozen live entries.
    const planned = limiter.plan("bench", [windowLimit(1_000_000, 0.05)], op, scopes);
    for (let i = 0; i < 50; i++) (await limiter.acquire(planned)).release({ sent: true });
    const started = performance.now();
    for (let i = 0; i < calls; i++) (await limiter.acquire(planned)).release({ sent: true });
    return ((performance.now() - started) / calls) * 1000;
  };
  const base = await perCall(new LimitRegistry());
  const rows: Array<Array<string | number>> = [
    ["in-process LimitRegistry (one process only)", base.toFixed(1), "1.00×"],
  ];
  for (const [name, make] of stores) {
    const store = make();
    const us = await perCall(new SharedLimitRegistry(store));
    rows.push([`SharedLimitRegistry, ${name}`, us.toFixed(1), ratio(us, base)]);
    await store.close();
  }
  console.log(`per-call overhead of the limiter (acquire + release, one window with room, ${calls} calls in a row)\n`);
  console.log(table(["limiter", "µs per call", "vs in-process"], rows));

  // 2. Wait under load.
  const loadRows: Array<Array<string | number>> = [];
  for (const [name, make] of [["in-process (1 limiter)", () => undefined], ...stores] as Array<
    [string, () => StateStore | undefined]
  >) {
    const shared = make();
    const limiters: Limiter[] = shared
      ? Array.from({ length: 4 }, () => new SharedLimitRegistry(shared))
      : [new LimitRegistry()];
    const spec = windowLimit(100, 1);
    const waits: number[] = [];
    const started = Date.now();
    const seconds = 3;
    const offered: Array<Promise<void>> = [];
    // 300 calls per second in all, spread over the limiters.
    for (let i = 0; i < 300 * seconds; i++) {
      const limiter = limiters[i % limiters.length]!;
      const planned = limiter.plan("bench-load", [spec], op, { connection: `load-${name}`, fields: {} });
      offered.push(
        (async () => {
          await new Promise((r) => setTimeout(r, (i / 300) * 1000 - (Date.now() - started)));
          const asked = performance.now();
          const ticket = await limiter
            .acquire(planned, { signal: AbortSignal.timeout(seconds * 1000 + 500) })
            .catch(() => undefined);
          if (!ticket) return;
          waits.push(performance.now() - asked);
          setTimeout(() => ticket.release({ sent: true }), 2);
        })(),
      );
    }
    await Promise.all(offered);
    waits.sort((a, b) => a - b);
    const p = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? Number.NaN;
    loadRows.push([name, waits.length, median(waits).toFixed(0), p(0.99).toFixed(0)]);
    await shared?.close();
  }
  console.log(
    `\nwait for a slot under load (a 100 per 1 s window offered 300 per second for 3 s, 4 limiters on one store)\n`,
  );
  console.log(table(["limiter", "admitted", "p50 wait ms", "p99 wait ms"], loadRows));

  // 3. Before and after, real processes at real windows.
  if (!quick) {
    const only = MEASURED.filter((m) => m.windowSeconds <= 20).map((m) => m.name);
    const results = [];
    for (const backend of ["memory", "file", "redis"] as const) {
      results.push(await runScenario({ backend, procs: 2, durationMs: 21_000, only, redisUrl: `${redis.url}/3` }));
    }
    console.log(
      `\ntwo processes on one account, 3× offered load, real windows, 21 s (what the behavioural mock refused)\n`,
    );
    const names = results[0]!.uses.map((u) => u.name);
    console.log(
      table(
        ["limits", ...names],
        results.map((r) => [
          r.backend === "memory" ? "per process (before)" : `shared, ${r.backend === "file" ? "folder" : "Redis"}`,
          ...names.map((n) => {
            const use = r.uses.find((u) => u.name === n)!;
            const refused = r.rejections[n] ?? 0;
            return `${refused} of ${r.sent[n] ?? 0} refused, ${(use.used * 100).toFixed(0)} % used`;
          }),
        ]),
      ),
    );
    for (const r of results) console.error(describeResult(r));
  }

  // 4. Throughput of the store itself.
  const admitted = (where: string, ms: number) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", new URL("./lib/admit-worker.ts", import.meta.url).pathname, where, "5", String(ms)],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`exit ${code}`))));
    });
  const seconds = quick ? 3 : 6;
  const throughputRows: Array<Array<string | number>> = [];
  for (const [name, where] of [
    ["folder", mkdtempSync(join(tmpdir(), "sf-bench-admit-"))],
    ["Redis", `${redis.url}/5`],
  ] as const) {
    const counts = await Promise.all(Array.from({ length: 4 }, () => admitted(where, seconds * 1000)));
    const total = counts.reduce((a, b) => a + b, 0) / seconds;
    throughputRows.push([name, total.toFixed(0), counts.map((c) => (c / seconds).toFixed(0)).join(", ")]);
    if (!where.startsWith("redis://")) rmSync(where, { recursive: true, force: true });
  }
  console.log(
    `\nadmissions per second through one store (4 processes × 5 operations, 8 calls in flight each, ${seconds} s)\n`,
  );
  console.log(table(["store", "calls admitted per second", "per process"], throughputRows));
} finally {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
