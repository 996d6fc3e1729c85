/**
 * MCP clients for the tests: the official SDK's client over stdio (a real `stepforge mcp`
 * process, the compiled CLI) and over Streamable HTTP, and readers for tool results.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { packageRoot } from "../../generator/package-root.js";

export const BIN = join(packageRoot(), "bin", "stepforge.js");

/** The text blocks of a tools/call result. */
export function texts(result: object): string[] {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.filter((c) => c.type === "text").map((c) => c.text ?? "");
}

/** The first text block parsed as JSON (a step's data, or its error object). */
export function json<T = Record<string, unknown>>(result: object): T {
  return JSON.parse(texts(result)[0]!) as T;
}

export interface Connected {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** `stepforge mcp ARGS` over stdio, driven by the SDK client. */
export async function stdioClient(args: string[], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), ...env },
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const client = new Client({ name: "stepforge-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** The SDK client over Streamable HTTP. */
export async function httpClient(url: string, token?: string): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
  );
  const client = new Client({ name: "stepforge-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => "", close: () => client.close() };
}

/** `stepforge mcp --http 0 ARGS` as a process; resolves with its address once it listens. */
export async function httpProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; stderr: () => string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const found = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (found) resolve(found[1]!);
    });
    child.once("exit", (code) => reject(new Error(`stepforge mcp exited ${code}: ${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Violations of what every provider accepts in a listed tool (names, object root, no refs). */
export function listedToolProblems(tool: { name: string; inputSchema: unknown; description?: string }): string[] {
  const out: string[] = [];
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) out.push(`${tool.name}: name`);
  if (!tool.description) out.push(`${tool.name}: no description`);
  const schema = tool.inputSchema as Record<string, unknown>;
  if (schema?.type !== "object") out.push(`${tool.name}: inputSchema root is not an object`);
  for (const k of ["anyOf", "oneOf", "allOf"]) if (schema && k in schema) out.push(`${tool.name}: top-level ${k}`);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    for (const k of ["$ref", "$schema", "$defs", "default", "nullable"]) if (k in node) out.push(`${tool.name}: ${k}`);
    for (const [k, v] of Object.entries(node)) {
      if (k === "properties" && v && typeof v === "object") Object.values(v).forEach(walk);
      else if (k !== "enum" && k !== "required") walk(v);
    }
  };
  walk(schema);
  return out;
}
