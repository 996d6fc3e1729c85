/**
 * `stepforge mcp` as a real process over stdio, driven by the official SDK client: the default
 * listing (every step, within the context budget), calls against the in-process mocks (`--mock`),
 * bad input as `isError` results that name the field, toolsets, and the dynamic meta-tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CARD } from "../mock/helpers.js";
import { json, listedToolProblems, stdioClient, type Connected } from "./helpers.js";

const LIST_BUDGET = 120_000;
const DYNAMIC_BUDGET = 8_000;

describe("stepforge mcp --mock over stdio (default listing)", () => {
  let c: Connected;
  beforeAll(async () => {
    c = await stdioClient(["--mock"]);
  });
  afterAll(async () => c?.close());

  it("lists every step of the four services within 120,000 bytes, each portable to every provider", async () => {
    const { tools } = await c.client.listTools();
    const steps = tools.filter((t) => t.name !== "continue_result");
    expect(steps.length).toBe(80);
    expect(new Set(steps.map((t) => t.name.split("_")[0]))).toEqual(
      new Set(["trello", "marketo", "worldnews", "contentsnare"]),
    );
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThanOrEqual(LIST_BUDGET);
    expect(tools.flatMap(listedToolProblems)).toEqual([]);
    // Descriptions stay useful: every step says what it does in a sentence or more.
    for (const t of steps) expect(t.description!.length, t.name).toBeGreaterThan(40);
    // No output schemas (they were 90% of the bytes); hints where they differ from the defaults.
    expect(tools.some((t) => "outputSchema" in t && t.outputSchema)).toBe(false);
    expect(tools.find((t) => t.name === "trello_get_card")!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === "trello_delete_card")!.annotations?.readOnlyHint).toBeUndefined();
    // One account per service: no connection field.
    expect(tools.some((t) => "stepforge_connection" in ((t.inputSchema.properties as object) ?? {}))).toBe(false);
  });

  it("calls a step through the runtime against the mock and returns its JSON", async () => {
    const result = await c.client.callTool({ name: "trello_get_card", arguments: { id: CARD } });
    expect(result.isError).toBeFalsy();
    expect(json(result)).toMatchObject({ id: CARD });
    const news = await c.client.callTool({ name: "worldnews_search_news", arguments: { text: "tesla", number: 2 } });
    expect(news.isError).toBeFalsy();
    expect(json(news)).toHaveProperty("news");
    // The OAuth services through their mocks' credentials: Marketo's token fetch, Content Snare's bearer token.
    const lists = await c.client.callTool({ name: "marketo_get_lists", arguments: {} });
    expect(lists.isError).toBeFalsy();
    expect(json(lists)).toMatchObject({ success: true });
    const me = await c.client.callTool({ name: "contentsnare_get_me", arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(json(me)).toHaveProperty("full_name");
  });

  it("reports bad input as an isError result naming the field and the fix", async () => {
    const wrongType = await c.client.callTool({ name: "trello_get_card", arguments: { id: 5 } });
    expect(wrongType.isError).toBe(true);
    const error = json<{ kind: string; fields: Array<{ path: string; message: string }>; message: string }>(wrongType);
    expect(error.kind).toBe("invalid_input");
    expect(error.fields[0]).toMatchObject({ path: "id", message: "must be string, not number" });

    const unknownField = json<{ fields: Array<{ path: string; message: string }> }>(
      await c.client.callTool({ name: "trello_create_card", arguments: { idList: CARD, nme: "x" } }),
    );
    expect(unknownField.fields.map((f) => f.path)).toContain("nme");

    const dots = await c.client.callTool({ name: "trello_get_member", arguments: { id: ".." } });
    expect(dots.isError).toBe(true);
    expect(json<{ kind: string; fields: Array<{ path: string }> }>(dots)).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "id" }],
    });

    const unknown = await c.client.callTool({ name: "trello_make_coffee", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(json<{ kind: string; message: string }>(unknown)).toMatchObject({
      kind: "unknown_tool",
      message: expect.stringMatching(/no step named "trello_make_coffee".*trello_create_card/),
    });
  });
});

describe("stepforge mcp over stdio: toolsets and dynamic mode", () => {
  it("serves only the toolsets asked for (cards:read of Trello, news of World News)", async () => {
    const c = await stdioClient([
      "--mock",
      "--service",
      "trello",
      "--service",
      "worldnews",
      "--toolsets",
      "cards:read,worldnews.news",
    ]);
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(
        [
          "continue_result",
          "trello_get_card",
          "trello_get_card_actions",
          "trello_get_list_cards",
          "worldnews_extract_news",
          "worldnews_retrieve_news",
          "worldnews_search_news",
          "worldnews_top_news",
        ].sort(),
      );
      const write = await c.client.callTool({ name: "trello_create_card", arguments: { idList: CARD, name: "x" } });
      expect(write.isError).toBe(true);
      expect(json<{ message: string }>(write).message).toMatch(/no step named "trello_create_card"/);
    } finally {
      await c.close();
    }
  });

  it("offers four meta-tools under 8,000 bytes: search, describe and call a step", async () => {
    const c = await stdioClient(["--mock", "--dynamic"]);
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["search_steps", "describe_step", "call_step", "continue_result"]);
      expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(DYNAMIC_BUDGET);
      expect(tools.flatMap(listedToolProblems)).toEqual([]);

      const found = json<{ steps: Array<{ name: string }> }>(
        await c.client.callTool({ name: "search_steps", arguments: { query: "create a card" } }),
      );
      expect(found.steps[0]!.name).toBe("trello_create_card");
      const news = json<{ steps: Array<{ name: string }> }>(
        await c.client.callTool({
          name: "search_steps",
          arguments: { query: "news articles", service: "worldnews", limit: 3 },
        }),
      );
      expect(news.steps.length).toBe(3);
      expect(news.steps.every((s) => s.name.startsWith("worldnews_"))).toBe(true);

      const described = json<{
        inputSchema: { properties: Record<string, unknown>; required: string[] };
        result: unknown;
        checkAfterLostAnswer?: string;
      }>(await c.client.callTool({ name: "describe_step", arguments: { name: "trello_create_card" } }));
      expect(described.inputSchema.required).toContain("idList");
      expect(described.checkAfterLostAnswer).toBe("trello_get_list_cards");
      expect(described.result).toMatchObject({ type: "object" });

      const called = await c.client.callTool({
        name: "call_step",
        arguments: { name: "trello_get_card", input: { id: CARD } },
      });
      expect(called.isError).toBeFalsy();
      expect(json(called)).toMatchObject({ id: CARD });
      const bad = await c.client.callTool({
        name: "call_step",
        arguments: { name: "trello_get_card", input: { id: "." } },
      });
      expect(bad.isError).toBe(true);
      expect(json<{ fields: Array<{ path: string }> }>(bad).fields[0]!.path).toBe("id");
      const missing = await c.client.callTool({ name: "call_step", arguments: { input: {} } });
      expect(json<{ fields: Array<{ path: string }> }>(missing).fields[0]!.path).toBe("name");
    } finally {
      await c.close();
    }
  });
});
