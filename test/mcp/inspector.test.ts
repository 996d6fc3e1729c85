/**
 * A client nobody here wrote: the MCP Inspector's CLI mode (`@modelcontextprotocol/inspector`,
 * pinned as a dev dependency) starts `stepforge mcp --mock` itself over stdio, lists its tools and
 * calls one.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR_CLI = join(
  dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
  "index.js",
);

async function inspector(...args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR_CLI, process.execPath, BIN, "mcp", "--mock", "--service", "worldnews", "--service", "trello", ...args],
    { timeout: 60_000, maxBuffer: 16 * 2 ** 20 },
  );
  return JSON.parse(stdout);
}

describe("the MCP Inspector CLI against stepforge mcp --mock", () => {
  it("lists the tools", { timeout: 90_000 }, async () => {
    const listed = (await inspector("--method", "tools/list")) as {
      tools: Array<{ name: string; inputSchema: { type: string } }>;
    };
    const names = listed.tools.map((t) => t.name);
    expect(names).toContain("trello_create_card");
    expect(names).toContain("worldnews_search_news");
    expect(names).toContain("continue_result");
    expect(listed.tools.every((t) => t.inputSchema.type === "object")).toBe(true);
  });

  it("calls a tool and gets its result, and a bad argument as an isError result", { timeout: 90_000 }, async () => {
    const called = (await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "worldnews_get_geo_coordinates",
      "--tool-arg",
      "location=Berlin",
    )) as { content: Array<{ text: string }>; isError?: boolean };
    expect(called.isError).toBeFalsy();
    expect(JSON.parse(called.content[0]!.text)).toHaveProperty("latitude");
    const bad = (await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "trello_get_member",
      "--tool-arg",
      "id=..",
    )) as { content: Array<{ text: string }>; isError?: boolean };
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.content[0]!.text)).toMatchObject({ kind: "invalid_input", fields: [{ path: "id" }] });
  });
});
