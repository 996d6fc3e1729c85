/**
 * `stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]`
 *
 * Runs one tool step and prints its result as one JSON document: `{ "ok": true, "data": … }`
 * (exit 0) or `{ "ok": false, "error": … }` (exit 1). A wrong command line (unknown tool, input
 * that is not JSON, no usable connection) is a usage error (exit 2).
 *
 * Connections come from FILE (or $STEPFORGE_CONNECTIONS), in either form:
 * - the runtime's store file: `{ "version": 1, "connections": { "<service>": { "<name>": { "name", "fields" } } } }`
 *   (mode 0600; rotated OAuth tokens are written back);
 * - a plain map: `{ "<name>": { "service": "trello", "fields": { … }, "authMode"?: …, "limits"?: … } }`.
 * Without --connection the service's only connection is used.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Connection } from "../../runtime/auth.js";
import { closeDefaultSharedState } from "../../runtime/client.js";
import { FileConnectionStore, type ConnectionStore } from "../../runtime/connections.js";
import { executeTool, type ToolContext } from "../../runtime/tools/index.js";
import { UsageError } from "../usage.js";
import { loadTools } from "./tools.js";

interface Resolved {
  connection: Connection;
  store?: ConnectionStore | undefined;
}

async function resolveConnection(file: string, service: string, name: string | undefined): Promise<Resolved> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the connections file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message would quote the file, which holds secrets.
    throw new UsageError(`the connections file ${file} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError(`the connections file ${file} must hold a JSON object`);
  const pick = (names: string[]): string => {
    if (name !== undefined) {
      if (names.includes(name)) return name;
      throw new UsageError(`there is no ${service} connection "${name}" in ${file}; ${names.length ? `use one of ${names.join(", ")}` : `add a ${service} connection first`}`);
    }
    if (names.length === 1) return names[0]!;
    throw new UsageError(names.length === 0 ? `${file} has no ${service} connection` : `${file} has several ${service} connections (${names.join(", ")}); choose one with --connection NAME`);
  };
  if ("connections" in parsed) {
    const store = new FileConnectionStore(file);
    const names = (await store.list(service)).map((r) => r.name);
    const chosen = pick(names);
    const connection = await store.get(service, chosen);
    return { connection: connection!, store };
  }
  const entries = Object.entries(parsed as Record<string, unknown>).filter(([, v]) => (v as { service?: unknown })?.service === service);
  const chosen = pick(entries.map(([n]) => n).sort());
  const raw = Object.fromEntries(entries)[chosen] as { fields?: Record<string, string>; authMode?: string; limits?: Connection["limits"] };
  return { connection: { name: chosen, fields: raw.fields ?? {}, ...(raw.authMode ? { authMode: raw.authMode } : {}), ...(raw.limits ? { limits: raw.limits } : {}) } };
}

export async function callCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { input: { type: "string" }, connection: { type: "string" }, connections: { type: "string" }, "base-url": { type: "string" } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError("give exactly one tool name: stepforge call TOOL --input JSON");
  const name = positionals[0]!;
  if (values.input === undefined) throw new UsageError('--input JSON is required (use --input "{}" for a step without fields)');
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch (error) {
    throw new UsageError(`--input is not valid JSON: ${(error as Error).message}`);
  }
  const tools = await loadTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const prefix = name.split("_")[0];
    const close = tools.filter((t) => t.name.startsWith(`${prefix}_`)).map((t) => t.name);
    throw new UsageError(`unknown tool "${name}"${close.length ? `; ${prefix} has ${close.join(", ")}` : "; see stepforge tools list"}`);
  }
  const file = values.connections ?? process.env.STEPFORGE_CONNECTIONS;
  if (!file) throw new UsageError("no connections: give --connections FILE (or set STEPFORGE_CONNECTIONS)");
  let baseUrl = values["base-url"];
  if (baseUrl !== undefined) {
    try {
      const u = new URL(baseUrl);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
    } catch {
      throw new UsageError(`--base-url must be an http(s) address, e.g. http://127.0.0.1:4010`);
    }
    baseUrl = baseUrl.replace(/\/+$/, "");
  }
  const { connection, store } = await resolveConnection(resolve(file), tool.service, values.connection);
  const context: ToolContext = { connection, ...(baseUrl ? { baseUrl } : {}), ...(store ? { store } : {}) };
  // Limits and tokens are shared with other processes when STEPFORGE_REDIS_URL or STEPFORGE_STATE_DIR is set.
  const result = await executeTool(tool, input, context).finally(() => closeDefaultSharedState());
  out.write(`${JSON.stringify(result, null, 2)}\n`);
  return result.ok ? 0 : 1;
}
