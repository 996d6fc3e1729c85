/**
 * The dynamic meta-tools hold to the input schemas they declare (only their fields, a service from
 * the list, a numeric limit); search summaries are whole first sentences; and with one account a
 * `stepforge_connection` field is an unknown field like any other (only listed, and handled, with several).
 * In process: nothing here reaches a service.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { Accounts, StepforgeMcp } from "../../runtime/mcp/index.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { json } from "./helpers.js";

type ToolError = { kind: string; message: string; fields: Array<{ path: string; message: string }> };

let catalogs: ServiceCatalog[];
beforeAll(async () => {
  catalogs = await loadCatalogs();
});

describe("dynamic meta-tools check their declared schemas", () => {
  const dynamic = () => new StepforgeMcp({ catalogs, accounts: new Accounts([]), dynamic: true });

  it("search_steps refuses a service that is not served, naming the services", async () => {
    const result = await dynamic().callTool("search_steps", { query: "card", service: "nope" });
    expect(result.isError).toBe(true);
    expect(json<ToolError>(result)).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "service", message: expect.stringMatching(/"trello".*"worldnews"/) }],
    });
  });

  it("search_steps refuses a limit given as a string, and fields it does not declare", async () => {
    const limit = await dynamic().callTool("search_steps", { query: "card", limit: "5" });
    expect(json<ToolError>(limit)).toMatchObject({ kind: "invalid_input", fields: [{ path: "limit" }] });
    const extra = await dynamic().callTool("search_steps", { query: "card", services: ["trello"] });
    expect(json<ToolError>(extra)).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "services", message: expect.stringMatching(/query, service, limit/) }],
    });
  });

  it("describe_step, call_step and continue_result refuse undeclared fields", async () => {
    const mcp = dynamic();
    for (const [tool, args, field] of [
      ["describe_step", { name: "trello_get_card", verbose: true }, "verbose"],
      ["call_step", { name: "trello_get_card", input: {}, connection: "x" }, "connection"],
      ["continue_result", { cursor: "c", offset: 3 }, "offset"],
    ] as const) {
      const result = await mcp.callTool(tool, args);
      expect(result.isError, tool).toBe(true);
      expect(json<ToolError>(result).fields[0]!.path, tool).toBe(field);
    }
  });

  it("summaries do not end at an abbreviation such as e.g.", async () => {
    const found = json<{ steps: Array<{ name: string; summary: string }> }>(
      await dynamic().callTool("search_steps", { query: "list cards", service: "trello" }),
    );
    const step = found.steps.find((s) => s.name === "trello_get_list_cards")!;
    expect(step.summary).toMatch(
      /^List the cards in one list, e\.g\. to see what is in "To Do"; find list ids with trello_get_board_lists\.$/,
    );
  });
});

describe("stepforge_connection with one account", () => {
  it("is an unknown field, not silently stripped", async () => {
    const accounts = new Accounts([
      ["trello", [{ name: "only", context: { connection: { name: "only", fields: {} } } }]],
    ]);
    const mcp = new StepforgeMcp({ catalogs: catalogs.filter((c) => c.id === "trello"), accounts });
    const result = await mcp.callTool("trello_get_card", {
      id: "6123a9f0c4b5d6e7f8091a2b",
      stepforge_connection: "bogus",
    });
    expect(result.isError).toBe(true);
    expect(json<ToolError>(result)).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "stepforge_connection", message: expect.stringMatching(/not a field of this step/) }],
    });
  });
});
