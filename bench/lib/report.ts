/**
 * Shared pieces of the benchmarks: medians, markdown tables, the machine line, and timing a child
 * process (wall clock and peak memory) the way a user would run the tool from a shell.
 *
 * Every benchmark prints markdown, so `make bench` output pastes straight into bench/RESULTS.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) throw new Error("median of no samples");
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** "2.31×": how many times `value` is `base`. */
export const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`;

export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  const rule = headers.map((h, i) => (i === 0 ? "---" : "---:"));
  return [line(headers), line(rule), ...rows.map(line)].join("\n");
}

export function machineLine(): string {
  const cpu = cpus();
  const gib = (totalmem() / 2 ** 30).toFixed(1);
  return (
    `${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${process.platform}/` +
    `${process.arch} · ${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"} · ${gib} GiB`
  );
}

export interface ChildRun {
  seconds: number;
  /** Peak resident memory of the child, MiB (from GNU time), or NaN when GNU time is absent. */
  peakMiB: number;
  status: number;
  stderr: string;
}

const GNU_TIME = "/usr/bin/time";
let gnuTime: boolean | undefined;

/**
 * Runs a command to completion and measures it. Peak memory comes from GNU time's `%M` when the
 * machine has it (Debian: the `time` package); the benchmark still runs without it.
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ChildRun {
  gnuTime ??= spawnSync(GNU_TIME, ["-f", "%M", "true"]).status === 0;
  const [file, argv] = gnuTime ? [GNU_TIME, ["-f", "@@peak %M", command, ...args]] : [command, [...args]];
  const started = performance.now();
  const result = spawnSync(file, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 256 * 2 ** 20,
  });
  const seconds = (performance.now() - started) / 1000;
  const stderr = result.stderr ?? "";
  const peak = /@@peak (\d+)\s*$/.exec(stderr);
  return {
    seconds,
    peakMiB: peak ? Number(peak[1]) / 1024 : Number.NaN,
    status: result.status ?? -1,
    stderr: stderr.replace(/@@peak \d+\s*$/, ""),
  };
}

export const fmtSeconds = (s: number): string => (s < 10 ? s.toFixed(2) : s.toFixed(1));
export const fmtMiB = (m: number): string => (Number.isNaN(m) ? "n/a" : m.toFixed(0));

/** The figures of a measured case, or why it could not be measured (printed in place of them). */
export type Sample = { ok: true; run: ChildRun; samples: number } | { ok: false; reason: string };

/**
 * Measures several cases side by side: one warm-up of each, then rounds that run every case once
 * in turn, so load from elsewhere on the machine falls on all of them alike. Like medianRun, but
 * for cases that may be slow or fail:
 * - a case gets at most `rounds` measured runs and no more than about `budgetSeconds` of them, so a
 *   one-minute case is not run four times; one slower than the budget is reported from its warm-up
 *   alone (`samples: 1`);
 * - a failure becomes a reason instead of an exception, so one tool failing on one spec does not
 *   end the benchmark.
 * Cases run in the order given within each round, so a case may rely on an earlier one's output.
 */
export function sampleSideBySide(
  measures: ReadonlyArray<() => ChildRun>,
  rounds: number,
  options: { budgetSeconds?: number; ok?: (run: ChildRun) => boolean } = {},
): Sample[] {
  const ok = options.ok ?? ((run: ChildRun) => run.status === 0);
  const budget = options.budgetSeconds ?? Number.POSITIVE_INFINITY;
  const cases = measures.map((measure) => {
    const warm = measure();
    const failure = ok(warm) ? undefined : failureReason(warm);
    return {
      measure,
      warm,
      failure,
      wanted: Math.min(rounds, Math.floor(budget / warm.seconds)),
      runs: [] as ChildRun[],
    };
  });
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      if (c.failure !== undefined || c.runs.length >= c.wanted) continue;
      const run = c.measure();
      if (ok(run)) c.runs.push(run);
      else c.failure = failureReason(run);
    }
  }
  return cases.map((c): Sample => {
    if (c.failure !== undefined) return { ok: false, reason: c.failure };
    if (c.runs.length === 0) return { ok: true, run: c.warm, samples: 1 };
    const run = {
      seconds: median(c.runs.map((r) => r.seconds)),
      peakMiB: median(c.runs.map((r) => r.peakMiB)),
      status: c.runs[0]!.status,
      stderr: "",
    };
    return { ok: true, run, samples: c.runs.length };
  });
}

/** The last meaningful stderr line of a failed run, short enough for a table cell. */
function failureReason(run: ChildRun): string {
  const lines = run.stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("npm warn") && !/^at /.test(l));
  const last = lines.at(-1) ?? "no output";
  return `failed (exit ${run.status}): ${last.replace(/\|/g, "\\|").slice(0, 160)}`;
}

export interface TreeSize {
  files: number;
  lines: number;
  bytes: number;
}

/** Files, lines and bytes under `dir` (every file, recursively): the size of generated output. */
export function treeSize(dir: string): TreeSize {
  const size: TreeSize = { files: 0, lines: 0, bytes: 0 };
  if (!existsSync(dir)) return size;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const content = readFileSync(join(entry.parentPath, entry.name));
    size.files++;
    size.bytes += content.length;
    for (let at = content.indexOf(10); at !== -1; at = content.indexOf(10, at + 1)) size.lines++;
  }
  return size;
}

/** `--rounds N` (default 3) and `--quick` (one round): the flags of every side-by-side bench. */
export const ROUND_FLAGS = {
  rounds: { type: "string", default: "3" },
  quick: { type: "boolean", default: false },
} as const;

/** The rounds to run: 1 with --quick, else --rounds, which must be a positive integer. */
export function roundsOf(values: { rounds: string; quick: boolean }): number {
  const rounds = values.quick ? 1 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  return rounds;
}
