/**
 * How the code mode's warm checker speeds up over a server's life (issue 24): the CPU time of each
 * check of the three-call program by its index, from the first check after start to the Nth, per
 * set of V8 flags, each set in processes of its own taking turns.
 *
 *   npx tsx bench/code-check-warmup.ts [--checks 1600] [--runs 3] [--flags "--maglev"]...
 *
 * A check costs several times more early than once V8 has compiled the TypeScript checker's hot
 * functions; `bench/code-mode.ts --only cost` measures executes 4–43, well inside the early part.
 * The CPU is the process's (process.cpuUsage, every thread), so V8's compiler threads are counted
 * where their work is caused; the mock servers and workers of the code-mode bench are not started.
 * Each bucket's figure is the median per-check CPU within the bucket, then the median over runs.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildDeclarations } from "../runtime/code/declarations.js";
import { loadTypeBlanker, loadTypeScript, operationTypesDeclarations } from "../runtime/code/load.js";
import { CodeChecker } from "../runtime/code/typecheck.js";
import { bundledServices } from "../test/code/helpers.js";
import { machineLine, median, table } from "./lib/report.js";

const { values } = parseArgs({
  options: {
    checks: { type: "string", default: "1600" },
    runs: { type: "string", default: "3" },
    flags: { type: "string", multiple: true, default: [] },
    child: { type: "boolean", default: false },
  },
});
const CHECKS = Number(values.checks);

/** The program bench/code-mode.ts executes, with a new comment per check as there. */
const THREE = `const card = await services.trello.getCard({ params: { path: { id: "6123a9f0c4b5d6e7f8091a2b" } } });
const lists = await services.trello.getBoardLists({ params: { path: { id: "60d5ecb74e2a1b3c4d5e6f70" } } });
const labels = await services.trello.getBoardLabels({ params: { path: { id: "60d5ecb74e2a1b3c4d5e6f70" } } });
return { card: card.name, lists: lists.length, labels: labels.length };`;

/** In a child: the checker as prepare.ts builds it, then CPU ms of each check, as JSON on stdout. */
async function child(): Promise<void> {
  const ts = await loadTypeScript();
  const services = await bundledServices();
  const declarations = buildDeclarations(ts, {
    services: services.map((s) => ({ id: s.catalog.id, client: s.client, types: s.types })),
    operationTypes: operationTypesDeclarations(),
  });
  const checker = new CodeChecker(ts, { declarations, accounts: new Map() }, { blank: await loadTypeBlanker() });
  checker.check("return 0;");
  const cpu: number[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const before = process.cpuUsage();
    const result = checker.check(`${THREE}\n// check ${i}`);
    const used = process.cpuUsage(before);
    if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
    cpu.push((used.user + used.system) / 1000);
  }
  process.stdout.write(JSON.stringify(cpu));
}

/** Check-index ranges reported, 1-based and inclusive, cut at the number of checks. */
function buckets(): Array<[number, number]> {
  const edges = [...[1, 51, 151, 501, 1001].filter((edge) => edge <= CHECKS), CHECKS + 1];
  return edges.slice(0, -1).map((from, i) => [from, edges[i + 1]! - 1]);
}

function parent(): void {
  const variants = ["", ...values.flags!];
  const self = fileURLToPath(import.meta.url);
  const perVariant = new Map<string, number[][]>(variants.map((v) => [v, []]));
  const loads: number[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    for (const variant of run % 2 === 0 ? variants : [...variants].reverse()) {
      loads.push(loadavg()[0]!);
      const flags = variant.split(" ").filter(Boolean);
      const args = [...flags, "--import", "tsx", self, "--child", "--checks", String(CHECKS)];
      const out = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 << 20 });
      if (out.status !== 0) throw new Error(`child [${variant}] failed: ${out.stderr}`);
      perVariant.get(variant)!.push(JSON.parse(out.stdout) as number[]);
    }
  }
  const ranges = buckets();
  const rows = variants.map((variant) => {
    const runs = perVariant.get(variant)!;
    const cell = ([from, to]: [number, number]) => median(runs.map((cpu) => median(cpu.slice(from - 1, to))));
    const total = median(runs.map((cpu) => cpu.reduce((sum, ms) => sum + ms, 0)));
    return [variant || "(none)", ...ranges.map((r) => `${cell(r).toFixed(2)} ms`), `${total.toFixed(0)} ms`];
  });
  console.log(`## Warm checker: CPU per check by its index\n\n${machineLine()}\n`);
  console.log(
    `${values.runs} runs per variant, taking turns; load (1 min) at each start ${Math.min(...loads).toFixed(1)}–` +
      `${Math.max(...loads).toFixed(1)}.\n`,
  );
  const headers = ["V8 flags", ...ranges.map(([from, to]) => `checks ${from}–${to}`), `all ${CHECKS}`];
  console.log(table(headers, rows));
}

if (values.child) await child();
else parent();
