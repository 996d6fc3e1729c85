/**
 * Safe regeneration (issue 21), each figure beside a cold `generate` of the same input in the same run:
 *
 * 1. `stepforge diff` of Atlassian's official Trello spec (255 operations) against a copy with the
 *    planted changes of test/diff/trello-planted.ts (schemas changed, so the checker runs), and
 *    against a copy where only operationIds changed (no checker) — whole processes, as a user runs
 *    them. Goal: diff ≤ 0.5× the cold generate of the official spec.
 * 2. `generate --watch` over the four project specs: the time from saving a one-line edit of
 *    worldnews.yaml (an enum value added or removed) to the round's "generated … into" line, against
 *    a cold `generate` of the four specs. Goal ≤ 0.2×.
 *
 * With `--before PATH` (the bin/stepforge.js of another build, e.g. a worktree of main), both
 * diffs of that build run in the same rounds too, so a change to diff is measured side by side with
 * the build before it; the cold generate is this build's.
 *
 *   npx tsx bench/regen.ts [--rounds 3] [--quick] [--before ../main/bin/stepforge.js]
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { plantedTrello, TRELLO_OFFICIAL } from "../test/diff/trello-planted.js";
import {
  fmtSeconds,
  machineLine,
  median,
  ratio,
  runChild,
  sampleSideBySide,
  table,
  type Sample,
} from "./lib/report.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    quick: { type: "boolean", default: false },
    before: { type: "string" },
  },
});
const ROUNDS = values.quick ? 1 : Number(values.rounds);
const EDITS = values.quick ? 3 : 7;
const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "stepforge.js");
const CACHE = join(ROOT, "bench", ".cache", "regen");
const NODE = process.execPath;

rmSync(CACHE, { recursive: true, force: true });
mkdirSync(CACHE, { recursive: true });

const seconds = (s: Sample) => (s.ok ? s.run.seconds : Number.NaN);
const cell = (s: Sample) => (s.ok ? fmtSeconds(s.run.seconds) : `failed: ${s.reason}`);

// 1. diff against a cold generate of the official Trello spec.
const edited = join(CACHE, "trello-edited.json");
writeFileSync(edited, plantedTrello().text);
const renamedOnly = join(CACHE, "trello-renamed.json");
writeFileSync(
  renamedOnly,
  readFileSync(TRELLO_OFFICIAL, "utf8").replace(/"operationId":"post-cards"/, '"operationId":"create-card"'),
);
const coldOut = join(CACHE, "cold-trello");
const coldTrello = () => {
  rmSync(coldOut, { recursive: true, force: true });
  return runChild(
    NODE,
    [BIN, "generate", "--spec", TRELLO_OFFICIAL, "--out", coldOut, "--service", "trello", "--no-cache"],
    { cwd: ROOT },
  );
};
const diffOf =
  (file: string, bin = BIN) =>
  () =>
    runChild(NODE, [bin, "diff", TRELLO_OFFICIAL, file, "--service", "trello"], { cwd: ROOT });
const BEFORE = values.before ? resolve(values.before) : undefined;
const [generateTrello, diffPlanted, diffRenamed, beforePlanted, beforeRenamed] = sampleSideBySide(
  [
    coldTrello,
    diffOf(edited),
    diffOf(renamedOnly),
    ...(BEFORE ? [diffOf(edited, BEFORE), diffOf(renamedOnly, BEFORE)] : []),
  ],
  ROUNDS,
);
const base = seconds(generateTrello!);
/** A table row: what ran, its runs, its median and its ratio to the cold generate. */
const rowOf = (what: string, sample: Sample): Array<string | number> => [
  what,
  sample.ok ? sample.samples : 0,
  cell(sample),
  sample === generateTrello ? "1.00×" : ratio(seconds(sample), base),
];
console.log(`${machineLine()}\n`);
console.log("### diff of the official Trello spec (255 operations) vs a cold generate of it\n");
console.log(
  table(
    ["what", "runs", "s", "vs cold generate"],
    [
      rowOf("cold `generate --spec trello-openapi.json --no-cache`", generateTrello!),
      rowOf("`diff` against 15 planted changes (checker runs)", diffPlanted!),
      rowOf("`diff` against a renamed operation (no checker)", diffRenamed!),
      ...(BEFORE
        ? [
            rowOf("the build of `--before`: `diff` against 15 planted changes", beforePlanted!),
            rowOf("the build of `--before`: `diff` against a renamed operation", beforeRenamed!),
          ]
        : []),
    ],
  ),
);

// 2. The watch loop over the four project specs.
const project = join(CACHE, "four");
mkdirSync(project, { recursive: true });
const specs = readdirSync(join(ROOT, "specs"))
  .filter((f) => f.endsWith(".yaml"))
  .sort();
for (const spec of specs) cpSync(join(ROOT, "specs", spec), join(project, spec));
const specArgs = specs.flatMap((s) => ["--spec", join(project, s)]);
const coldFourOut = join(CACHE, "cold-four");
const coldFour = () => {
  rmSync(coldFourOut, { recursive: true, force: true });
  return runChild(NODE, [BIN, "generate", ...specArgs, "--out", coldFourOut, "--no-cache"], { cwd: ROOT });
};
const [generateFour] = sampleSideBySide([coldFour], ROUNDS);

const saves = await watchLoop();
const loop = median(saves);
console.log("\n### generate --watch: save to written, one-line edit of worldnews.yaml (four specs)\n");
console.log(
  table(
    ["what", "runs", "s", "vs cold generate"],
    [
      [...rowOf("cold `generate` of the four specs (--spec ×4 --out, --no-cache)", generateFour!).slice(0, 3), "1.00×"],
      [
        "watch round: save → files written (median)",
        saves.length,
        fmtSeconds(loop),
        ratio(loop, seconds(generateFour!)),
      ],
    ],
  ),
);
console.log(`\nwatch rounds (s): ${saves.map((s) => s.toFixed(2)).join(", ")}`);

/** Starts the watch, then saves EDITS one-line edits in turn, each timed from the write to its round's line. */
async function watchLoop(): Promise<number[]> {
  const out = join(CACHE, "watch-out");
  const child = spawn(NODE, [BIN, "generate", "--watch", ...specArgs, "--out", out], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (c: Buffer) => (log += c.toString()));
  child.stderr.on("data", (c: Buffer) => (log += c.toString()));
  const waitFor = async (text: string, from: number) => {
    while (!log.slice(from).includes(text)) {
      if (child.exitCode !== null) throw new Error(`the watch exited: ${log}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  await waitFor("watching 4 specs", 0);
  const file = join(project, "worldnews.yaml");
  const original = readFileSync(file, "utf8");
  const times: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const from = log.length;
    const started = performance.now();
    writeFileSync(file, i % 2 === 0 ? original.replace("enum: [ASC, DESC]", "enum: [ASC, DESC, RANDOM]") : original);
    await waitFor("generated worldnews into", from);
    times.push((performance.now() - started) / 1000);
  }
  child.kill("SIGTERM");
  return times;
}
