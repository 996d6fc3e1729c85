/**
 * Run by cpu-budget.test.ts pinned to one core (`taskset -c 0`): a program that needs about half its
 * CPU budget (in CPU time) runs once alone, then again beside a thread that spins on the same core,
 * so the run waits for the core about as long as it computes; then a program that needs about five
 * times the budget runs beside it.
 * Prints one JSON line: each run's failure kind (or "ok"), the time it reports, and for the run beside the
 * spinner the CPU time every thread of this process but the spinner used meanwhile (from /proc).
 */
import { Worker } from "node:worker_threads";
import { threadsCpuMs } from "../../runtime/internal/thread-cpu.js";
import { InlineSandbox } from "../../runtime/code/inline.js";
import { DEFAULT_BUDGETS } from "../../runtime/code/protocol.js";
import { Sandbox } from "../../runtime/code/sandbox.js";
import { echoJob } from "./echo-host.js";

const budgets = { ...DEFAULT_BUDGETS, cpuMs: 500, wallMs: 30_000 };
const memoryBytes = budgets.memoryBytes;
const sandbox =
  process.argv[2] === "inline"
    ? new InlineSandbox({ engines: 1, memoryBytes })
    : new Sandbox({ workers: 1, memoryBytes });
await sandbox.warm();

const loop = (n: number) =>
  echoJob(`let x = 0; for (let i = 0; i < ${n}; i++) x = (x + i) % 1009; return x >= 0 ? "done" : "no";`, budgets);
const run = async (n: number) => {
  const outcome = await sandbox.run(loop(n));
  return { kind: outcome.failure?.kind ?? "ok", ms: outcome.cpuMs };
};

/** CPU time (ms) the threads of this process used since `before`, leaving out `except`'s. */
const cpuSince = (before: Map<number, number>, except?: number) =>
  [...threadsCpuMs()].filter(([id]) => id !== except).reduce((sum, [id, ms]) => sum + ms - (before.get(id) ?? 0), 0);

// Alone: the number of rounds that takes 40–60 % of the budget in CPU time. Counted in CPU time,
// not the time the run reports: in CI other test files share core 0, and a calibration on the wall
// clock then settled on a run of 30 ms of CPU, too short for the spinner to take half of it.
const calibrate = async (n: number) => {
  const before = threadsCpuMs();
  const result = await run(n);
  return { ...result, cpuMs: cpuSince(before) };
};
let rounds = 50_000;
// A first run pays for warming up (the worker's first program took 230 ms of CPU for 14 ms of loop).
await run(rounds);
let alone = await calibrate(rounds);
for (
  let i = 0;
  i < 40 && (alone.kind !== "ok" || alone.cpuMs < 0.4 * budgets.cpuMs || alone.cpuMs > 0.6 * budgets.cpuMs);
  i++
) {
  rounds = Math.max(1_000, Math.round(rounds * ((0.5 * budgets.cpuMs) / Math.max(alone.cpuMs, 10))));
  alone = await calibrate(rounds);
}

// The spinner says which thread it is, then spins.
const spinner = new Worker(
  `require("node:worker_threads").parentPort.postMessage(
     Number.parseInt(require("node:fs").readFileSync("/proc/thread-self/stat", "latin1"), 10));
   for (;;) {}`,
  { eval: true },
);
const spinnerThread = await new Promise<number>((resolve) => spinner.once("message", resolve));
const before = threadsCpuMs();
const contended = {
  ...(await run(rounds)),
  // Every thread of this process but the spinner (threads that ended meanwhile are not counted).
  othersCpuMs: cpuSince(before, spinnerThread),
};
// Ten times the rounds, about five times the budget: past it with room to spare, as the calibration's
// CPU time counts the process's other threads too (so the loop alone may need less than it says).
const over = await run(rounds * 10);
await spinner.terminate();
await sandbox.close();
console.log(JSON.stringify({ rounds, alone, contended, over }));
process.exit(0);
