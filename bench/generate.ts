/**
 * Generation benchmarks (issue 7), side by side in one run:
 *
 * 1. The four project specs: `stepforge generate` (cold, no-change rerun, --check) against
 *    openapi-typescript 7.13 (types only) and @hey-api/openapi-ts 0.95 (types + zod + SDK).
 * 2. The no-change rerun of each tool.
 * 3. Scaling: synthetic specs of 10, 100 and 1,000 operations (bench/fixtures/synthetic-spec.ts),
 *    Atlassian's official Trello spec (test/corpus/specs/trello-openapi.json, 255 operations) and
 *    GitHub's REST API description (@octokit/openapi from the npm registry, ~1,200 operations).
 *
 *   npx tsx bench/generate.ts [--rounds 3] [--quick]
 *
 * Every figure is a whole process as a user starts it (`node <bin> ...`, no npx), wall seconds and
 * peak RSS (GNU time), median of the measured rounds after one warm-up. The tools run in turn
 * within each round, so load from elsewhere on the machine falls on all of them alike. A slow case
 * gets fewer rounds (see sampleSideBySide) and says so in its "runs" column. --quick: one round,
 * and no 1,000-operation or GitHub case.
 *
 * bench/.cache (git-ignored) holds a copy of the stepforge package (so `generate` can write a cold
 * generated/ without touching the repository's), the synthetic specs and every tool's output (out/,
 * emptied at the start); the GitHub spec is bench/corpus.ts's (bench/lib/corpus-specs.ts fetches it). Output stays at a
 * fixed place so stepforge's
 * no-change record (node_modules/.cache/stepforge, keyed by output directory) is reused, not piled up.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { syntheticSpecYaml } from "./fixtures/synthetic-spec.js";
import { corpusFile, corpusSpec } from "./lib/corpus-specs.js";
import { heyapiArgs } from "./lib/heyapi.js";
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
  type ChildRun,
  type Sample,
  type TreeSize,
} from "./lib/report.js";

const { values } = parseArgs({
  options: ROUND_FLAGS,
});
const QUICK = values.quick;
const ROUNDS = roundsOf(values);
/** Seconds of measured runs one case may take after its warm-up (a one-minute case runs once). */
const BUDGET_SECONDS = 20;

const ROOT = resolve(import.meta.dirname, "..");
const CACHE = join(ROOT, "bench", ".cache");
const NODE = process.execPath;
const SERVICES = ["contentsnare", "marketo", "trello", "worldnews"] as const;
const TRELLO_OFFICIAL = join(ROOT, "test", "corpus", "specs", "trello-openapi.json");

const STEPFORGE_BIN = join(ROOT, "bin", "stepforge.js");
const OATS_BIN = join(ROOT, "node_modules", "openapi-typescript", "bin", "cli.js");

interface Measured {
  label: string;
  what: string;
  sample: Sample;
  output?: TreeSize;
}

// ---------------------------------------------------------------------------------------------
// Commands

/** A stepforge package of its own under bench/.cache, so `generate` can write a cold generated/. */
function projectCopy(): string {
  const copy = join(CACHE, "project");
  rmSync(copy, { recursive: true, force: true });
  // dist/ is copied, not linked: the CLI finds its package root by walking up from its own file.
  // node_modules is found by walking further up, into the repository's. runtime/ only lets the
  // copy's generated code resolve its imports as the repository's does; generate does not read it.
  // The tsconfigs make it a checkout: `generate` without --spec refuses to run in an installed copy,
  // and in a checkout it also compiles what it wrote into dist/ (part of the measured time).
  for (const entry of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "bin",
    "dist",
    "specs",
    "templates",
    "runtime",
  ])
    cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  return copy;
}

const stepforgeProject =
  (project: string, ...flags: string[]) =>
  () =>
    runChild(NODE, [join(project, "bin", "stepforge.js"), "generate", ...flags], { cwd: project });

const stepforgeSpec = (spec: string, out: string, service: string) => () =>
  runChild(NODE, [STEPFORGE_BIN, "generate", "--spec", spec, "--out", out, "--service", service], { cwd: ROOT });

