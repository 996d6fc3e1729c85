/**
 * `stepforge mcp --print-config claude|cursor|vscode [mcp flags]`: the server entry for an MCP
 * client's config file. A client starts the server from a directory of its own choosing (Claude
 * Desktop from its application folder), where `npx stepforge` finds no project and no install
 * (npm answers 404 and the client reports "Connection closed"). So the entry names everything by
 * absolute path: this Node binary, this copy's bin/stepforge.js, the project (`--project DIR`),
 * spec and connections files. Nothing depends on the client's working directory or PATH.
 *
 * The other flags given are passed on; a connections file goes into `env` as STEPFORGE_CONNECTIONS
 * (the file's path only, never its content).
 */
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { packageRoot } from "../generator/package-root.js";
import { findConfig } from "./config/load.js";
import { UsageError } from "./usage.js";

export const MCP_CLIENTS = ["claude", "cursor", "vscode"] as const;

/** Where each client keeps the entry, for the note printed with it. */
const WHERE: Record<(typeof MCP_CLIENTS)[number], string> = {
  claude: "Claude Desktop: claude_desktop_config.json, under mcpServers",
  cursor: "Cursor: .cursor/mcp.json (or ~/.cursor/mcp.json), under mcpServers",
  vscode: "VS Code: .vscode/mcp.json, under servers",
};

/** Flags whose value is a path, made absolute so the client's directory does not matter. */
const PATH_FLAGS = new Set(["--spec", "--project", "--connections"]);

export async function printConfig(
  client: string,
  argv: readonly string[],
  options: ParseArgsConfig["options"],
): Promise<string> {
  if (!(MCP_CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`--print-config must be one of ${MCP_CLIENTS.join(", ")}, got "${client}"`);
  }
  const args = serverArgs(argv, options);
  const env: Record<string, string> = {};
  const at = args.indexOf("--connections");
  if (at >= 0) {
    env.STEPFORGE_CONNECTIONS = args[at + 1]!;
    args.splice(at, 2);
  } else if (process.env.STEPFORGE_CONNECTIONS) {
    env.STEPFORGE_CONNECTIONS = resolve(process.env.STEPFORGE_CONNECTIONS);
  }
  // The project in this folder, named explicitly (the client starts the server elsewhere).
  if (!args.includes("--project") && !args.includes("--spec") && findConfig(process.cwd()))
    args.push("--project", process.cwd());
  const server = {
    ...(client === "vscode" ? { type: "stdio" } : {}),
    command: process.execPath,
    args: [join(packageRoot(), "bin", "stepforge.js"), "mcp", ...args],
    ...(Object.keys(env).length ? { env } : {}),
  };
  const entry = client === "vscode" ? { servers: { stepforge: server } } : { mcpServers: { stepforge: server } };
  return `${JSON.stringify(entry, null, 2)}\n`;
}

/** The note for stderr: where the entry goes. */
export function configNote(client: string): string {
  return WHERE[client as (typeof MCP_CLIENTS)[number]] ?? "";
}

/** The mcp flags given, without --print-config, with path values made absolute. */
function serverArgs(argv: readonly string[], options: ParseArgsConfig["options"]): string[] {
  // Validated by the caller's strict parse; tokens keep the order and the repeats as given.
  const { tokens } = parseArgs({ args: [...argv], options, strict: true, tokens: true, allowPositionals: false });
  const args: string[] = [];
  for (const token of tokens as Array<{ kind: string; name?: string; value?: string }>) {
    if (token.kind !== "option" || token.name === undefined || token.name === "print-config") continue;
    const flag = `--${token.name}`;
    if (token.value === undefined) args.push(flag);
    else args.push(flag, PATH_FLAGS.has(flag) ? resolve(token.value) : token.value);
  }
  return args;
}
