/**
 * The stepforge command line. Each command lives in cli/commands/; this file only dispatches and
 * maps failures to exit codes: 0 success, 1 the command failed (bad spec, stale output, lint
 * errors), 2 the command was called wrongly.
 */
import { formatDiagnostic, SpecError } from "../generator/diagnostics.js";
import { USAGE, UsageError } from "./usage.js";

type Command = (argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) => Promise<number>;

/**
 * Commands load on demand: `generate` and `lint` must never import generated/, or a stale or
 * broken generated file would stop the one command that repairs it.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  generate: async () => (await import("./commands/generate.js")).generateCommand,
  lint: async () => (await import("./commands/lint.js")).lintCommand,
  triggers: async () => (await import("./commands/triggers.js")).triggersCommand,
  webhook: async () => (await import("./commands/webhook.js")).webhookCommand,
  tools: async () => (await import("./commands/tools.js")).toolsCommand,
  call: async () => (await import("./commands/call.js")).callCommand,
  mock: async () => (await import("./commands/mock.js")).mockCommand,
  mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
  auth: async () => (await import("./commands/auth.js")).authCommand,
};

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? err : out).write(USAGE);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    err.write(`stepforge: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  try {
    const command = await load();
    return await command(rest, out, err);
  } catch (error) {
    if (error instanceof SpecError) {
      for (const d of error.diagnostics) err.write(`${formatDiagnostic(d)}\n`);
      err.write(`stepforge ${name}: ${error.diagnostics.length} problem${error.diagnostics.length === 1 ? "" : "s"} in the spec; nothing was written\n`);
      return 1;
    }
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || code?.startsWith("ERR_PARSE_ARGS")) {
      // parseArgs quotes a stray argument, which may be a secret given without its flag (--secret).
      const message = code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" ? "unexpected argument without a --flag before it; this command takes only --flag value options" : (error as Error).message;
      err.write(`stepforge ${name}: ${message}\n${USAGE}`);
      return 2;
    }
    err.write(`stepforge ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}
