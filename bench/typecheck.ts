/**
 * Type-check cost of generated code (issue 7): `tsc --noEmit` over stepforge's generated/ for the
 * four project specs, against the same over @hey-api/openapi-ts 0.95 output (types + zod + SDK +
 * its bundled fetch client) and openapi-typescript 7.13 output (types only) for the same specs.
 *
 *   npx tsx bench/typecheck.ts [--rounds 3] [--quick] [--spec FILE]... [--specs-only]
 *
 * --spec adds a table per foreign spec (the official Trello spec, say): stepforge's output of it
 * (`generate --spec`, lenient) beside HeyAPI's, each with the runtime or client it imports.
 *
 * Every project gets a tsconfig under bench/.cache/typecheck that extends the repository's, so all
 * are checked with the same compiler options (strict, noUncheckedIndexedAccess, NodeNext,
 * skipLibCheck). Two reference rows separate the fixed cost: an empty module (TypeScript's lib
 * files and @types/node) and the stepforge runtime alone (what generated/ imports). Generated code
 * is what a user compiles, so its runtime is counted in the stepforge row.
 *
 * Each figure is `node node_modules/typescript/bin/tsc --noEmit -p <tsconfig>` as a process: wall
 * seconds and peak RSS, median of the measured rounds after one warm-up, the projects taking turns
 * within each round. A first run with --extendedDiagnostics gives the error, file and type counts
 * and the share of tsc's time spent checking (a share, not seconds: that run is not the measured one).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  fmtMiB,
  fmtSeconds,
  machineLine,
  ratio,
  ROUND_FLAGS,
  roundsOf,
  runChild,
  sampleSideBySide,
  table,
  treeSize,
  type Sample,
  type TreeSize,
} from "./lib/report.js";
import { heyapiArgs } from "./lib/heyapi.js";

const { values } = parseArgs({
  options: {
    ...ROUND_FLAGS,
    spec: { type: "string", multiple: true },
    // Only the --spec tables (the four project specs' table takes most of a run).
    "specs-only": { type: "boolean", default: false },
  },
});
const ROUNDS = roundsOf(values);

const ROOT = resolve(import.meta.dirname, "..");
const WORK = join(ROOT, "bench", ".cache", "typecheck");
const NODE = process.execPath;
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const SERVICES = ["contentsnare", "marketo", "trello", "worldnews"] as const;
const specFile = (service: string) => join(ROOT, "specs", `${service}.yaml`);

interface Project {
  name: string;
  what: string;
  tsconfig: string;
  /** The generated code this project checks (for its size), when it is generated code. */
  output?: string;
}

/** Facts from one `tsc --extendedDiagnostics` run. */
interface Diagnostics {
  errors: number;
  firstError?: string;
  files: string;
  types: string;
  /** Share of tsc's own total time spent checking (the rest: reading, parsing, binding). */
  checkShare: string;
}

interface Result {
  project: Project;
  sample: Sample;
  facts: Diagnostics;
  size?: TreeSize;
}

// ---------------------------------------------------------------------------------------------
// The projects

/**
 * A tsconfig that checks `files` or `include` (paths relative to the repository) with the
 * repository's compiler options. Written inside the repository so module resolution finds the same
 * node_modules and the same package.json ("type": "module").
 */
