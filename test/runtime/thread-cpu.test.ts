/** A thread's CPU time from /proc (runtime/internal/thread-cpu.ts), which the code mode's CPU budget counts. */
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { currentThreadId, threadCpuMs, ThreadCpuSince, threadsCpuMs } from "../../runtime/internal/thread-cpu.js";

/** Computes until the thread has used `ms` of CPU (however long that takes on a busy machine). */
const spinFor = (cpu: ThreadCpuSince, ms: number) => {
  const give = performance.now() + 60_000;
  while (cpu.used() < ms && performance.now() < give);
};

describe("thread CPU time", () => {
  it("reads every thread of the process, this one among them with what it has used", () => {
    const cpu = new ThreadCpuSince();
    spinFor(cpu, 50);
    const all = threadsCpuMs();
    const id = currentThreadId()!;
    expect(all.size).toBeGreaterThan(1);
    expect(all.get(id)).toBeGreaterThanOrEqual(50);
    expect(all.get(id)).toBeLessThanOrEqual(threadCpuMs(id)!);
  });

  it("counts what this thread computes, not the time it waits", async () => {
    const cpu = new ThreadCpuSince();
    await sleep(300);
    expect(cpu.used()).toBeLessThan(100);
    const before = cpu.used();
    const started = performance.now();
    spinFor(cpu, before + 200);
    // It got there, and (to a 10 ms tick either side) not faster than the wall clock went.
    expect(cpu.used() - before).toBeGreaterThanOrEqual(200);
    expect(performance.now() - started).toBeGreaterThan(200 - 20);
  });

  it("reads another thread's time by its id: a spinning worker's grows while this one sleeps", async () => {
    const spinner = new Worker(
      `const { parentPort } = require("node:worker_threads");
       const id = Number.parseInt(require("node:fs").readFileSync("/proc/thread-self/stat", "latin1"), 10);
       parentPort.postMessage(id);
       for (;;) {}`,
      { eval: true },
    );
    try {
      const id = await new Promise<number>((resolve) => spinner.once("message", resolve));
      expect(id).not.toBe(currentThreadId());
      const worker = new ThreadCpuSince(id);
      const own = new ThreadCpuSince();
      await expect.poll(() => worker.used(), { timeout: 60_000, interval: 50 }).toBeGreaterThan(200);
      expect(own.used()).toBeLessThan(100);
    } finally {
      await spinner.terminate();
    }
  });

  it("says over only past the limit, and answers Infinity for a thread that is gone", () => {
    const cpu = new ThreadCpuSince();
    expect(new ThreadCpuSince().over(60_000)).toBe(false);
    spinFor(new ThreadCpuSince(), 50);
    expect(cpu.over(20)).toBe(true);
    expect(threadCpuMs(2 ** 30)).toBeUndefined();
    expect(new ThreadCpuSince(2 ** 30).used()).toBe(Number.POSITIVE_INFINITY);
  });
});
