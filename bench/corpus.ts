/**
 * Issue 20's goal, measured on 15 public specs nobody here tuned to (bench/lib/corpus-specs.ts
 * lists them and where they come from). Each spec goes through what a user does with it:
 *
 * 1. `stepforge generate --spec FILE --out DIR --service ID` (lenient), in this process;
 * 2. strict `tsc` over every output (one program; errors counted per spec);
 * 3. its behavioural mock, started on 127.0.0.1;
 * 4. five operations (evenly spread over the spec) called through the typed client against the
 *    mock, with parameters and bodies sampled from the spec's own schemas, and the ids in their
 *    paths learned first from the parent collection's list or create operation, as a user does
 *    (bench/lib/corpus-ids.ts says exactly how; a call whose ids none gave still counts);
 * 5. the OpenAI export: tools that claim `strict: true` while breaking one of OpenAI's rules;
 * 6. an in-process MCP server (`StepforgeMcp`, as `stepforge mcp` builds it) reached through the
 *    SDK's client: `tools/list` (bytes and time), then the same five steps through `tools/call`
 *    (or `call_step` when the server serves the meta-tools), with path ids learned the same way.
 *
 * Goal: 15/15 generate and tsc 0; 15/15 mocks start; ≥ 95 % of calls ok through client and MCP;
 * the default listing ≤ 120 KB; 0 wrong strict tools. Failures are listed under the table with
 * their message, to be classed by the part of the pipeline they belong to.
 *
 *   npx tsx bench/corpus.ts [--only notion,slack] [--skip-tsc] [--reuse] [--json FILE]
 *
 * --reuse keeps the outputs a previous run generated (a spec without one counts as not generated):
 * to measure runtime changes alone. Each spec's row is appended to FILE.rows.jsonl as it is done.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { parse as parseYaml } from "yaml";
import { main } from "../cli/main.js";
import { baseUrlFields } from "../runtime/credentials/connections.js";
import { Accounts, StepforgeMcp } from "../runtime/mcp/index.js";
import { loadMock, startMock, type RunningMock } from "../runtime/mock/index.js";
import { pointerResolver, sampleFromSchema } from "../runtime/mock/sample.js";
import { exportTools, type OpenAITool, type ToolDefinition } from "../runtime/tools/index.js";
import { openaiStrictViolations } from "../runtime/tools/export-strict.js";
import { IdFinder, type LearnedIds, type OperationPlace, pathField } from "./lib/corpus-ids.js";
import { CORPUS, corpusFiles } from "./lib/corpus-specs.js";
import { machineLine, table } from "./lib/report.js";
import { writeGeneratedTsconfig } from "../test/helpers/tsc.js";

type Json = Record<string, unknown>;

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "skip-tsc": { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const ROOT = resolve(import.meta.dirname, "..");
// Inside the package, so the generated code imports this runtime by relative path.
const OUT = join(ROOT, "bench", ".cache", "corpus");
const SAMPLED_CALLS = 5;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const only = values.only?.split(",").map((s) => s.trim());
const specs = CORPUS.filter((c) => !only || only.includes(c.id));

interface Failure {
  spec: string;
  stage: "generate" | "mock" | "client" | "mcp";
  what: string;
  message: string;
}

interface Row {
  id: string;
  version: string;
  format: string;
  operations: number;
  generated: boolean;
  generateSeconds: number;
  tscErrors: number | undefined;
  mock: boolean;
  clientOk: number;
  mcpOk: number;
  calls: number;
  fullListingBytes: number | undefined;
  listingBytes: number | undefined;
  listingMode: string;
  listedTools: number | undefined;
  listingMs: number | undefined;
  strictWrong: number | undefined;
  strictTools: number | undefined;
}

const failures: Failure[] = [];
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const short = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").slice(0, 220);

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

function readSpec(file: string): Json {
  const text = readFileSync(file, "utf8");
  return (file.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 })) as Json;
}

function operationCount(spec: Json): number {
  let n = 0;
  for (const item of Object.values((spec.paths as Json) ?? {}))
    if (isObject(item)) for (const m of METHODS) if (isObject(item[m])) n++;
  return n;
}

/** `value` with a `$ref` followed (parameters, bodies), as many times as it takes. */
function deref(spec: Json, value: unknown): Json {
  const resolve = pointerResolver(spec);
  let node = value;
  for (let i = 0; i < 10 && isObject(node) && typeof node.$ref === "string"; i++) node = resolve(node.$ref);
  return isObject(node) ? node : {};
}

