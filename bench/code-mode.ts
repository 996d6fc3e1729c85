/**
 * Code mode against direct tools (`npx tsx bench/code-mode.ts [--quick]`), in one run:
 *
 * 1. What `tools/list` costs in each mode (direct, dynamic, code) for the four services.
 * 2. The evaluation harness (test/code/harness): tool calls, bytes a model reads, correctness,
 *    per task and mode, and code mode's bytes as a share of direct tools'.
 * 3. The cost of a call: a type-checked `execute` of a three-call program beside the same three
 *    direct tool calls, rounds interleaved (each side first in every other round), once per sandbox
 *    (QuickJS on a worker thread, the default; then on the server's thread, `sandbox: "inline"`),
 *    each loop with its own direct samples; all through the MCP SDK client in process against the
 *    behavioural mock on 127.0.0.1 with the client-side limits off; with the type-check alone and an
 *    empty program beside them. Then the same between two real `stepforge mcp` processes, over
 *    stdio and over Streamable HTTP, as an agent's client reaches them.
 * 4. CPU time of the same two sides, every thread of the process counted (Linux).
 * 5. The sandbox attack suite (test/code/attacks.ts): each attack and what became of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { threadsCpuMs } from "../runtime/internal/thread-cpu.js";
import { parseArgs } from "node:util";
import {
  ATTACK_BUDGETS,
  ATTACKED_SERVICES,
  ATTACKS,
  contained,
  describeOutcome,
  executeOutcome,
  KEEPS_SERVING,
  secretValues,
} from "../test/code/attacks.js";
import {
  runHarness,
  startHarness,
  startServer,
  table as harnessTable,
  TASKS,
  type Harness,
  type HarnessMode,
  type Row,
} from "../test/code/harness/run.js";
import { texts } from "../test/code/helpers.js";
import { registeredMock } from "../runtime/mock/index.js";
import { httpClient, httpProcess, stdioClient, type Connected } from "../test/mcp/helpers.js";
import { machineLine, median, ratio, table } from "./lib/report.js";

const { values } = parseArgs({
  options: { quick: { type: "boolean", default: false }, only: { type: "string" } },
});
const ROUNDS = values.quick ? 10 : 40;
/** `--only cost` runs one section: listing, harness, cost, cpu or attacks. */
const run = (section: string) => values.only === undefined || values.only === section;
const BOARD = "60d5ecb74e2a1b3c4d5e6f70";
const CARD = "6123a9f0c4b5d6e7f8091a2b";

const ms = (x: number) => `${x.toFixed(1)} ms`;
const kb = (bytes: number) => `${bytes.toLocaleString("en")} B`;

async function listings(harness: Harness): Promise<string> {
  const rows: Array<[string, string]> = [];
  for (const mode of ["direct", "dynamic", "code"] as HarnessMode[]) {
    const server = await startServer(
      {
        ...harness,
        catalogs: harness.catalogs.filter((c) => c.id !== "todo"),
        services: harness.services.filter((s) => s.catalog.id !== "todo"),
      },
      mode,
    );
    rows.push([mode, kb(server.listingBytes)]);
    await server.close();
  }
  return table(["mode", "tools/list, four services"], rows);
}

function harnessSummary(rows: Row[]): string {
  const total = (mode: string, f: (r: Row) => number) =>
    rows.filter((r) => r.mode === mode).reduce((n, r) => n + f(r), 0);
  const share = (mode: string) =>
    `${((100 * total(mode, (r) => r.bytes)) / total("direct", (r) => r.bytes)).toFixed(1)} %`;
  return (
    `Bytes as a share of direct tools': dynamic ${share("dynamic")}, code ${share("code")}. Calls: direct ` +
    `${total("direct", (r) => r.calls)}, dynamic ${total("dynamic", (r) => r.calls)}, code ` +
    `${total("code", (r) => r.calls)}.`
  );
}