/** openapi-typescript takes several specs in one process only through a Redocly config's `apis`. */
function oatsConfig(specs: Record<string, string>, outDir: string): string {
  const apis = Object.entries(specs).map(
    ([name, spec]) =>
      `  ${name}:\n    root: ${JSON.stringify(spec)}\n    x-openapi-ts:\n      output: ` +
      `${JSON.stringify(join(outDir, `${name}.ts`))}\n`,
  );
  const file = join(CACHE, "oats-redocly.yaml");
  writeFileSync(file, `apis:\n${apis.join("")}`);
  return file;
}

const oatsProject = (config: string) => () => runChild(NODE, [OATS_BIN, "--redocly", config], { cwd: ROOT });
const oatsSpec = (spec: string, outDir: string) => () =>
  runChild(NODE, [OATS_BIN, spec, "-o", join(outDir, "types.ts")], { cwd: ROOT });

/** HeyAPI pairs the n-th input with the n-th output, so four specs are one process. */
const heyapi = (specs: string[], outDirs: string[]) => () => runChild(NODE, heyapiArgs(specs, outDirs), { cwd: ROOT });

/** Runs `measure` with `outDir` emptied first, so every run writes its whole output. */
const cold = (outDir: string, measure: () => ChildRun) => () => {
  rmSync(outDir, { recursive: true, force: true });
  return measure();
};

interface Case {
  label: string;
  what: string;
  measure: () => ChildRun;
  /** Where the case writes, to report the size of its output. */
  outDir?: string;
}

/** Measures the cases side by side (interleaved rounds, see sampleSideBySide). */
function measureCases(cases: Case[]): Measured[] {
  for (const c of cases) process.stderr.write(`  ${c.label}${c.what ? `: ${c.what}` : ""}\n`);
  const samples = sampleSideBySide(
    cases.map((c) => c.measure),
    ROUNDS,
    { budgetSeconds: BUDGET_SECONDS },
  );
  return cases.map((c, i) => {
    const sample = samples[i]!;
    return { label: c.label, what: c.what, sample, ...(c.outDir && sample.ok ? { output: treeSize(c.outDir) } : {}) };
  });
}

// ---------------------------------------------------------------------------------------------
// Tables

const seconds = (m: Measured) => (m.sample.ok ? m.sample.run.seconds : Number.NaN);
const mib = (m: Measured) => (m.sample.ok ? m.sample.run.peakMiB : Number.NaN);
const vs = (value: number, base: number) => (Number.isNaN(value) || Number.isNaN(base) ? "—" : ratio(value, base));

/** One table row: the figures, or the failure reason across the figure columns. */
function row(m: Measured, base: Measured, leading: string[]): string[] {
  if (!m.sample.ok) return [...leading, m.label, "0", m.sample.reason, "", "", "", "", "", ""];
  const size = m.output;
  return [
    ...leading,
    m.label,
    String(m.sample.samples),
    fmtSeconds(seconds(m)),
    fmtMiB(mib(m)),
    size ? String(size.files) : "",
    size ? size.lines.toLocaleString("en-US") : "",
    size ? (size.bytes / 1024).toFixed(0) : "",
    vs(seconds(m), seconds(base)),
    vs(mib(m), mib(base)),
  ];
}

const FIGURES = ["runs", "seconds", "peak MiB", "files", "lines", "KiB", "time / stepforge", "memory / stepforge"];

// ---------------------------------------------------------------------------------------------
// 1 and 2: the four project specs