/** A call's parameters and body sampled from the spec's schemas (required ones, and every path parameter). */
function sampledInit(spec: Json, path: string, method: string, mediaType: string | undefined, seed: string): Json {
  const item = deref(spec, (spec.paths as Json)[path]);
  const op = deref(spec, item[method.toLowerCase()]);
  const resolve = pointerResolver(spec);
  const params: Record<string, Json> = {};
  const byKey = new Map<string, Json>();
  for (const raw of [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]) {
    const p = deref(spec, raw);
    byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  }
  for (const p of byKey.values()) {
    if (p.in === "cookie" || !(p.required || p.in === "path")) continue;
    const content = isObject(p.content) ? Object.values(p.content)[0] : undefined;
    const schema = isObject(p.schema) ? p.schema : isObject(content) ? content.schema : { type: "string" };
    (params[String(p.in)] ??= {})[String(p.name)] = sampleFromSchema(schema, {
      seed: `${seed}:${String(p.name)}`,
      resolve,
    });
  }
  const init: Json = { params };
  const body = deref(spec, op.requestBody);
  if (isObject(body.content) && body.required) {
    const types = Object.keys(body.content);
    const type = mediaType ?? types.find((t) => /json/.test(t)) ?? types[0]!;
    const schema = (body.content[type] as Json | undefined)?.schema;
    init.body = schema === undefined ? {} : sampleFromSchema(schema, { seed: `${seed}:body`, resolve });
  }
  return init;
}

/** The operations to call: evenly spread over the spec's, each with a tool step. */
function sampledOperations(descriptor: Json, tools: readonly ToolDefinition[]): string[] {
  const withTool = new Set(tools.flatMap((t) => (t.kind === "operation" ? [t.operationId] : [])));
  const ids = Object.keys(descriptor.operations as Json).filter((id) => withTool.has(id));
  const picked = new Set<string>();
  for (let i = 0; i < SAMPLED_CALLS && i < ids.length; i++)
    picked.add(ids[Math.floor((i * ids.length) / Math.min(SAMPLED_CALLS, ids.length))]!);
  return [...picked];
}

async function generateAll(files: Map<string, string>): Promise<Map<string, { ok: boolean; seconds: number }>> {
  const results = new Map<string, { ok: boolean; seconds: number }>();
  for (const spec of specs) {
    if (values.reuse) {
      results.set(spec.id, { ok: existsSync(join(OUT, spec.id, spec.id, "tools.ts")), seconds: Number.NaN });
      continue;
    }
    const out = new Capture();
    const err = new Capture();
    rmSync(join(OUT, spec.id), { recursive: true, force: true });
    const started = performance.now();
    let code = 1;
    try {
      code = await main(
        ["generate", "--spec", files.get(spec.id)!, "--out", join(OUT, spec.id), "--service", spec.id, "--no-cache"],
        out,
        err,
      );
    } catch (error) {
      err.text += String((error as Error).stack ?? error);
    }
    const seconds = (performance.now() - started) / 1000;
    results.set(spec.id, { ok: code === 0, seconds });
    if (code !== 0) {
      const lines = err.text.split("\n").filter((l) => l.trim() && !/ warning /.test(l));
      const errors = lines.filter((l) => / error /.test(l));
      const said = (errors.length ? errors.slice(0, 2) : lines.slice(-2)).map((l) => l.replace(/^\S+:\d+:\d+ /, ""));
      failures.push({ spec: spec.id, stage: "generate", what: `exit ${code}`, message: short(said.join(" / ")) });
    }
    console.error(`generated ${spec.id}: exit ${code} in ${seconds.toFixed(1)} s`);
  }
  return results;
}