const THREE = `const card = await services.trello.getCard({ params: { path: { id: "${CARD}" } } });
const lists = await services.trello.getBoardLists({ params: { path: { id: "${BOARD}" } } });
const labels = await services.trello.getBoardLabels({ params: { path: { id: "${BOARD}" } } });
return { card: card.name, lists: lists.length, labels: labels.length };`;

/** Every limit a service declares, switched off (a connection's `limits`). */
function limitsOff(service: string): Record<string, { disabled: true }> {
  return Object.fromEntries(registeredMock(service)!.descriptor.limits.map((limit) => [limit.id, { disabled: true }]));
}

/**
 * The harness's accounts with the services' client-side limits off: Trello's 100 calls in 10 s per
 * token were reached within a run, and the waits (up to 8 s) fell on whichever side was calling.
 */
function unlimited(harness: Harness): Harness {
  return {
    ...harness,
    accounts: harness.accounts.map(([id, list]) => [
      id,
      list.map((a) => ({
        ...a,
        context: { ...a.context, connection: { ...a.context.connection, limits: limitsOff(id) } },
      })),
    ]),
  };
}

/** Each round's execute against the three direct calls of the same round: the median and the worst. */
function perRound(execute: number[], direct: number[]): string {
  const ratios = execute.map((e, i) => e / direct[i]!);
  return (
    `Against the three direct calls of its own round: median ${median(ratios).toFixed(2)}×, worst ` +
    `${Math.max(...ratios).toFixed(2)}×.`
  );
}

/**
 * Three direct tool calls against an execute of the same three calls, interleaved in one loop, for
 * one sandbox. Each sandbox gets its own loop and its own direct samples: the inline sandbox
 * prepares its next QuickJS runtime on the server's thread after a run, and in a shared loop that
 * work landed in whichever side was measured next (the direct calls came out 1.5 ms slower, and
 * the worker sandbox's ratio 1.63x instead of about 2x).
 */
async function perCall(all: Harness, sandbox: "worker" | "inline"): Promise<string> {
  // Every side: the same mock, accounts, in-memory MCP transport, warm-up rounds and limits (none).
  const harness = unlimited(all);
  const direct = await startServer(harness, "direct");
  const code = await startServer(harness, "code", { sandbox });
  const samples: Record<string, number[]> = { direct: [], execute: [], check: [], empty: [] };
  const time = async (key: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    samples[key]!.push(performance.now() - started);
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await direct.client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(texts(result).join(" "));
  };
  const execute = async (program: string) => {
    const result = await code.client.callTool({ name: "execute", arguments: { code: program } });
    if (result.isError) throw new Error(texts(result).join(" "));
  };
  try {
    for (let round = -3; round < ROUNDS; round++) {
      // Rounds below 0 warm every path up and are not counted.
      const keep = round >= 0;
      const sampled = (key: string, work: () => Promise<unknown>) => (keep ? time(key, work) : work());
      // A new comment each round: the check parses and checks the code anew every time.
      const sides = [
        () =>
          sampled("direct", async () => {
            await call("trello_get_card", { id: CARD });
            await call("trello_get_board_lists", { id: BOARD });
            await call("trello_get_board_labels", { id: BOARD });
          }),
        () => sampled("execute", () => execute(`${THREE}\n// round ${round}`)),
      ];
      // Each side goes first in every other round.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await side();
      await sampled("check", () => code.code!.check(`${THREE}\n// check ${round}`));
      await sampled("empty", () => execute(`return ${round};`));
    }
  } finally {
    await direct.close();
    await code.close();
  }
  const d = median(samples.direct!);
  const row = (label: string, key: string) => [label, ms(median(samples[key]!)), ratio(median(samples[key]!), d)];
  const where = sandbox === "worker" ? "QuickJS on a worker thread, the default" : "QuickJS on the server's thread";
  const rows = [
    ["three direct tool calls (tools/call × 3)", ms(d), "1.00×"],
    row(`execute of the same three calls, type-checked (${where})`, "execute"),
    row("  the type-check alone (and type stripping)", "check"),
    row("execute of `return n` (check, QuickJS runtime)", "empty"),
  ];
  const header = `sandbox: "${sandbox}", median of ${ROUNDS} interleaved rounds`;
  return `${table([header, "time", "vs direct"], rows)}\n\n${perRound(samples.execute!, samples.direct!)}`;
}