function projectSpecs(work: string): Measured[] {
  console.error("four project specs:");
  const project = projectCopy();
  const generated = join(project, "generated");
  const specs = Object.fromEntries(SERVICES.map((s) => [s, join(ROOT, "specs", `${s}.yaml`)]));
  const oatsOut = join(work, "oats-project");
  const heyOut = SERVICES.map((s) => join(work, "heyapi-project", s));
  return measureCases([
    {
      label: "stepforge",
      what:
        "`generate`, generated/ deleted before each run (cold, all artefacts, then " +
        "compiled into dist/ as in a checkout)",
      measure: cold(generated, stepforgeProject(project)),
      outDir: generated,
    },
    // Runs right after the cold run, so generated/ is current and this writes nothing.
    {
      label: "stepforge rerun",
      what: "`generate` with generated/ current (writes nothing)",
      measure: stepforgeProject(project),
      outDir: generated,
    },
    {
      label: "stepforge --check",
      what: "`generate --check` (CI freshness check: whole pipeline, writes nothing)",
      measure: stepforgeProject(project, "--check"),
    },
    // The competitors have no incremental mode: every run is a full run that rewrites the output,
    // so their measured runs double as their no-change rerun.
    {
      label: "openapi-typescript",
      what: "one process, 4 specs via a Redocly `apis` config; types only",
      measure: oatsProject(oatsConfig(specs, oatsOut)),
      outDir: oatsOut,
    },
    {
      label: "HeyAPI",
      what: "one process, 4 jobs (`-i` ×4 `-o` ×4); types + zod + SDK + client",
      measure: heyapi(Object.values(specs), heyOut),
      outDir: join(work, "heyapi-project"),
    },
  ]);
}

function printProjectTables(rows: Measured[]): void {
  const [stepforge, rerun, check, oats, hey] = rows as [Measured, Measured, Measured, Measured, Measured];
  const operations = SERVICES.reduce((n, s) => n + countOperations(join(ROOT, "specs", `${s}.yaml`)), 0);
  console.log(`\n### Generation: the four project specs (${SERVICES.join(", ")}; ${operations} operations)\n`);
  console.log(
    table(
      ["tool", ...FIGURES, "what is measured"],
      rows.map((m) => [...row(m, stepforge, []), m.what]),
    ),
  );
  console.log(
    `\nRatios are against the cold stepforge run. stepforge writes types, descriptor, ` +
      `client, tool steps, triggers, README and mock per service; openapi-typescript ` +
      `writes types only.`,
  );

  console.log("\n### No-change rerun (output already current)\n");
  const rerunBehaviour: Array<[string, string, Measured]> = [
    ["stepforge", "`generate`: writes no file when nothing changed", rerun],
    ["stepforge --check", "whole pipeline every time, compares, writes nothing", check],
    ["openapi-typescript", "no incremental mode: a rerun is a full run (rewrites every file)", oats],
    ["HeyAPI", "no incremental mode: a rerun is a full run (cleans and rewrites the output)", hey],
  ];
  const rerunRows = rerunBehaviour.map(([tool, behaviour, m]) => [
    tool,
    behaviour,
    fmtSeconds(seconds(m)),
    fmtMiB(mib(m)),
    vs(seconds(m), seconds(rerun)),
  ]);
  console.log(table(["tool", "rerun behaviour", "seconds", "peak MiB", "time / stepforge rerun"], rerunRows));
  const target = seconds(rerun) < 1 ? "met" : "NOT met";
  console.log(
    `\nTargets: stepforge cold ${fmtSeconds(seconds(stepforge))} s vs HeyAPI ${fmtSeconds(seconds(hey))} ` +
      `s (faster than HeyAPI: ${seconds(stepforge) < seconds(hey) ? "met" : "NOT met"}); ` +
      `no-change rerun ${fmtSeconds(seconds(rerun))} s (well under 1 s: ${target}).`,
  );
}

// ---------------------------------------------------------------------------------------------
// 3: scaling

interface SpecCase {
  name: string;
  /** Directory name of its output. */
  slug: string;
  file: string;
  operations: number;
}

function syntheticCase(operations: number): SpecCase {
  const dir = join(CACHE, "specs");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `synthetic-${operations}.yaml`);
  writeFileSync(file, syntheticSpecYaml(operations));
  return { name: "synthetic (YAML)", slug: `synthetic-${operations}`, file, operations };
}

/** GitHub's REST API description, fetched once through the npm registry; a reason when it cannot be. */
function githubCase(): SpecCase | string {
  let file: string;
  try {
    file = corpusFile("github");
  } catch (error) {
    return (error as Error).message;
  }
  return {
    name: `GitHub REST (${corpusSpec("github").from}, OpenAPI 3.0, JSON)`,
    slug: "github",
    file,
    operations: countOperations(file),
  };
}