/** tsc over every output in one program; error lines per spec. */
function typecheckAll(): Map<string, number> {
  const tsconfig = join(OUT, "tsconfig.json");
  writeGeneratedTsconfig(
    tsconfig,
    specs.map((s) => join(OUT, s.id)),
  );
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const started = performance.now();
  const run = spawnSync(process.execPath, ["--max-old-space-size=8192", tsc, "--noEmit", "-p", tsconfig], {
    encoding: "utf8",
    maxBuffer: 256 * 2 ** 20,
  });
  console.error(`tsc: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const counts = new Map<string, number>();
  const prefix = relative(ROOT, OUT);
  for (const line of `${run.stdout}${run.stderr}`.split("\n")) {
    const match = / error TS\d+/.test(line) ? new RegExp(`^${prefix}/([^/]+)/`).exec(line) : null;
    if (match) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  }
  return counts;
}

/** For a failure line: the path ids no list or create operation gave. */
const unlearned = (learned: LearnedIds) =>
  learned.missing.length ? ` (no id learned for ${learned.missing.join(", ")})` : "";

function errorText(error: unknown): string {
  const e = error as { kind?: string; status?: number; message?: string };
  return `${e.kind ?? "thrown"}${e.status ? ` ${e.status}` : ""}: ${e.message ?? String(error)}`;
}

async function callClient(
  row: Row,
  spec: Json,
  module: Json,
  descriptor: Json,
  fields: Record<string, string>,
  mock: RunningMock,
  ops: string[],
): Promise<IdFinder> {
  const surface = JSON.parse(readFileSync(join(OUT, row.id, row.id, "surface.json"), "utf8")) as { client: string };
  const ClientClass = module[surface.client] as new (
    options: unknown,
  ) => Record<string, unknown> & { core: { call(id: string, init: unknown): Promise<unknown> } };
  const client = new ClientClass({ connection: { name: "mock", fields }, baseUrl: mock.url, maxLimitWaitMs: 2000 });
  const operations = descriptor.operations as Record<string, OperationPlace & { requestMediaType?: string }>;
  const initOf = (id: string, pathIds: Record<string, string>) => {
    const op = operations[id]!;
    const init = sampledInit(spec, op.path, op.method, op.requestMediaType, `${row.id}:${id}`);
    const params = init.params as Record<string, Json>;
    params.path = { ...params.path, ...pathIds };
    return { ...init, signal: AbortSignal.timeout(20_000) };
  };
  const finder = new IdFinder(operations, (id, pathIds) => client.core.call(id, initOf(id, pathIds)));
  for (const id of ops) {
    const op = operations[id]!;
    let learned: LearnedIds = { ids: {}, missing: [] };
    try {
      learned = await finder.learn(op.path);
      const init = initOf(id, learned.ids);
      const method = client[id];
      await (typeof method === "function"
        ? (method as (i: unknown) => Promise<unknown>).call(client, init)
        : client.core.call(id, init));
      row.clientOk++;
    } catch (error) {
      failures.push({
        spec: row.id,
        stage: "client",
        what: `${op.method} ${op.path} (${id})`,
        message: short(`${errorText(error)}${unlearned(learned)}`),
      });
    }
  }
  return finder;
}

async function callMcp(
  row: Row,
  tools: readonly ToolDefinition[],
  fields: Record<string, string>,
  mock: RunningMock,
  ops: string[],
  finder: IdFinder,
  pathOf: (operationId: string) => string,
): Promise<void> {
  const catalogs = [
    {
      id: row.id,
      title: row.id,
      tools,
      toolsets: ((await import(join(OUT, row.id, row.id, "tools.ts"))) as { toolsets?: [] }).toolsets ?? [],
    },
  ];
  const accounts = new Accounts([
    [row.id, [{ name: "mock", context: { connection: { name: "mock", fields }, baseUrl: mock.url } }]],
  ]);
  const started = performance.now();
  // What `stepforge mcp --service ID` serves by default (its budget included, where it has one).
  const server = new StepforgeMcp({ catalogs, accounts, maxLimitWaitMs: 2000 });
  const built = performance.now();
  // A server without a budget (before issue 20) lists every step by default: the same listing.
  const budgeted = typeof (server as { dynamic?: unknown }).dynamic === "boolean";
  const full = budgeted ? new StepforgeMcp({ catalogs, accounts, budget: false }) : server;
  row.fullListingBytes = Buffer.byteLength(JSON.stringify({ tools: full.listTools() }));
  const unlisted = performance.now();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.createServer().connect(serverSide);
  const client = new Client({ name: "stepforge-corpus", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const listed = await client.listTools();
    // Building the server and tools/list, not the second listing measured beside it.
    row.listingMs = performance.now() - started - (budgeted ? unlisted - built : 0);
    row.listingBytes = Buffer.byteLength(JSON.stringify(listed));
    row.listedTools = listed.tools.length;
    const dynamic = listed.tools.some((t) => t.name === "call_step");
    row.listingMode = dynamic ? "dynamic" : "tools";
    for (const id of ops) {
      const tool = tools.find((t) => t.kind === "operation" && t.operationId === id)!;
      const served = server.served.find((s) => s.definition === tool)!;
      let learned: LearnedIds = { ids: {}, missing: [] };
      try {
        const input = sampleFromSchema(served.listed.inputSchema, { seed: `${row.id}:${id}:mcp` }) as Json;
        learned = await finder.learn(tool.kind === "operation" ? pathOf(tool.operationId) : "");
        const properties = (served.listed.inputSchema.properties ?? {}) as Json;
        for (const [name, value] of Object.entries(learned.ids)) {
          const field = pathField(properties, name);
          const type = (properties[field ?? ""] as Json | undefined)?.type;
          if (field) input[field] = type === "integer" || type === "number" ? Number(value) : value;
          else learned.missing.push(`${name} (no input field)`);
        }
        const result = dynamic
          ? await client.callTool({ name: "call_step", arguments: { name: tool.name, input } }, undefined, {
              timeout: 30_000,
            })
          : await client.callTool({ name: tool.name, arguments: input as Json }, undefined, { timeout: 30_000 });
        const text = ((result.content as Array<{ text?: string }>)[0]?.text ?? "").slice(0, 2000);
        if (result.isError)
          failures.push({ spec: row.id, stage: "mcp", what: tool.name, message: short(text + unlearned(learned)) });
        else row.mcpOk++;
      } catch (error) {
        const message = short(errorText(error) + unlearned(learned));
        failures.push({ spec: row.id, stage: "mcp", what: tool.name, message });
      }
    }
  } finally {
    await client.close();
  }
}

function strictCheck(row: Row, tools: readonly ToolDefinition[]): void {
  const exported = exportTools(tools, "openai").tools as OpenAITool[];
  const strict = exported.filter((t) => t.function.strict);
  row.strictTools = strict.length;
  row.strictWrong = strict.filter((t) => openaiStrictViolations(t.function.parameters).length > 0).length;
}

async function runOne(
  spec: (typeof specs)[number],
  file: string,
  generated: { ok: boolean; seconds: number } | undefined,
  tsc: Map<string, number> | undefined,
): Promise<Row> {
  const document = readSpec(file);
  const row: Row = {
    id: spec.id,
    version: String(document.openapi),
    format: file.endsWith(".json") ? "JSON" : "YAML",
    operations: operationCount(document),
    generated: generated?.ok ?? false,
    generateSeconds: generated?.seconds ?? Number.NaN,
    tscErrors: tsc && generated?.ok ? (tsc.get(spec.id) ?? 0) : undefined,
    mock: false,
    clientOk: 0,
    mcpOk: 0,
    calls: 0,
    fullListingBytes: undefined,
    listingBytes: undefined,
    listingMode: "-",
    listedTools: undefined,
    listingMs: undefined,
    strictWrong: undefined,
    strictTools: undefined,
  };
  if (!row.generated) return row;
  const dir = join(OUT, spec.id, spec.id);
  const { tools } = (await import(join(dir, "tools.ts"))) as { tools: ToolDefinition[] };
  const { descriptor } = (await import(join(dir, "descriptor.ts"))) as { descriptor: Json };
  strictCheck(row, tools);
  let mock: RunningMock | undefined;
  try {
    const definition = await loadMock(join(dir, "mock.ts"));
    mock = await startMock(definition);
    row.mock = true;
    const fields: Record<string, string> = { ...(definition.mock.credentials ?? {}) };
    for (const name of baseUrlFields(definition.descriptor)) fields[name] ??= mock.url;
    const ops = sampledOperations(descriptor, tools);
    row.calls = ops.length;
    const client = (await import(join(dir, "client.ts"))) as Json;
    const finder = await callClient(row, document, client, descriptor, fields, mock, ops);
    const pathOf = (id: string) => (descriptor.operations as Record<string, OperationPlace>)[id]!.path;
    await callMcp(row, tools, fields, mock, ops, finder, pathOf);
  } catch (error) {
    failures.push({
      spec: spec.id,
      stage: row.mock ? "mcp" : "mock",
      what: row.mock ? "server" : "start",
      message: short(String((error as Error).stack ?? error)),
    });
  } finally {
    await mock?.close();
  }
  console.error(`ran ${spec.id}: client ${row.clientOk}/${row.calls}, mcp ${row.mcpOk}/${row.calls}`);
  return row;
}

const ratio = (part: number, whole: number) => `${part}/${whole} (${((100 * part) / Math.max(whole, 1)).toFixed(0)} %)`;
const kb = (bytes: number | undefined) => (bytes === undefined ? "-" : `${(bytes / 1024).toFixed(1)} KB`);

function report(rows: Row[]): string {
  const header = [
    "spec",
    "OpenAPI",
    "format",
    "operations",
    "generate",
    "tsc errors",
    "mock",
    "client calls ok",
    "MCP calls ok",
    "MCP listing (served)",
    "listing time",
    "full per-step listing",
    "strict tools OpenAI would refuse",
  ];
  const lines = rows.map((r) => [
    r.id,
    r.version,
    r.format,
    r.operations,
    r.generated ? `ok (${r.generateSeconds.toFixed(1)} s)` : "FAILED",
    r.tscErrors ?? "-",
    r.mock ? "ok" : "no",
    `${r.clientOk}/${r.calls}`,
    `${r.mcpOk}/${r.calls}`,
    r.listingBytes === undefined ? "-" : `${kb(r.listingBytes)}, ${r.listedTools} tools (${r.listingMode})`,
    r.listingMs === undefined ? "-" : `${(r.listingMs / 1000).toFixed(2)} s`,
    kb(r.fullListingBytes),
    r.strictWrong === undefined ? "-" : `${r.strictWrong} of ${r.strictTools}`,
  ]);
  const calls = rows.reduce((n, r) => n + r.calls, 0);
  const sum = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0);
  const [clientOk, mcpOk] = [sum((r) => r.clientOk), sum((r) => r.mcpOk)];
  const totals = [
    `generate ${rows.filter((r) => r.generated).length}/${rows.length}`,
    `tsc 0 errors ${rows.filter((r) => r.tscErrors === 0).length}/${rows.length}`,
    `mocks ${rows.filter((r) => r.mock).length}/${rows.length}`,
    `client calls ${ratio(clientOk, calls)}`,
    `MCP calls ${ratio(mcpOk, calls)}`,
    `listings ≤ 120 KB ` +
      `${rows.filter((r) => (r.listingBytes ?? Number.POSITIVE_INFINITY) <= 120 * 1024).length}/` +
      `${rows.length}`,
    `wrong strict tools ${sum((r) => r.strictWrong ?? 0)}`,
  ];
  const failureLines = failures.map((f) => `- ${f.spec} · ${f.stage} · ${f.what}: ${f.message}`);
  return [
    machineLine(),
    "",
    table(header, lines),
    "",
    `Totals: ${totals.join(" · ")}`,
    "",
    "Failures:",
    "",
    ...failureLines,
  ].join("\n");
}

mkdirSync(OUT, { recursive: true });
const files = corpusFiles();
const generated = await generateAll(files);
const tsc = values["skip-tsc"] ? undefined : typecheckAll();
const rows: Row[] = [];
for (const spec of specs) {
  rows.push(await runOne(spec, files.get(spec.id)!, generated.get(spec.id), tsc));
  if (values.json)
    appendFileSync(
      `${values.json}.rows.jsonl`,
      `${JSON.stringify({ row: rows.at(-1), failures: failures.filter((f) => f.spec === spec.id) })}\n`,
    );
}
const text = report(rows);
console.log(text);
if (values.json) writeFileSync(values.json, JSON.stringify({ rows, failures }, null, 2));
process.exit(0);