function tsconfig(name: string, scope: { files?: string[]; include?: string[] }): string {
  const dir = join(WORK, name);
  mkdirSync(dir, { recursive: true });
  const fromDir = (paths: string[] | undefined) => paths?.map((p) => relative(dir, join(ROOT, p)));
  const config = {
    extends: relative(dir, join(ROOT, "tsconfig.json")),
    compilerOptions: { noEmit: true },
    ...(scope.files ? { files: fromDir(scope.files) } : {}),
    ...(scope.include ? { include: fromDir(scope.include) } : { include: [] }),
  };
  const file = join(dir, "tsconfig.json");
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/**
 * What a consumer compiles: stepforge output generated outside the package (so it imports
 * `stepforge/runtime`), checked against the runtime's published declarations (dist/, built by
 * `npm run build`; skipLibCheck as in the repository's settings) — the generated code is checked,
 * the runtime is not, as for HeyAPI's output and its bundled client.
 */
function consumerProject(name: string, specs: string[], extra: string[] = []): { tsconfig: string; output: string } {
  const out = join(tmpdir(), "stepforge-bench-typecheck", name);
  rmSync(out, { recursive: true, force: true });
  for (const spec of specs)
    run(NODE, [
      join(ROOT, "bin", "stepforge.js"),
      "generate",
      "--no-cache",
      "--spec",
      resolve(spec),
      "--out",
      out,
      ...extra,
    ]);
  const dir = join(WORK, name);
  mkdirSync(dir, { recursive: true });
  const dist = (path: string) => join(ROOT, "dist", "runtime", path);
  const config = {
    extends: relative(dir, join(ROOT, "tsconfig.json")),
    compilerOptions: {
      noEmit: true,
      rootDir: "/",
      paths: { "stepforge/runtime": [dist("index.d.ts")], "stepforge/runtime/*": [dist("*/index.d.ts")] },
      typeRoots: [join(ROOT, "node_modules", "@types")],
    },
    include: [`${out}/**/*.ts`],
  };
  const file = join(dir, "tsconfig.json");
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return { tsconfig: file, output: out };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${[command, ...args].join(" ")} failed (exit ${result.status}):\n${result.stderr.slice(-2000)}`);
}

/** HeyAPI output for the four specs, one process (it pairs the n-th input with the n-th output). */
function heyapiOutput(): string {
  const out = join(WORK, "heyapi-out");
  rmSync(out, { recursive: true, force: true });
  const outDirs = SERVICES.map((s) => join(out, s));
  run(NODE, heyapiArgs(SERVICES.map(specFile), outDirs));
  return out;
}

/** openapi-typescript output for the four specs: one types file each. */
function oatsOutput(): string {
  const out = join(WORK, "oats-out");
  rmSync(out, { recursive: true, force: true });
  const bin = join(ROOT, "node_modules", "openapi-typescript", "bin", "cli.js");
  for (const service of SERVICES) run(NODE, [bin, specFile(service), "-o", join(out, `${service}.ts`)]);
  return out;
}

function projects(): Project[] {
  const empty = join(WORK, "baseline", "empty.ts");
  mkdirSync(join(WORK, "baseline"), { recursive: true });
  writeFileSync(empty, "export {};\n");
  const rel = (abs: string) => relative(ROOT, abs);
  const hey = heyapiOutput();
  const oats = oatsOutput();
  return [
    {
      name: "baseline",
      what: "an empty module: lib .d.ts files and @types/node only",
      tsconfig: tsconfig("baseline", { files: [rel(empty)] }),
    },
    {
      name: "stepforge runtime",
      what: "runtime/ entries generated code imports (index, mock, tools), no generated code",
      tsconfig: tsconfig("runtime", { files: ["runtime/index.ts", "runtime/mock/index.ts", "runtime/tools/index.ts"] }),
    },
    {
      name: "stepforge",
      what: "generated/ (4 services, all artefacts) + the runtime it imports",
      tsconfig: tsconfig("stepforge", { include: ["generated"] }),
      output: join(ROOT, "generated"),
    },
    {
      name: "stepforge, as a consumer",
      what: "the same output generated outside the package, against the runtime's .d.ts (what a user's tsc checks)",
      ...consumerProject("consumer", SERVICES.map(specFile)),
    },
    {
      name: "HeyAPI",
      what: "types + zod + SDK + bundled fetch client, 4 services",
      tsconfig: tsconfig("heyapi", { include: [rel(hey)] }),
      output: hey,
    },
    {
      name: "openapi-typescript",
      what: "types only, 4 services (no client)",
      tsconfig: tsconfig("oats", { include: [rel(oats)] }),
      output: oats,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** tsc exits 1 or 2 when the code has errors; the check still ran in full, so it still counts. */
const checked = (status: number) => status === 0 || status === 1 || status === 2;

function diagnose(project: Project): Diagnostics {
  const result = spawnSync(NODE, [TSC, "--noEmit", "-p", project.tsconfig, "--extendedDiagnostics"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  const out = result.stdout ?? "";
  const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, "m").exec(out)?.[1] ?? "?";
  const errors = out.split("\n").filter((line) => /error TS\d+/.test(line));
  return {
    errors: errors.length,
    ...(errors[0] ? { firstError: errors[0].replace(`${ROOT}/`, "").slice(0, 200) } : {}),
    files: field("Files"),
    types: Number(field("Types")).toLocaleString("en-US"),
    checkShare: `${((100 * parseFloat(field("Check time"))) / parseFloat(field("Total time"))).toFixed(0)} %`,
  };
}

/** Checks every project in turn each round (see sampleSideBySide), after one diagnostics run each. */
function measure(list: Project[]): Result[] {
  const facts = list.map((project) => {
    process.stderr.write(`  ${project.name}\n`);
    return diagnose(project);
  });
  const tsc = (project: Project) => () => runChild(NODE, [TSC, "--noEmit", "-p", project.tsconfig], { cwd: ROOT });
  const samples = sampleSideBySide(list.map(tsc), ROUNDS, { ok: (r) => checked(r.status) });
  return list.map((project, i) => ({
    project,
    sample: samples[i]!,
    facts: facts[i]!,
    ...(project.output ? { size: treeSize(project.output) } : {}),
  }));
}

// ---------------------------------------------------------------------------------------------
// Report

/** stepforge and HeyAPI output of one foreign spec, as two projects. */
function foreignProjects(spec: string): Project[] {
  const name = spec
    .split("/")
    .pop()!
    .replace(/\.(json|ya?ml)$/, "");
  const dir = join(WORK, `foreign-${name}`);
  rmSync(dir, { recursive: true, force: true });
  const hey = join(dir, "heyapi");
  const sf = consumerProject(`foreign-${name}-sf`, [spec], ["--service", "foreign"]);
  run(NODE, heyapiArgs([resolve(spec)], [hey]));
  const rel = (abs: string) => relative(ROOT, abs);
  return [
    { name: `stepforge (${name})`, what: `generate --spec ${name}: all artefacts, against the runtime's .d.ts`, ...sf },
    {
      name: `HeyAPI (${name})`,
      what: "types + zod + SDK + bundled fetch client",
      tsconfig: tsconfig(`foreign-${name}-hey`, { include: [rel(hey)] }),
      output: hey,
    },
  ];
}

