/**
 * A client nobody here wrote: the MCP Inspector's CLI mode (`@modelcontextprotocol/inspector`,
 * pinned as a dev dependency) starts `stepforge mcp --mock` itself over stdio, lists its tools and
 * calls one.
 */
import { describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";
import { inspector as runInspector, toolCall } from "./inspector-cli.js";

type Called = { content: Array<{ text: string }>; isError?: boolean };

/** One request to a `stepforge mcp --mock` the Inspector starts over stdio. */
const inspector = (...args: string[]): Promise<unknown> =>
  runInspector([process.execPath, BIN, "mcp", "--mock", "--service", "worldnews", "--service", "trello"], args, 60_000);

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
    const called = (await inspector(...toolCall("worldnews_get_geo_coordinates", "location=Berlin"))) as Called;
    expect(called.isError).toBeFalsy();
    expect(JSON.parse(called.content[0]!.text)).toHaveProperty("latitude");
    const bad = (await inspector(...toolCall("trello_get_member", "id=.."))) as Called;
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.content[0]!.text)).toMatchObject({ kind: "invalid_input", fields: [{ path: "id" }] });
  });
});
