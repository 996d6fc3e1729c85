/**
 * Runs the harness: the five services' mocks (the four, and the todo spec generated to test/.tmp)
 * started once from the tasks' seeds and reset before every run; one server per mode; each task's
 * script through a real MCP SDK client that counts tool calls and the bytes a model would read
 * (the tools/list answer, every call's arguments, every result's text).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  createCodeMode,
  loadCodeServices,
  type CodeMode,
  type CodeService,
  type SandboxBudgets,
} from "../../../runtime/code/index.js";
import { baseUrlFields } from "../../../runtime/credentials/connections.js";
import { Accounts, StepforgeMcp, type Account } from "../../../runtime/mcp/index.js";
import type { ServiceCatalog } from "../../../runtime/mcp/catalog.js";
import { registeredMock, startMock, type RunningMock } from "../../../runtime/mock/index.js";
import type { Toolset, ToolDefinition } from "../../../runtime/tools/index.js";
import { runCli } from "../../helpers/cli.js";
import { bundledCatalogs, bundledServices, connect, texts } from "../helpers.js";
import { OTHER_SEEDS, OTHER_TASKS } from "./others.js";
import { TRELLO_SEED, TRELLO_TASKS } from "./trello.js";
import type { FinalState, Json, Task } from "./types.js";

export const TASKS: Task[] = [...TRELLO_TASKS, ...OTHER_TASKS];
export const MODES = ["direct", "dynamic", "code"] as const;
export type HarnessMode = (typeof MODES)[number];

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FOREIGN_SPEC = join(ROOT, "test", "code", "fixtures", "todo.yaml");
const FOREIGN_OUT = join(ROOT, "test", ".tmp", "code-harness");

/** The todo spec's output, generated once per spec text (a stamp file holds its hash). */
async function foreignService(): Promise<{ catalog: ServiceCatalog; dir: string }> {
  const hash = createHash("sha256").update(readFileSync(FOREIGN_SPEC)).digest("hex");
  const stamp = join(FOREIGN_OUT, "spec.sha256");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== hash) {
    const result = await runCli("generate", "--spec", FOREIGN_SPEC, "--out", FOREIGN_OUT, "--service", "todo");
    if (result.code !== 0) throw new Error(`generate of the todo spec failed: ${result.stderr}`);
    writeFileSync(stamp, hash);
  }
  const dir = join(FOREIGN_OUT, "todo");
  await import(pathToFileURL(join(dir, "mock.ts")).href);
  const mod = (await import(pathToFileURL(join(dir, "tools.ts")).href)) as {
    tools: ToolDefinition[];
    toolsets?: Toolset[];
  };
  return {
    catalog: { id: "todo", title: "Todo Board", tools: mod.tools, toolsets: mod.toolsets ?? [] },
    dir: FOREIGN_OUT,
  };
}

export interface Harness {
  catalogs: ServiceCatalog[];
  services: CodeService[];
  mocks: Map<string, RunningMock>;
  accounts: Array<[string, Account[]]>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const foreign = await foreignService();
  const catalogs = [...(await bundledCatalogs()), foreign.catalog];
  const services = [...(await bundledServices()), ...loadCodeServices([foreign.catalog], foreign.dir)];
  const seeds = { ...TRELLO_SEED, ...OTHER_SEEDS };
  const mocks = new Map<string, RunningMock>();
  const accounts: Array<[string, Account[]]> = [];
  try {
    for (const catalog of catalogs) {
      const definition = registeredMock(catalog.id)!;
      const mock = await startMock(definition, { limits: { off: true }, data: { state: seeds[catalog.id] } });
      mocks.set(catalog.id, mock);
      const fields: Record<string, string> = { ...definition.mock.credentials };
      for (const name of baseUrlFields(definition.descriptor)) fields[name] ??= mock.url;
      accounts.push([
        catalog.id,
        [{ name: "mock", context: { connection: { name: "mock", fields }, baseUrl: mock.url } }],
      ]);
    }
  } catch (error) {
    await Promise.allSettled([...mocks.values()].map((m) => m.close()));
    throw error;
  }
  return {
    catalogs,
    services,
    mocks,
    accounts,
    close: async () => void (await Promise.allSettled([...mocks.values()].map((m) => m.close()))),
  };
}

export interface Server {
  mode: HarnessMode;
  client: Client;
  listingBytes: number;
  code?: CodeMode | undefined;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Only these services' accounts (the others are served without one). */
  accountsOf?: readonly string[] | undefined;
  budgets?: Partial<SandboxBudgets> | undefined;
  /** False: the code mode checks each program before starting it (see CodeModeOptions). */
  runWhileChecking?: boolean | undefined;
  /** Where QuickJS runs (see CodeModeOptions.sandbox). */
  sandbox?: "inline" | "worker" | undefined;
}

