/**
 * The stepforge command line. Each command lives in cli/commands/; this file only dispatches and
 * maps failures to exit codes: 0 success, 1 the command failed (bad spec, stale output, lint
 * errors), 2 the command was called wrongly.
 */
import { formatDiagnostic, SpecError } from "../generator/diagnostics.js";
import { authCommand } from "./commands/auth.js";
import { callCommand } from "./commands/call.js";
import { generateCommand } from "./commands/generate.js";
import { lintCommand } from "./commands/lint.js";
import { triggersCommand } from "./commands/triggers.js";
import { webhookCommand } from "./commands/webhook.js";
import { toolsCommand } from "./commands/tools.js";
import { mockCommand } from "./commands/mock.js";
import { USAGE, UsageError } from "./usage.js";

type Command = (argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  generate: generateCommand,
  lint: lintCommand,
  triggers: triggersCommand,
  webhook: webhookCommand,
  tools: toolsCommand,
  call: callCommand,
  mock: mockCommand,
  auth: authCommand,
};

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? err : out).write(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    err.write(`stepforge: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest, out, err);
  } catch (error) {
    if (error instanceof SpecError) {
      for (const d of error.diagnostics) err.write(`${formatDiagnostic(d)}\n`);
      err.write(`stepforge ${name}: ${error.diagnostics.length} problem${error.diagnostics.length === 1 ? "" : "s"} in the spec; nothing was written\n`);
      return 1;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      err.write(`stepforge ${name}: ${(error as Error).message}\n${USAGE}`);
      return 2;
    }
    err.write(`stepforge ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}