function printTable(results: Result[], title = "the four project specs"): void {
  const base = results.find((r) => r.project.name === "stepforge" || r.project.name.startsWith("stepforge ("))!;
  const figure = (r: Result, pick: (s: { seconds: number; peakMiB: number }) => number) =>
    r.sample.ok ? pick(r.sample.run) : Number.NaN;
  const vs = (r: Result, pick: (s: { seconds: number; peakMiB: number }) => number) => {
    const value = figure(r, pick);
    const against = figure(base, pick);
    return Number.isNaN(value) || Number.isNaN(against) ? "—" : ratio(value, against);
  };
  const rows = results.map((r) => {
    if (!r.sample.ok)
      return [r.project.name, r.sample.reason, "", "", "", "", "", "", "", "", "", "", "", r.project.what];
    return [
      r.project.name,
      String(r.sample.samples),
      fmtSeconds(r.sample.run.seconds),
      fmtMiB(r.sample.run.peakMiB),
      String(r.facts.errors),
      r.facts.files,
      r.facts.types,
      r.facts.checkShare,
      r.size ? String(r.size.files) : "",
      r.size ? r.size.lines.toLocaleString("en-US") : "",
      r.size ? (r.size.bytes / 1024).toFixed(0) : "",
      vs(r, (s) => s.seconds),
      vs(r, (s) => s.peakMiB),
      r.project.what,
    ];
  });
  console.log(`\n### Type-check: \`tsc --noEmit\` over the generated code of ${title}\n`);
  console.log(
    table(
      [
        "project",
        "runs",
        "seconds",
        "peak MiB",
        "tsc errors",
        "program files",
        "types",
        "checking share",
        "generated files",
        "lines",
        "KiB",
        "time / stepforge",
        "memory / stepforge",
        "what is checked",
      ],
      rows,
    ),
  );
  console.log(
    "\nseconds and peak MiB: whole `tsc` process. program files, types and checking share " +
      "(of tsc's total time; the rest is reading, parsing and binding): a separate tsc " +
      "--extendedDiagnostics run. generated files/lines/KiB: every file the tool wrote " +
      "(stepforge: includes README.md and mock files).",
  );
  for (const r of results.filter((r) => r.facts.firstError))
    console.log(`\n${r.project.name}: first of ${r.facts.errors} errors: \`${r.facts.firstError}\``);
}

function main(): void {
  const ts = spawnSync(NODE, [TSC, "--version"], { encoding: "utf8" }).stdout.trim();
  console.log(
    `${machineLine()} · load ${loadavg()[0]!.toFixed(1)} · ${ts} · ${ROUNDS} measured round` +
      `${ROUNDS === 1 ? "" : "s"} after 1 warm-up, median`,
  );
  // The stepforge row checks the repository's generated/, so say whether it matches the specs.
  const fresh = spawnSync(NODE, [join(ROOT, "bin", "stepforge.js"), "generate", "--check"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  console.log(`\ngenerated/: ${fresh.stdout.split("\n")[0] || fresh.stderr.trim().split("\n")[0]}`);
  console.error("type-check projects:");
  if (!values["specs-only"]) printTable(measure(projects()));
  for (const spec of values.spec ?? []) printTable(measure(foreignProjects(spec)), spec.split("/").pop()!);
}

main();
