/**
 * `stepforge mcp [--service S]... [--toolsets T,…] [--read-only] [--dynamic] [--mock]
 *                [--connections FILE] [--base-url SERVICE=URL]... [--all-services] [--result-bytes N]
 *                [--max-limit-wait-ms N] [--http PORT [--host H]] [--budget]
 *                [--spec FILE]... [--project DIR] [--print-config claude|cursor|vscode]
 *                [--client NAME] [--max-tools N] [--max-listing-bytes N] (these three: mcp-budget.ts)
 *                [--code] [--output-schemas]`
 *
 * It serves the services in scope (the project's, the --spec files', else the bundled ones;
 * --service picks among them and the bundled ones). A service without an account in the
 * connections file is left out, with one line on stderr saying how to add one, unless
 * --all-services. --print-config prints the server entry for an MCP client's config, with
 * absolute paths, so the client can start it from any directory (cli/mcp-config.ts).
 *
 * Serves the tool steps to an MCP client over stdio (default) or Streamable HTTP (`--http PORT`,
 * on 127.0.0.1 unless `--host` says otherwise; beyond loopback the bearer token in
 * $STEPFORGE_MCP_TOKEN is required, and it is checked on loopback too when set). Accounts come
 * from the connections file (`--connections` or $STEPFORGE_CONNECTIONS), or with `--mock` from the
 * services' behavioural mocks started in this process. `--budget` prints what `tools/list` costs
 * (bytes and about tokens, per service, default and dynamic) and exits. `--code` serves code mode's
 * two tools, search and execute (cli/commands/code.ts, runtime/code); `--output-schemas` lists each
 * step's result shape and returns structuredContent.
 *
 * stdout carries the protocol in stdio mode; everything else goes to stderr.
 */
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createSharedState } from "../../runtime/state/index.js";
import { Accounts, AccountsError, accountsFromFile, type Account } from "../../runtime/mcp/accounts.js";
import { SelectionError, type Selection, type ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { isLoopbackHost } from "../../runtime/internal/loopback.js";
import { serveMcpHttp } from "../../runtime/mcp/http.js";
import { startMockAccounts } from "../../runtime/mcp/mock-accounts.js";
import { StepforgeMcp } from "../../runtime/mcp/server.js";
import { callLogConfigFromEnv } from "../../runtime/observe/call-log.js";
import { BUDGET_FLAGS, budgetOptions } from "./mcp-budget.js";
import { flagsOf, numberFlag, PORT, SCOPE_OPTIONS } from "../flags.js";
import { configNote, printConfig } from "../mcp-config.js";
import { pickService, resolveScope } from "../project.js";
import { loadMockDefinition } from "../services.js";
import { UsageError } from "../usage.js";
import { scopeCatalogs } from "./tools.js";
import { stopRequested } from "./stop-signal.js";
import type { ServingCommand } from "../command.js";

const VERSION = "0.1.0";

/** About four bytes of JSON per token (the figure the issue and most tokenizers' averages use). */
export const bytesToTokens = (bytes: number): number => Math.round(bytes / 4);

/** Bytes of the `tools/list` answer a server built with these options gives. */
export function listingBytes(catalogs: ServiceCatalog[], selection: Selection, dynamic: boolean): number {
  const mcp = new StepforgeMcp({ catalogs, selection, accounts: new Accounts([]), dynamic, budget: false });
  return Buffer.byteLength(JSON.stringify({ tools: mcp.listTools() }));
}

function budgetReport(catalogs: ServiceCatalog[], selection: Selection): string {
  const services = selection.services?.length ? selection.services : catalogs.map((c) => c.id);
  const rows: string[][] = [["service", "steps", "default bytes", "~tokens", "dynamic bytes", "~tokens"]];
  const row = (label: string, sel: Selection) => {
    const steps = new StepforgeMcp({ catalogs, selection: sel, accounts: new Accounts([]) }).served.length;
    const d = listingBytes(catalogs, sel, false);
    const y = listingBytes(catalogs, sel, true);
    rows.push([label, String(steps), String(d), String(bytesToTokens(d)), String(y), String(bytesToTokens(y))]);
  };
  for (const s of services) row(s, { ...selection, services: [s] });
  if (services.length > 1) row("all", selection);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n") +
    "\n"
  );
}

