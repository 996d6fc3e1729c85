/**
 * Direct tools with `outputSchemas` (MCP 2025-11-25): steps whose result is an object list an
 * output schema, and their results carry `structuredContent`. The SDK client itself checks every
 * structured result against the listed schema (and refuses a result without one), so each call
 * here is also the protocol's own conformance check, cut results included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockAccounts } from "../../runtime/mcp/index.js";
import { json, mockAccounts, serve, type Served } from "./helpers.js";

let mocks: MockAccounts;
beforeAll(async () => {
  mocks = await mockAccounts(["trello", "worldnews"]);
});
afterAll(async () => {
  await mocks?.close();
});

describe("output schemas and structured content", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve("direct", mocks.accounts, { outputSchemas: true, resultBytes: 2_000 });
  });
  afterAll(async () => served?.close());

  it("lists an object output schema for each step whose result is an object", async () => {
    const { tools } = await served.client.listTools();
    const card = tools.find((t) => t.name === "trello_get_card")!;
    expect(card.outputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" } },
    });
    expect(JSON.stringify(card.outputSchema)).not.toMatch(/"required"|"description"/);
    const withSchema = tools.filter((t) => t.outputSchema);
    expect(withSchema.length).toBeGreaterThan(30);
    expect(tools.find((t) => t.name === "continue_result")!.outputSchema).toBeUndefined();
  });

  it("returns the data as structuredContent too, validated by the SDK client", async () => {
    const news = await served.client.callTool({ name: "worldnews_search_news", arguments: { text: "electric" } });
    expect(news.isError).toBeFalsy();
    expect(news.structuredContent).toEqual(json(news));
    expect(json<{ news: unknown[] }>(news).news.length).toBeGreaterThan(0);
  });

  it("keeps a cut result valid against its schema (records cut, a note beside)", async () => {
    const found = await served.client.callTool({
      name: "trello_get_board_cards",
      arguments: { id: "60d5ecb74e2a1b3c4d5e6f70" },
    });
    expect(found.isError).toBeFalsy();
    expect((found.content as Array<{ text: string }>)[1]!.text).toMatch(/^Result cut to stay under 2000 bytes/);
    expect(found.structuredContent).toEqual(json(found));
  });

  it("is off by default: no output schema listed, no structured content", async () => {
    const plain = await serve("direct", mocks.accounts);
    try {
      const { tools } = await plain.client.listTools();
      expect(tools.some((t) => t.outputSchema)).toBe(false);
      const boards = await plain.client.callTool({ name: "trello_get_boards", arguments: {} });
      expect(boards.structuredContent).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
