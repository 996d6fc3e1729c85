/**
 * The code mode's CPU budget counts CPU time, not the time a run waited for a core: on a busy
 * machine (CI runs test files side by side on 2 cores) a program within its budget must not be
 * stopped, and one past it must still be. Each sandbox runs in a child process pinned to one core
 * beside a spinning thread (contended-run.ts), so its wall time is about twice its CPU time.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

interface Run {
  kind: string;
  ms: number;
}

function contended(sandbox: "worker" | "inline"): { alone: Run; contended: Run & { othersCpuMs: number }; over: Run } {
  const script = join(import.meta.dirname, "contended-run.ts");
  const child = spawnSync("taskset", ["-c", "0", process.execPath, "--import", "tsx", script, sandbox], {
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!);
}

/**
 * The measurement's premises depend on the machine, not on the sandbox: the calibrated program fit
 * its budget alone, and the spinner really took the core half the time. On a loaded CI machine
 * (other test files on core 0 too) either can miss, so the measurement is taken again, up to three
 * times, until both hold. What the sandbox did (finished the contended run, stopped the one past
 * its budget) is never a reason to measure again: it is asserted on the run whose premises held.
 */
function measured(sandbox: "worker" | "inline"): ReturnType<typeof contended> {
  let runs = contended(sandbox);
  for (let attempt = 1; attempt < 3; attempt++) {
    if (runs.alone.kind === "ok" && runs.contended.ms > 1.5 * runs.contended.othersCpuMs) break;
    console.log(`${sandbox}: premises missed, measuring again: ${JSON.stringify(runs)}`);
    runs = contended(sandbox);
  }
  return runs;
}

describe.each(["worker", "inline"] as const)("the %s sandbox's CPU budget on a shared core", (sandbox) => {
  it("lets a program within its CPU time finish however long it waits for the core, and stops one past it", {
    timeout: 400_000,
  }, () => {
    const runs = measured(sandbox);
    expect(runs.alone.kind).toBe("ok");
    // The spinner took the core about half the time: the run's time on the wall clock (what it reports) is
    // about twice the CPU time the process used beside the spinner, code and everything else. (Compared
    // with CPU time, not with the run alone: on a busy machine the run alone waits for a core too.)
    expect(runs.contended.ms).toBeGreaterThan(1.5 * runs.contended.othersCpuMs);
    expect(runs.contended.kind).toBe("ok");
    expect(runs.over).toMatchObject({ kind: "cpu_time" });
    expect(runs.over.ms).toBeGreaterThan(500);
  });
});