function parseBaseUrls(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const match = /^([a-z][a-z0-9]*)=(.+)$/.exec(value);
    if (!match)
      throw new UsageError(`--base-url takes SERVICE=URL (e.g. trello=http://127.0.0.1:4110), got "${value}"`);
    try {
      const u = new URL(match[2]!);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
    } catch {
      throw new UsageError(`--base-url ${match[1]}= must be an http(s) address, e.g. http://127.0.0.1:4110`);
    }
    out[match[1]!] = match[2]!.replace(/\/+$/, "");
  }
  return out;
}

const MCP_OPTIONS = {
  service: { type: "string", multiple: true },
  toolsets: { type: "string" },
  "read-only": { type: "boolean", default: false },
  dynamic: { type: "boolean", default: false },
  mock: { type: "boolean", default: false },
  connections: { type: "string" },
  "base-url": { type: "string", multiple: true },
  "result-bytes": { type: "string" },
  "max-limit-wait-ms": { type: "string" },
  http: { type: "string" },
  host: { type: "string" },
  budget: { type: "boolean", default: false },
  "all-services": { type: "boolean", default: false },
  "print-config": { type: "string" },
  code: { type: "boolean", default: false },
  "output-schemas": { type: "boolean", default: false },
  ...SCOPE_OPTIONS,
  ...BUDGET_FLAGS,
} as const satisfies ParseArgsConfig["options"];