/** Operations in a spec file (JSON.parse for JSON: the YAML parser takes seconds on 13 MB). */
function countOperations(file: string): number {
  const text = readFileSync(file, "utf8");
  const spec = (file.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);
  return Object.values(spec.paths).reduce((n, item) => n + Object.keys(item).filter((k) => methods.has(k)).length, 0);
}

function scalingCase(spec: SpecCase, work: string): Measured[] {
  console.error(`${spec.name}:`);
  const dir = join(work, spec.slug);
  const out = { stepforge: join(dir, "stepforge"), oats: join(dir, "oats"), hey: join(dir, "heyapi") };
  return measureCases([
    {
      label: "stepforge",
      what: "",
      measure: cold(out.stepforge, stepforgeSpec(spec.file, out.stepforge, "bench")),
      outDir: out.stepforge,
    },
    {
      label: "stepforge rerun",
      what: "",
      measure: stepforgeSpec(spec.file, out.stepforge, "bench"),
      outDir: out.stepforge,
    },
    { label: "openapi-typescript", what: "", measure: oatsSpec(spec.file, out.oats), outDir: out.oats },
    { label: "HeyAPI", what: "", measure: heyapi([spec.file], [out.hey]), outDir: out.hey },
  ]);
}

function printScaling(cases: Array<{ spec: SpecCase; rows: Measured[] }>, skipped: string[]): void {
  console.log("\n### Scaling with spec size (one spec, one process per tool)\n");
  const rows = cases.flatMap(({ spec, rows }) => {
    const size = `${(statSync(spec.file).size / 2 ** 20).toFixed(2)} MiB`;
    return rows.map((m) => row(m, rows[0]!, [spec.name, String(spec.operations), size]));
  });
  console.log(table(["spec", "operations", "spec size", "tool", ...FIGURES], rows));
  console.log(
    "\nstepforge: `generate --spec FILE --out DIR --service bench` (cold: DIR deleted " +
      "first; rerun: DIR current). openapi-typescript: `cli.js FILE -o DIR/types.ts`. " +
      "HeyAPI: `run.js -i FILE -o DIR` with client-fetch, typescript, zod and sdk. Ratios " +
      "are against the cold stepforge run of the same spec.",
  );
  for (const reason of skipped) console.log(`\nSkipped: ${reason}`);
}

// ---------------------------------------------------------------------------------------------

function main(): void {
  const work = join(CACHE, "out");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // The load average says how busy the machine was (other jobs share its cores).
  const load = () => loadavg()[0]!.toFixed(1);
  console.log(
    `${machineLine()} · load ${load()} · ${ROUNDS} measured round${ROUNDS === 1 ? "" : "s"} ` +
      `after 1 warm-up, median${QUICK ? " (--quick)" : ""}`,
  );
  printProjectTables(projectSpecs(work));

  const skipped: string[] = [];
  const specs: SpecCase[] = (QUICK ? [10, 100] : [10, 100, 1000]).map(syntheticCase);
  // Atlassian's official Trello spec (test/corpus/specs/, one-line JSON): beside HeyAPI on a spec
  // nobody here wrote. While stepforge refuses it (SF112/SF113), its rows show the refusal.
  specs.push({
    name: "Trello official (OpenAPI 3.0, one-line JSON)",
    slug: "trello-official",
    file: TRELLO_OFFICIAL,
    operations: countOperations(TRELLO_OFFICIAL),
  });
  if (QUICK) skipped.push("1,000-operation and GitHub cases (--quick).");
  else {
    const github = githubCase();
    if (typeof github === "string") skipped.push(`GitHub REST spec: ${github}`);
    else specs.push(github);
  }
  const cases = specs.map((spec) => ({ spec, rows: scalingCase(spec, work) }));
  printScaling(cases, skipped);
  console.log(`\nLoad average at the end: ${load()}.`);
}

main();
