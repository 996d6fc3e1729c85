/**
 * `stepforge call TOOL --input JSON [--mock] [--connection NAME] [--connections FILE] [--base-url URL]
 *                 [--spec FILE]... [--project DIR]`
 *
 * Runs one tool step and prints its result as one JSON document: `{ "ok": true, "data": … }`
 * (exit 0) or `{ "ok": false, "error": … }` (exit 1). A wrong command line (unknown tool, input
 * that is not JSON, no usable connection) is a usage error (exit 2).
 *
 * The step is found by its service prefix among the services in scope (the project's, the --spec
 * files', the bundled ones), so only that service is loaded. Connections come from FILE (or
 * $STEPFORGE_CONNECTIONS), read as `stepforge mcp` reads them (runtime/mcp/accounts.ts: the
 * runtime's store file, or a plain map of named connections; a connection's own `baseUrl` is
 * honoured). Without --connection the service's only connection is used. `--mock` runs the step
 * against the service's behavioural mock, started in this process with its mock credentials, as
 * `stepforge mcp --mock` does.
 */
import { resolve } from "node:path";
import { closeDefaultSharedState } from "../../runtime/client/client.js";
import { AccountsError, accountsFromFile, type Account } from "../../runtime/mcp/accounts.js";
import { checkStateEnv } from "../../runtime/state/index.js"; // also lets the environment choose shared state
import { callLogConfigFromEnv } from "../../runtime/observe/call-log.js";
import { executeTool, type ToolContext } from "../../runtime/tools/index.js";
import type { ToolDefinition } from "../../runtime/tools/index.js";
import { flagsAndWordsOf, SCOPE_OPTIONS, urlFlag } from "../flags.js";
import { describeServices, reachable, resolveScope, type Scope, type ServiceSource } from "../project.js";
import { loadMockDefinition, loadService } from "../services.js";
import { UsageError } from "../usage.js";

/** The connection a call runs with: the one named, or the service's only one. */
async function resolveAccount(file: string, tool: ToolDefinition, name: string | undefined): Promise<Account> {
  const service = tool.service;
  let accounts: Account[];
  try {
    accounts = (await accountsFromFile(file, [service], { descriptors: { [service]: tool.descriptor } }))[0]![1];
  } catch (error) {
    if (error instanceof AccountsError) throw new UsageError(error.message);
    throw error;
  }
  const names = accounts.map((a) => a.name).sort();
  if (name !== undefined) {
    const found = accounts.find((a) => a.name === name);
    if (found) return found;
    throw new UsageError(
      `there is no ${service} connection "${name}" in ${file}; ` +
        (names.length ? `use one of ${names.join(", ")}` : `add a ${service} connection first`),
    );
  }
  if (accounts.length === 1) return accounts[0]!;
  throw new UsageError(
    names.length === 0
      ? `${file} has no ${service} connection`
      : `${file} has several ${service} connections (${names.join(", ")}); choose one with --connection NAME`,
  );
}

export async function callCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = flagsAndWordsOf(argv, {
    ...SCOPE_OPTIONS,
    input: { type: "string" },
    mock: { type: "boolean", default: false },
    connection: { type: "string" },
    connections: { type: "string" },
    "base-url": { type: "string" },
  });
  if (positionals.length !== 1) throw new UsageError("give exactly one tool name: stepforge call TOOL --input JSON");
  const name = positionals[0]!;
  if (values.input === undefined)
    throw new UsageError('--input JSON is required (use --input "{}" for a step without fields)');
  if (
    values.mock &&
    (values.connection !== undefined || values.connections !== undefined || values["base-url"] !== undefined)
  ) {
    throw new UsageError(
      "--mock runs the step against the service's mock with the mock's own credentials; " +
        "leave out --connection, --connections and --base-url",
    );
  }
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch (error) {
    throw new UsageError(`--input is not valid JSON: ${(error as Error).message}`);
  }
  const scope = await resolveScope({ specs: values.spec, project: values.project });
  const { tool, source } = await findTool(scope, name);
  try {
    checkStateEnv();
    callLogConfigFromEnv();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const baseUrl = values["base-url"] === undefined ? undefined : urlFlag("--base-url", values["base-url"]);
  let context: ToolContext;
  let closeMock = async () => {};
  if (values.mock) {
    await loadMockDefinition(source);
    const { startMockAccounts } = await import("../../runtime/mcp/mock-accounts.js");
    const catalog = { id: tool.service, title: tool.descriptor.title, tools: [tool], toolsets: [] };
    const mocks = await startMockAccounts([catalog]);
    closeMock = mocks.close;
    context = mocks.accounts[0]![1][0]!.context;
  } else {
    const file = values.connections ?? process.env.STEPFORGE_CONNECTIONS;
    if (!file)
      throw new UsageError(
        "no connections: give --connections FILE (or set STEPFORGE_CONNECTIONS), or run against the mock with --mock",
      );
    const account = await resolveAccount(resolve(file), tool, values.connection);
    context = { ...account.context, ...(baseUrl ? { baseUrl } : {}) };
  }
  // Limits and tokens are shared with other processes when STEPFORGE_REDIS_URL or STEPFORGE_STATE_DIR is set.
  const result = await executeTool(tool, input, context).finally(async () => {
    await closeMock();
    await closeDefaultSharedState();
  });
  out.write(`${JSON.stringify(result, null, 2)}\n`);
  return result.ok ? 0 : 1;
}

/** The step named, loading only the service its name starts with (`bookshelf_list_books` → bookshelf). */
async function findTool(scope: Scope, name: string): Promise<{ tool: ToolDefinition; source: ServiceSource }> {
  const candidates = reachable(scope).filter((s) => name.startsWith(`${s.id}_`));
  for (const source of candidates.sort((a, b) => b.id.length - a.id.length)) {
    const service = await loadService(source, process.cwd(), { tools: true });
    const tool = service.tools.find((t) => t.name === name);
    if (tool) return { tool, source };
    const names = service.tools.map((t) => t.name);
    throw new UsageError(`unknown tool "${name}"; ${source.id} has ${names.join(", ") || "no tool steps"}`);
  }
  throw new UsageError(
    `unknown tool "${name}": tool names start with their service (${describeServices(scope)}); ` +
      "see stepforge tools list",
  );
}
