/**
 * The stepforge command line. Each command lives in cli/commands/; this file only dispatches and
 * maps failures to exit codes: 0 success, 1 the command failed (bad spec, stale output, lint
 * errors), 2 the command was called wrongly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatDiagnostic, SpecError } from "../generator/diagnostics.js";
import { packageRoot } from "../generator/package-root.js";
import { requirePackages } from "../runtime/internal/package-bin.js";
import type { Command } from "./command.js";
import { COMMAND_HELP, commandHelp, overview, usage, usageOf, UsageError } from "./usage.js";
import { COMMAND_PACKAGES } from "./command-packages.js";

/**
 * Commands load on demand: `generate` and `lint` must never import generated/, or a stale or
 * broken generated file would stop the one command that repairs it.
 * A new command is one loader here plus one entry in COMMAND_HELP (cli/usage.ts) for its help;
 * test/cli/help.test.ts fails when the two lists differ.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  init: async () => (await import("./commands/init.js")).initCommand,
  generate: async () => (await import("./commands/generate.js")).generateCommand,
  diff: async () => (await import("./commands/diff.js")).diffCommand,
  migrate: async () => (await import("./commands/migrate.js")).migrateCommand,
  lint: async () => (await import("./commands/lint.js")).lintCommand,
  triggers: async () => (await import("./commands/triggers.js")).triggersCommand,
  webhook: async () => (await import("./commands/webhook.js")).webhookCommand,
  tools: async () => (await import("./commands/tools.js")).toolsCommand,
  call: async () => (await import("./commands/call.js")).callCommand,
  mock: async () => (await import("./commands/mock.js")).mockCommand,
  mcp: async () => {
    // The MCP SDK is an optional peer: without it, one sentence with the install command.
    requirePackages("an MCP server", COMMAND_PACKAGES.mcp.packages, COMMAND_PACKAGES.mcp.dependency);
    return (await import("./commands/mcp.js")).mcpCommand;
  },
  auth: async () => (await import("./commands/auth.js")).authCommand,
  proxy: async () => (await import("./commands/proxy.js")).proxyCommand,
  log: async () => (await import("./commands/log.js")).logCommand,
};

export const COMMAND_NAMES = (): string[] => Object.keys(COMMANDS);

const isHelpFlag = (arg: string) => arg === "--help" || arg === "-h";

function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

export async function main(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    err.write(overview());
    return 2;
  }
  if (isHelpFlag(name)) {
    out.write(overview());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    out.write(`${version()}\n`);
    return 0;
  }
  if (name === "help") {
    if (rest.length === 0) {
      out.write(overview());
      return 0;
    }
    const text = commandHelp(rest[0]!);
    if (text === undefined || rest.length > 1) {
      err.write(
        `stepforge help: ${text === undefined ? `unknown command "${rest[0]}"` : "name one command"}\n${usage()}`,
      );
      return 2;
    }
    out.write(text);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    err.write(`stepforge: unknown command "${name}" (stepforge --help lists the commands)\n${usage()}`);
    return 2;
  }
  // `stepforge COMMAND --help` (anywhere among its arguments, e.g. `tools list --help`).
  if (rest.some(isHelpFlag) && COMMAND_HELP[name]) {
    out.write(commandHelp(name)!);
    return 0;
  }
  try {
    const command = await load();
    return await command(rest, out, err);
  } catch (error) {
    if (error instanceof SpecError) {
      for (const d of error.diagnostics) err.write(`${formatDiagnostic(d)}\n`);
      err.write(
        `stepforge ${name}: ${error.diagnostics.length} problem${error.diagnostics.length === 1 ? "" : "s"} ` +
          `in the spec; nothing was written\n`,
      );
      return 1;
    }
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || code?.startsWith("ERR_PARSE_ARGS")) {
      // parseArgs quotes a stray argument, which may be a secret given without its flag (--secret).
      const message =
        code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"
          ? "unexpected argument without a --flag before it; this command takes only --flag value options"
          : (error as Error).message;
      err.write(`stepforge ${name}: ${message}\n${usageOf(name)}`);
      return 2;
    }
    err.write(`stepforge ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}