export const mcpCommand: ServingCommand = async (argv, out, err, until) => {
  const { values } = flagsOf(argv, MCP_OPTIONS);
  if (values["print-config"] !== undefined) {
    out.write(await printConfig(values["print-config"], argv, MCP_OPTIONS));
    err.write(`stepforge mcp: add this to ${configNote(values["print-config"])}\n`);
    return 0;
  }
  const catalogs = await scopeCatalogs({ specs: values.spec, project: values.project, services: values.service });
  const selection: Selection = {
    services: values.service,
    toolsets: values.toolsets
      ?.split(",")
      .map((t) => t.trim())
      .filter(Boolean),
    readOnly: values["read-only"],
  };
  const resultBytes = numberFlag("--result-bytes", values["result-bytes"], {
    what: "a whole number of bytes, at least 2000",
    integer: true,
    min: 2000,
  });
  const maxLimitWaitMs = numberFlag("--max-limit-wait-ms", values["max-limit-wait-ms"], {
    what: "a whole number of milliseconds, 0 or more",
    integer: true,
    min: 0,
  });
  const port = numberFlag("--http", values.http, PORT);
  if (port === undefined && values.host !== undefined) throw new UsageError("--host only applies with --http PORT");
  // Said before the accounts are read: the listening address is the first thing to fix.
  if (
    port !== undefined &&
    values.host !== undefined &&
    !isLoopbackHost(values.host) &&
    !process.env.STEPFORGE_MCP_TOKEN
  ) {
    throw new UsageError(`listening on ${values.host} (beyond loopback) needs a bearer token: set STEPFORGE_MCP_TOKEN`);
  }
  if (values.mock && (values.connections || values["base-url"]))
    throw new UsageError("--mock uses the mocks' own accounts; leave out --connections and --base-url");
  const listing = budgetOptions(values);
  if (values.mock && values["all-services"])
    throw new UsageError("--mock gives every service an account; --all-services is for a connections file");
  if (values.code && values.dynamic)
    throw new UsageError("--code and --dynamic are two ways of offering the services; choose one");

  let served: string[];
  try {
    served = [
      ...new Set(
        new StepforgeMcp({ catalogs, selection, accounts: new Accounts([]) }).served.map((s) => s.definition.service),
      ),
    ];
    if (values.budget) {
      out.write(budgetReport(catalogs, selection));
      return 0;
    }
  } catch (error) {
    if (error instanceof SelectionError) throw new UsageError(error.message);
    throw error;
  }

  try {
    callLogConfigFromEnv(); // STEPFORGE_CALL_LOG: every tool call is logged; a wrong value is named now, not per call
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const shared = createSharedState();
  let accounts: Array<[string, Account[]]> = [];
  let closeMocks = async () => {};
  let servedCatalogs = catalogs;
  if (values.mock) {
    // Each served service's mock, registered so startMockAccounts starts it by id.
    const scope = await resolveScope({ specs: values.spec, project: values.project });
    for (const id of served) await loadMockDefinition(pickService(scope, id));
    const mocks = await startMockAccounts(
      catalogs.filter((c) => served.includes(c.id)),
      shared,
    );
    accounts = mocks.accounts;
    closeMocks = mocks.close;
    for (const m of mocks.mocks) err.write(`stepforge mcp: ${m.service} mock on ${m.url}\n`);
  } else {
    const file = values.connections ?? process.env.STEPFORGE_CONNECTIONS;
    const baseUrls = parseBaseUrls(values["base-url"] ?? []);
    for (const s of Object.keys(baseUrls))
      if (!served.includes(s))
        throw new UsageError(`--base-url names "${s}", which is not served (services: ${served.join(", ")})`);
    if (file) {
      try {
        const descriptors = Object.fromEntries(catalogs.map((c) => [c.id, c.tools[0]!.descriptor]));
        accounts = await accountsFromFile(resolve(file), served, { shared, baseUrls, descriptors });
      } catch (error) {
        if (error instanceof AccountsError) throw new UsageError(error.message);
        throw error;
      }
    }
    const missing = served.filter((s) => !accounts.some(([id, list]) => id === s && list.length > 0));
    const how = file
      ? `add a connection for it to ${file}`
      : "give --connections FILE (or set STEPFORGE_CONNECTIONS), or use --mock";
    if (missing.length && values["all-services"]) {
      err.write(
        `stepforge mcp: no account for ${missing.join(", ")}; their steps are listed ` +
          `(--all-services) but calls fail until one is added (${how})\n`,
      );
    } else if (missing.length) {
      // A step that can only fail costs the model's context and a wasted call: leave its service out.
      err.write(
        `stepforge mcp: left out ${missing.join(", ")} (no account; ${how}, or pass ` +
          `--all-services to list them anyway)\n`,
      );
      servedCatalogs = catalogs.filter((c) => !missing.includes(c.id));
      served = served.filter((s) => !missing.includes(s));
      if (served.length === 0) throw new UsageError(`no service to serve: none has an account (${how})`);
    }
  }

  // Aborted on shutdown: every call still queued behind a limit (which may hold it for minutes) or
  // in flight is cancelled, so the process can end instead of outliving its client.
  const shutdown = new AbortController();
  const servedSelection = {
    ...selection,
    ...(selection.services ? { services: selection.services.filter((s) => served.includes(s)) } : {}),
  };
  let code: Awaited<ReturnType<typeof import("./code.js").startCodeMode>> | undefined;
  let mcp: StepforgeMcp;
  try {
    if (values.code) {
      const options = { resultBytes, maxLimitWaitMs, signal: shutdown.signal };
      const scope = await resolveScope({ specs: values.spec, project: values.project });
      code = await (await import("./code.js")).startCodeMode(
        servedCatalogs,
        servedSelection,
        new Accounts(accounts),
        options,
        (id) => pickService(scope, id),
      );
    }
    mcp = new StepforgeMcp({
      catalogs: servedCatalogs,
      selection: servedSelection,
      accounts: new Accounts(accounts),
      dynamic: values.dynamic,
      resultBytes,
      maxLimitWaitMs,
      version: VERSION,
      signal: shutdown.signal,
      toolSet: code,
      outputSchemas: values["output-schemas"],
      ...listing,
    });
  } catch (error) {
    await closeMocks();
    // A toolset of a service left out (no account) is then not there to select.
    if (error instanceof SelectionError) throw new UsageError(error.message);
    throw error;
  }
  const mode = code ? " (code mode)" : mcp.dynamic ? " (dynamic)" : "";
  if (mcp.notice) err.write(`stepforge mcp: ${mcp.notice}\n`);
  // Runs until SIGINT/SIGTERM (or `until`, for tests), listening only once the server is up.
  try {
    if (port !== undefined) {
      const token = process.env.STEPFORGE_MCP_TOKEN || undefined;
      let http;
      try {
        http = await serveMcpHttp(() => mcp.createServer(), { port, host: values.host, token });
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      err.write(
        `stepforge mcp: ${mcp.served.length} steps of ${served.join(", ")}${mode} on ${http.url}` +
          `${token ? " (bearer token required)" : ""}\n`,
      );
      await stopRequested(until);
      shutdown.abort();
      await http.close();
    } else {
      const transport = new StdioServerTransport(process.stdin, out as Writable);
      const server = mcp.createServer();
      const closed = new Promise<void>((r) => {
        server.onclose = () => r();
        process.stdin.once("end", () => r());
      });
      await server.connect(transport);
      err.write(`stepforge mcp: ${mcp.served.length} steps of ${served.join(", ")}${mode} on stdio\n`);
      // stdin's end is the client gone (a stdio client that died): stop as on a signal.
      await Promise.race([closed, stopRequested(until)]);
      shutdown.abort();
      await server.close();
    }
  } finally {
    await code?.close();
    await closeMocks();
  }
  return 0;
};
