/**
 * `make bench`: every benchmark, one after another, each in its own process (so one's heap and JIT
 * state cannot colour the next), printed as it runs and written to bench/RESULTS.md with the date
 * and the machine.
 *
 *   npx tsx bench/run-all.ts [--quick] [--only generate,runtime,...]
 *
 * --quick passes --quick to the benchmarks that have it (fewer rounds, the largest specs skipped);
 * a quick run prints its tables but leaves RESULTS.md alone, so the file always holds a full run.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { machineLine } from "./lib/report.js";

interface Benchmark {
  name: string;
  file: string;
  title: string;
  /** Accepts --quick. */
  quick: boolean;
  /** Arguments of every run. */
  args?: string[];
}

const BENCHMARKS: Benchmark[] = [
  {
    name: "generate",
    file: "generate.ts",
    title: "Generation: stepforge vs openapi-typescript vs HeyAPI",
    quick: true,
  },
  // The official Trello spec too: issue 12 holds its output to HeyAPI's type-check cost.
  {
    name: "typecheck",
    file: "typecheck.ts",
    title: "Type-check cost of the generated code",
    quick: true,
    args: ["--spec", "test/corpus/specs/trello-openapi.json"],
  },
  { name: "runtime", file: "runtime.ts", title: "Runtime: per-call overhead and the limiter", quick: false },
  {
    name: "limiter-shared",
    file: "limiter-shared.ts",
    title: "Shared limiter: per-call overhead on each store, wait under load, many processes before and after",
    quick: true,
  },
  { name: "mock", file: "mock-vs-prism.ts", title: "Mocks: behavioural mock vs Prism", quick: false },
  { name: "bundle", file: "bundle.ts", title: "Package weight", quick: false },
  {
    name: "mock-inference",
    file: "mock-inference.ts",
    title: "Plain spec mocks: example checks and the check stage",
    quick: true,
  },
  {
    name: "regen",
    file: "regen.ts",
    title: "Safe regeneration: diff and the watch loop vs a cold generate",
    quick: true,
  },
  {
    name: "mcp-listing",
    file: "mcp-listing.ts",
    title: "MCP listing time by tool count, beside the OpenAI export",
    quick: false,
  },
  {
    name: "code-mode",
    file: "code-mode.ts",
    title: "Code mode vs direct tools: context bytes, the cost of a call, sandbox attacks",
    quick: true,
  },
  // The tracing and validation tables (goal 1.2×: issue 23); the call-log rows are --call-log-only.
  {
    name: "observe",
    file: "observe.ts",
    title: "Observability: tracing and validate warn, in-process and over HTTP",
    quick: false,
    args: ["--tracing-only"],
  },
];

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, only: { type: "string" } } });
const only = values.only?.split(",").map((s) => s.trim());
const unknown = only?.filter((name) => !BENCHMARKS.some((b) => b.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}; choose from ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
const chosen = BENCHMARKS.filter((b) => !only || only.includes(b.name));

function run(benchmark: Benchmark): Promise<{ output: string; code: number }> {
  const args = [
    "--import",
    "tsx",
    join(import.meta.dirname, benchmark.file),
    ...(benchmark.args ?? []),
    ...(values.quick && benchmark.quick ? ["--quick"] : []),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on("close", (code) => resolve({ output, code: code ?? 1 }));
  });
}

const started = performance.now();
const sections: string[] = [];
let failed = 0;
for (const benchmark of chosen) {
  console.log(`\n## ${benchmark.title}\n`);
  const { output, code } = await run(benchmark);
  if (code !== 0) failed++;
  sections.push(
    `## ${benchmark.title}\n\n\`bench/${benchmark.file}\`${code === 0 ? "" : ` — **failed (exit ${code})**`}\n\n` +
      `${output.trim()}\n`,
  );
}
const minutes = ((performance.now() - started) / 60000).toFixed(1);

if (values.quick || only) {
  console.log(`\n(${values.quick ? "--quick" : "--only"} run: bench/RESULTS.md left as it was)`);
} else {
  const header = [
    "# Benchmark results",
    "",
    `Written by \`make bench\` (bench/run-all.ts) — ${machineLine()} — ${minutes} min.`,
    "Each table is a median of rounds run side by side in one process tree on loopback; ratios are",
    "against stepforge unless a column says otherwise. docs/benchmarks.md says how to read them.",
    "",
  ].join("\n");
  writeFileSync(join(import.meta.dirname, "RESULTS.md"), `${header}\n${sections.join("\n")}`);
  console.log(`\nwrote bench/RESULTS.md (${minutes} min)`);
}
process.exit(failed > 0 ? 1 : 0);
