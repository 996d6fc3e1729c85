/**
 * Tool steps against Prism (the contract mock served from the spec itself), on 127.0.0.1: a step
 * gets the spec's example back, and a request Prism finds invalid comes back as a step error.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import { startPrism } from "../../runtime/mock/prism.js";
import { executeTool, type ToolDefinition } from "../../runtime/tools/index.js";
import { tools as trello } from "../../generated/trello/tools.js";
import { tools as worldnews } from "../../generated/worldnews/tools.js";
import { connections, fastRetry } from "./helpers.js";
import { freePort } from "../helpers/ports.js";

const tool = (list: readonly ToolDefinition[], name: string) => list.find((t) => t.name === name)!;

describe.each([
  ["trello", trello],
  ["worldnews", worldnews],
] as const)("%s steps against Prism", (service, list) => {
  let prism: Awaited<ReturnType<typeof startPrism>>;
  beforeAll(async () => {
    prism = await startPrism({
      specFile: join(import.meta.dirname, "../../specs", `${service}.yaml`),
      port: await freePort(),
    });
  });
  afterAll(() => prism?.close());

  const run = (name: string, input: unknown) =>
    executeTool(tool(list, name), input, {
      connection: connections[service]!,
      baseUrl: prism.url,
      retry: fastRetry,
      shared: createSharedState(),
    });

  if (service === "trello") {
    it("trello_get_card returns the spec's card", async () => {
      const result = await run("trello_get_card", { id: "6123a9f0c4b5d6e7f8091a2b" });
      expect(result).toMatchObject({ ok: true, data: { id: expect.any(String) } });
    });
    it("trello_create_card creates", async () => {
      const result = await run("trello_create_card", { idList: "60d5ecb74e2a1b3c4d5e6f71", name: "From a test" });
      expect(result.ok).toBe(true);
    });
    it("trello_get_list_cards lists as { items }", async () => {
      const result = await run("trello_get_list_cards", { id: "60d5ecb74e2a1b3c4d5e6f71" });
      expect(result).toMatchObject({ ok: true, data: { items: expect.any(Array) } });
    });
    it("an API Call to a path the spec does not have is a not_found step error", async () => {
      const result = await run("trello_api_call", { method: "GET", endpoint: "/1/no-such-thing" });
      expect(result).toMatchObject({ ok: false, error: { kind: "not_found", status: 404 } });
    });
    it("an API Call with a body the spec refuses is a validation step error", async () => {
      const result = await run("trello_api_call", { method: "POST", endpoint: "/1/cards", body: { name: "no list" } });
      expect(result).toMatchObject({ ok: false, error: { kind: "validation" } });
    });
  } else {
    it("worldnews_search_news returns the spec's example", async () => {
      const result = await run("worldnews_search_news", { text: "tesla", language: "en" });
      expect(result).toMatchObject({ ok: true, data: { news: expect.any(Array) } });
    });
    it("worldnews_get_geo_coordinates answers", async () => {
      const result = await run("worldnews_get_geo_coordinates", { location: "Tokyo, Japan" });
      expect(result).toMatchObject({ ok: true, data: { latitude: expect.any(Number), longitude: expect.any(Number) } });
    });
  }
});