/**
 * The same comparison as an agent's client sees it: `stepforge mcp` and `stepforge mcp --code`,
 * each a process of its own (the built CLI), reached by the MCP SDK's client over stdio and then
 * over Streamable HTTP, both calling the loops' behavioural mock on 127.0.0.1 in this process, with
 * the client-side limits off in the connections file. A transport costs every tools/call once: three
 * times for the direct calls, once for the execute. The in-process transport above leaves that
 * cost out, which favours the direct calls.
 */
async function perCallOverTransport(harness: Harness, transport: "stdio" | "http"): Promise<string> {
  // The harness's mock (its limits off, its seeded cards): the one the in-process loops call.
  const mock = harness.mocks.get("trello")!;
  const dir = mkdtempSync(join(tmpdir(), "stepforge-bench-"));
  const connections = join(dir, "connections.json");
  const entry = { service: "trello", fields: registeredMock("trello")!.mock.credentials, limits: limitsOff("trello") };
  writeFileSync(connections, JSON.stringify({ bench: entry }), { mode: 0o600 });
  const args = ["--service", "trello", "--connections", connections, "--base-url", `trello=${mock.url}`];
  const stops: Array<() => Promise<void>> = [];
  const open = async (extra: string[]): Promise<Connected> => {
    if (transport === "stdio") {
      const connected = await stdioClient([...args, ...extra]);
      stops.push(connected.close);
      return connected;
    }
    const server = await httpProcess([...args, ...extra]);
    stops.push(server.stop);
    const connected = await httpClient(server.url);
    stops.push(connected.close);
    return connected;
  };
  const samples: Record<string, number[]> = { direct: [], execute: [] };
  try {
    const direct = await open([]);
    const code = await open(["--code"]);
    const call = async (client: Connected, name: string, args: Record<string, unknown>) => {
      const result = await client.client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(texts(result).join(" "));
    };
    for (let round = -3; round < ROUNDS; round++) {
      const sides: Array<[string, () => Promise<void>]> = [
        [
          "direct",
          async () => {
            await call(direct, "trello_get_card", { id: CARD });
            await call(direct, "trello_get_board_lists", { id: BOARD });
            await call(direct, "trello_get_board_labels", { id: BOARD });
          },
        ],
        ["execute", () => call(code, "execute", { code: `${THREE}\n// round ${round}` })],
      ];
      for (const [key, work] of round % 2 === 0 ? sides : [...sides].reverse()) {
        const started = performance.now();
        await work();
        if (round >= 0) samples[key]!.push(performance.now() - started);
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  const d = median(samples.direct!);
  const e = median(samples.execute!);
  const rows = [
    ["three direct tool calls (tools/call × 3)", ms(d), "1.00×"],
    ["execute of the same three calls, type-checked (worker sandbox)", ms(e), ratio(e, d)],
  ];
  const header = `${transport}, two stepforge mcp processes, median of ${ROUNDS} interleaved rounds`;
  return `${table([header, "time", "vs direct"], rows)}\n\n${perRound(samples.execute!, samples.direct!)}`;
}

/**
 * CPU time, all threads, of an execute of the three calls against the three direct tool calls,
 * each side in its own block (CPU time is not interleaved: a side's background work, such as the
 * worker preparing its next runtime, is counted where it belongs). Less sensitive to the machine's
 * load than wall time, though not immune (caches, frequency).
 */
async function cpuCost(all: Harness): Promise<string> {
  if (threadsCpuMs().size === 0) return "(needs Linux's /proc)";
  const harness = unlimited(all);
  const direct = await startServer(harness, "direct");
  const code = await startServer(harness, "code");
  const rounds = ROUNDS * 10;
  const block = async (work: (round: number) => Promise<unknown>) => {
    for (let round = -20; round < 0; round++) await work(round);
    const before = threadsCpuMs();
    for (let round = 0; round < rounds; round++) await work(round);
    // Work a side left behind (the worker's next runtime) lands before the block is read.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = threadsCpuMs();
    let main = 0;
    let others = 0;
    for (const [tid, ms] of after) {
      const used = ms - (before.get(tid) ?? 0);
      if (tid === process.pid) main += used;
      else others += used;
    }
    return { main: main / rounds, others: others / rounds };
  };
  try {
    const sides = [
      [
        "three direct tool calls",
        await block(async () => {
          await direct.client.callTool({ name: "trello_get_card", arguments: { id: CARD } });
          await direct.client.callTool({ name: "trello_get_board_lists", arguments: { id: BOARD } });
          await direct.client.callTool({ name: "trello_get_board_labels", arguments: { id: BOARD } });
        }),
      ],
      [
        "execute of the same three calls (worker sandbox)",
        await block((round) => code.client.callTool({ name: "execute", arguments: { code: `${THREE}\n// ${round}` } })),
      ],
    ] as const;
    const base = sides[0][1].main + sides[0][1].others;
    const rows = sides.map(([label, cpu]) => [
      label,
      ms(cpu.main),
      ms(cpu.others),
      ms(cpu.main + cpu.others),
      ratio(cpu.main + cpu.others, base),
    ]);
    return table([`CPU per side, ${rounds} rounds each`, "server's thread", "other threads", "all", "vs direct"], rows);
  } finally {
    await direct.close();
    await code.close();
  }
}

async function attacks(harness: Harness): Promise<string> {
  const server = await startServer(harness, "code", { accountsOf: ATTACKED_SERVICES, budgets: ATTACK_BUDGETS });
  const secrets = secretValues(harness.accounts);
  const rows: string[][] = [];
  let escapes = 0;
  try {
    for (const attack of ATTACKS) {
      const outcome = await executeOutcome(server.client, attack.code);
      const held = contained(attack, outcome) && !secrets.some((s) => outcome.text.includes(s));
      if (!held) escapes++;
      rows.push([attack.name, describeOutcome(outcome).replace(/\|/g, "/"), held ? "contained" : "**NOT CONTAINED**"]);
    }
    const after = await executeOutcome(server.client, KEEPS_SERVING);
    rows.push([
      "(after every attack) a normal run",
      JSON.stringify(after.body.result ?? after.body.error).slice(0, 60),
      after.isError ? "**FAILED**" : "served",
    ]);
  } finally {
    await server.close();
  }
  return `${table(["attack", "result", "verdict"], rows)}\n\nEscapes: ${escapes} of ${ATTACKS.length}.`;
}

const harness = await startHarness();
try {
  console.log(`## Code mode vs direct tools\n\n${machineLine()}\n`);
  if (run("listing")) console.log(`### tools/list\n\n${await listings(harness)}\n`);
  if (run("harness")) {
    const rows = await runHarness(harness);
    console.log(
      `### Evaluation harness (${TASKS.length} tasks; calls / bytes a model reads / ` +
        `correct)\n\n${harnessTable(rows)}\n\n${harnessSummary(rows)}\n`,
    );
  }
  if (run("cost")) {
    for (const sandbox of ["worker", "inline"] as const)
      console.log(`### The cost of a call (sandbox: ${sandbox})\n\n${await perCall(harness, sandbox)}\n`);
    for (const transport of ["stdio", "http"] as const)
      console.log(`### The cost of a call over ${transport}\n\n${await perCallOverTransport(harness, transport)}\n`);
  }
  if (run("cpu")) console.log(`### CPU time of a call (all threads)\n\n${await cpuCost(harness)}\n`);
  if (run("attacks")) {
    console.log(
      `### Sandbox attacks (1 s CPU, 64 MiB, 20 calls, 256 KiB output; marketo without an ` +
        `account)\n\n${await attacks(harness)}\n`,
    );
  }
} finally {
  await harness.close();
}
