/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned as a dev dependency): a client
 * nobody here wrote, for the MCP and code-mode tests.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR_CLI = join(
  dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
  "index.js",
);

/**
 * The Inspector's JSON answer to one request (`args`) to `target`: a server command it starts over
 * stdio, or a URL with `--transport http`.
 */
export async function inspector(target: string[], args: string[], timeoutMs: number): Promise<unknown> {
  const { stdout } = await run(process.execPath, [INSPECTOR_CLI, ...target, ...args], {
    timeout: timeoutMs,
    maxBuffer: 16 * 2 ** 20,
  });
  return JSON.parse(stdout);
}

/** The Inspector's arguments for a tools/call of `tool` with one argument (`name=value`). */
export function toolCall(tool: string, arg: string): string[] {
  return ["--method", "tools/call", "--tool-name", tool, "--tool-arg", arg];
}
