/**
 * MCP listing time by tool count, beside the OpenAI export of the same steps (the reference: it
 * converts only input schemas). Stripe's public spec (from the corpus, bench/lib/corpus-specs.ts),
 * generated once into bench/.cache, then its first N steps listed in this process:
 *
 * - `tools/list` of a `StepforgeMcp` over them (budget off: every step listed), built from scratch;
 * - `exportTools(steps, "openai")`;
 * - the schema nodes the listing handled (`schemaWork`): the measure of work, which must grow
 *   in proportion to the steps.
 *
 * Before the listing converted steps together, 452 Stripe steps took 82 s to list (2.5 s for one
 * step with a 129-byte input: its result schema inlined whole was 14 MB).
 *
 *   npx tsx bench/mcp-listing.ts [--rounds 3]
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { main } from "../cli/main.js";
import { Accounts, StepforgeMcp } from "../runtime/mcp/index.js";
import { exportTools, type SchemaWork, type ToolDefinition } from "../runtime/tools/index.js";
import { corpusFiles } from "./lib/corpus-specs.js";
import { machineLine, median, ratio, table } from "./lib/report.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const ROUNDS = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, "..");
const OUT = join(ROOT, "bench", ".cache", "mcp-listing");

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

if (!existsSync(join(OUT, "stripe", "tools.ts"))) {
  const err = new Sink();
  const code = await main(
    ["generate", "--spec", corpusFiles().get("stripe")!, "--out", OUT, "--service", "stripe"],
    new Sink(),
    err,
  );
  if (code !== 0) throw new Error(`generate of the Stripe spec failed: ${err.text.slice(-2000)}`);
}
const { tools } = (await import(join(OUT, "stripe", "tools.ts"))) as { tools: ToolDefinition[] };

function listing(steps: readonly ToolDefinition[], work?: SchemaWork): number {
  const server = new StepforgeMcp({
    catalogs: [{ id: "stripe", title: "Stripe", tools: steps, toolsets: [] }],
    accounts: new Accounts([]),
    budget: false,
    schemaWork: work,
  });
  return Buffer.byteLength(JSON.stringify({ tools: server.listTools() }));
}

function openai(steps: readonly ToolDefinition[]): number {
  return Buffer.byteLength(JSON.stringify(exportTools(steps, "openai").tools));
}

function time(run: () => number): { ms: number; bytes: number } {
  const started = performance.now();
  const bytes = run();
  return { ms: performance.now() - started, bytes };
}

const counts = [25, 50, 100, 200, tools.length];
listing(tools.slice(0, 10));
openai(tools.slice(0, 10));
const rows: Array<Array<string | number>> = [];
for (const n of counts) {
  const steps = tools.slice(0, n);
  const mcp: number[] = [];
  const ref: number[] = [];
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const m = time(() => listing(steps));
    mcp.push(m.ms);
    bytes = m.bytes;
    ref.push(time(() => openai(steps)).ms);
  }
  const work: SchemaWork = { nodes: 0 };
  listing(steps, work);
  const [m, o] = [median(mcp), median(ref)];
  rows.push([
    n,
    `${m.toFixed(0)} ms`,
    `${(m / n).toFixed(1)} ms`,
    `${o.toFixed(0)} ms`,
    ratio(m, o),
    `${(bytes / 1024).toFixed(0)} KB`,
    work.nodes.toLocaleString("en-US"),
    Math.round(work.nodes / n),
  ]);
}

console.log(`${machineLine()} · ${ROUNDS} rounds, median\n`);
console.log("### MCP listing time by tool count (Stripe's public spec) beside the OpenAI export\n");
console.log(
  table(
    [
      "steps",
      "MCP tools/list",
      "per step",
      "OpenAI export",
      "MCP / OpenAI",
      "listing size",
      "schema nodes handled",
      "nodes per step",
    ],
    rows,
  ),
);
console.log("\nBefore: 452 steps took 82 s to list (each step's result schema converted and inlined whole).");