export async function startServer(harness: Harness, mode: HarnessMode, options: ServerOptions = {}): Promise<Server> {
  const accounts = new Accounts(
    options.accountsOf ? harness.accounts.filter(([id]) => options.accountsOf!.includes(id)) : harness.accounts,
  );
  const code =
    mode === "code"
      ? await createCodeMode({
          services: harness.services,
          connections: accounts,
          budgets: options.budgets,
          runWhileChecking: options.runWhileChecking,
          sandbox: options.sandbox,
        })
      : undefined;
  await code?.ready();
  // "direct" lists every step, whatever the listing budget would do (it is the baseline compared with).
  const mcp = new StepforgeMcp({
    catalogs: harness.catalogs,
    accounts,
    dynamic: mode === "dynamic",
    toolSet: code,
    ...(mode === "direct" ? { budget: false as const } : {}),
  });
  const { client, close } = await connect(mcp);
  const { tools } = await client.listTools();
  return {
    mode,
    client,
    code,
    listingBytes: Buffer.byteLength(JSON.stringify({ tools })),
    close: async () => void (await close(), await code?.close()),
  };
}

export interface Row {
  task: string;
  mode: HarnessMode;
  calls: number;
  /** listing + arguments + results. */
  bytes: number;
  listing: number;
  correct: boolean;
  problems: string[];
}

function stateOf(harness: Harness): FinalState {
  const dumps = new Map([...harness.mocks].map(([id, m]) => [id, m.dumpState()]));
  return {
    records: (service, resource) => (dumps.get(service)?.records[resource] ?? []) as Json[],
    relations: (service) => dumps.get(service)?.relations ?? {},
  };
}

/** One task in one mode: mocks reset, the script run, the check read. */
export async function runTask(harness: Harness, server: Server, task: Task): Promise<Row> {
  for (const mock of harness.mocks.values()) mock.reset();
  const initial = stateOf(harness);
  let calls = 0;
  let bytes = server.listingBytes;
  const call = async (name: string, args: Json) => {
    const result = await server.client.callTool({ name, arguments: args });
    calls++;
    const all = texts(result);
    bytes +=
      Buffer.byteLength(name) +
      Buffer.byteLength(JSON.stringify(args)) +
      all.reduce((n, t) => n + Buffer.byteLength(t), 0);
    if (result.isError) throw new Error(`${name} failed: ${all.join(" ")}`);
    return JSON.parse(all[0]!) as unknown;
  };
  let answer: unknown;
  const problems: string[] = [];
  try {
    if (server.mode === "code") {
      for (const s of task.code.searches)
        await server.client.callTool({ name: "search", arguments: s }).then((r) => {
          calls++;
          bytes +=
            Buffer.byteLength("search") +
            Buffer.byteLength(JSON.stringify(s)) +
            texts(r).reduce((n, t) => n + Buffer.byteLength(t), 0);
        });
      answer = ((await call("execute", { code: task.code.program })) as { result?: unknown }).result;
    } else if (server.mode === "dynamic") {
      for (const query of task.searches) await call("search_steps", { query });
      const described = new Set<string>();
      answer = await task.direct({
        call: async (step, input) => {
          if (!described.has(step)) {
            described.add(step);
            await call("describe_step", { name: step });
          }
          return (await call("call_step", { name: step, input })) as never;
        },
      });
    } else {
      answer = await task.direct({ call: async (step, input) => (await call(step, input)) as never });
    }
  } catch (error) {
    problems.push((error as Error).message.slice(0, 500));
  }
  if (problems.length === 0) problems.push(...task.check(stateOf(harness), answer, initial));
  return {
    task: task.id,
    mode: server.mode,
    calls,
    bytes,
    listing: server.listingBytes,
    correct: problems.length === 0,
    problems,
  };
}

/** Every task in every mode, one server per mode. */
export async function runHarness(harness: Harness, tasks: readonly Task[] = TASKS): Promise<Row[]> {
  const rows: Row[] = [];
  for (const mode of MODES) {
    const server = await startServer(harness, mode);
    try {
      for (const task of tasks) rows.push(await runTask(harness, server, task));
    } finally {
      await server.close();
    }
  }
  return rows;
}

/** The table: task × mode (calls, bytes, correct), and the totals. */
export function table(rows: readonly Row[]): string {
  const tasks = [...new Set(rows.map((r) => r.task))];
  const cell = (task: string, mode: HarnessMode) => {
    const r = rows.find((x) => x.task === task && x.mode === mode);
    return r ? `${r.calls} / ${r.bytes.toLocaleString("en")} / ${r.correct ? "yes" : "NO"}` : "";
  };
  const lines = [
    `| task | ${MODES.map((m) => `${m} (calls / bytes / correct)`).join(" | ")} |`,
    `|---|${MODES.map(() => "---").join("|")}|`,
  ];
  for (const t of tasks) lines.push(`| ${t} | ${MODES.map((m) => cell(t, m)).join(" | ")} |`);
  const sum = (mode: HarnessMode, f: (r: Row) => number) =>
    rows.filter((r) => r.mode === mode).reduce((n, r) => n + f(r), 0);
  const total = (m: HarnessMode) =>
    `${sum(m, (r) => r.calls)} / ${sum(m, (r) => r.bytes).toLocaleString("en")} / ` +
    `${sum(m, (r) => (r.correct ? 1 : 0))} of ${tasks.length}`;
  lines.push(`| **total** | ${MODES.map(total).join(" | ")} |`);
  return lines.join("\n");
}
