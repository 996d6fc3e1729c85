/**
 * `stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]`
 *
 * Runs one tool step and prints its result as one JSON document: `{ "ok": true, "data": … }`
 * (exit 0) or `{ "ok": false, "error": … }` (exit 1). A wrong command line (unknown tool, input
 * that is not JSON, no usable connection) is a usage error (exit 2).
 *
 * Connections come from FILE (or $STEPFORGE_CONNECTIONS), read as `stepforge mcp` reads them
 * (runtime/mcp/accounts.ts: the runtime's store file, or a plain map of named connections).
 * Without --connection the service's only connection is used.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { closeDefaultSharedState } from "../../runtime/client/client.js";
import { AccountsError, accountsFromFile, type Account } from "../../runtime/mcp/accounts.js";
import { checkStateEnv } from "../../runtime/state/config.js";
import { callLogConfigFromEnv } from "../../runtime/observe/call-log.js";
import { executeTool, type ToolContext } from "../../runtime/tools/index.js";
import { UsageError } from "../usage.js";
import { loadTools } from "./tools.js";

/** The connection a call runs with: the one named, or the service's only one. */
async function resolveAccount(file: string, service: string, name: string | undefined): Promise<Account> {
  let accounts: Account[];
  try {
    accounts = (await accountsFromFile(file, [service]))[0]![1];
  } catch (error) {
    if (error instanceof AccountsError) throw new UsageError(error.message);
    throw error;
  }
  const names = accounts.map((a) => a.name).sort();
  if (name !== undefined) {
    const found = accounts.find((a) => a.name === name);
    if (found) return found;
    throw new UsageError(`there is no ${service} connection "${name}" in ${file}; ${names.length ? `use one of ${names.join(", ")}` : `add a ${service} connection first`}`);
  }
  if (accounts.length === 1) return accounts[0]!;
  throw new UsageError(names.length === 0 ? `${file} has no ${service} connection` : `${file} has several ${service} connections (${names.join(", ")}); choose one with --connection NAME`);
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
  try {
    checkStateEnv();
    callLogConfigFromEnv();
  } catch (error) {
    throw new UsageError((error as Error).message);
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
  const account = await resolveAccount(resolve(file), tool.service, values.connection);
  const context: ToolContext = { ...account.context, ...(baseUrl ? { baseUrl } : {}) };
  // Limits and tokens are shared with other processes when STEPFORGE_REDIS_URL or STEPFORGE_STATE_DIR is set.
  const result = await executeTool(tool, input, context).finally(() => closeDefaultSharedState());
  out.write(`${JSON.stringify(result, null, 2)}\n`);
  return result.ok ? 0 : 1;
}
