/**
 * A generated step's wire mapping (runtime/tools/define.ts `defineWiredTool`), executed for real: each
 * step sends through the service client to a loopback server that records the request. Field
 * renames, odd wire names (`q_by[]`, `__proto__`), an input field named `constructor`, fixed
 * values, header fields, a whole-value body, an empty object body, and fields the model left out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import {
  defineWiredTool,
  executeTool,
  s,
  type OperationToolDefinition,
  type ToolResult,
} from "../../runtime/tools/index.js";
import { descriptor } from "../../generated/trello/descriptor.js";
import { connections, fastRetry, json, loopback, type Loopback, type Received } from "./helpers.js";

let server: Loopback;
beforeAll(async () => {
  server = await loopback((req, res) => json(res, 200, { id: "6123a9f0c4b5d6e7f8091a2b" }));
});
afterAll(() => server.close());

const base = {
  title: "Wire test",
  description: "Sends what the wire mapping says.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  descriptor,
  output: s.looseObject({}),
  outputWrap: "none" as const,
};

async function send(tool: OperationToolDefinition, input: unknown): Promise<{ result: ToolResult; sent: Received }> {
  const before = server.received.length;
  const result = await executeTool(tool, input, {
    connection: connections.trello!,
    baseUrl: server.url,
    retry: fastRetry,
    shared: createSharedState(),
  });
  expect(server.received.length, JSON.stringify(result)).toBe(before + 1);
  return { result, sent: server.received.at(-1)! };
}

describe("wire mapping", () => {
  it(
    "path, query and body fields go where the mapping says, renamed, with fixed values " + "and odd wire names",
    async () => {
      const tool = defineWiredTool({
        ...base,
        name: "trello_wire_update",
        operationId: "updateCard",
        input: s.strictObject({
          card: s.string(),
          constructor: s.string().optional(),
          tags: s.array(s.string()).optional(),
          note: s.string().optional(),
        }),
        wire: {
          path: { id: "card" },
          query: { "q_by[]": "tags", ["__proto__"]: "note", mode: { fixed: "strict" } },
          body: { constructor: "constructor", closed: { fixed: false }, idBoard: { fixed: null } },
        },
      });
      expect(tool.service).toBe("trello");
      const { result, sent } = await send(tool, {
        card: "abc123",
        constructor: "made by hand",
        tags: ["a", "b"],
        note: "n1",
      });
      expect(result.ok).toBe(true);
      expect(sent.method).toBe("PUT");
      expect(sent.url.pathname).toBe("/1/cards/abc123");
      expect(sent.url.searchParams.getAll("q_by[]")).toEqual(["a", "b"]);
      expect(sent.url.searchParams.get("__proto__")).toBe("n1");
      expect(sent.url.searchParams.get("mode")).toBe("strict");
      expect(JSON.parse(sent.body)).toEqual({ constructor: "made by hand", closed: false, idBoard: null });
    },
  );

  it("fields the model left out are not sent, and never read from the prototype", async () => {
    const tool = defineWiredTool({
      ...base,
      name: "trello_wire_sparse",
      operationId: "updateCard",
      input: s.strictObject({ card: s.string(), constructor: s.string().optional(), toString: s.string().optional() }),
      wire: { path: { id: "card" }, query: { toString: "toString" }, body: { constructor: "constructor" } },
    });
    const { result, sent } = await send(tool, { card: "abc123" }).catch((e) => {
      throw e;
    });
    expect(result).toMatchObject({ ok: true });
    expect(sent.url.searchParams.has("toString")).toBe(false);
    // An object body with no fields given is still an object: the operation takes one.
    expect(JSON.parse(sent.body)).toEqual({});
  });

  it("a whole-value body sends the field itself", async () => {
    const tool = defineWiredTool({
      ...base,
      name: "trello_wire_whole",
      operationId: "createCard",
      input: s.strictObject({ card: s.looseObject({ name: s.string() }) }),
      wire: { bodyWhole: "card" },
    });
    const { sent } = await send(tool, { card: { name: "Launch", idList: "60d5ecb74e2a1b3c4d5e6f71" } });
    expect(sent.method).toBe("POST");
    expect(sent.url.pathname).toBe("/1/cards");
    expect(JSON.parse(sent.body)).toEqual({ name: "Launch", idList: "60d5ecb74e2a1b3c4d5e6f71" });
  });

  it("header fields are sent in their headers", async () => {
    const tool = defineWiredTool({
      ...base,
      name: "trello_wire_header",
      operationId: "getCard",
      input: s.strictObject({ card: s.string(), request_id: s.string(), constructor: s.string().optional() }),
      wire: {
        path: { id: "card" },
        header: { "X-Request-ID": "request_id", "X-Mode": { fixed: "strict" }, "X-Unset": "constructor" },
      },
    });
    const { sent } = await send(tool, { card: "abc123", request_id: "r-1" });
    expect(sent.url.pathname).toBe("/1/cards/abc123");
    expect(sent.headers["x-request-id"]).toBe("r-1");
    expect(sent.headers["x-mode"]).toBe("strict");
    expect(sent.headers).not.toHaveProperty("x-unset");
  });

  it("an empty mapping sends no parameters and no body", async () => {
    const tool = defineWiredTool({
      ...base,
      name: "trello_wire_none",
      operationId: "createCard",
      input: s.strictObject({}),
      wire: {},
    });
    const { sent } = await send(tool, {});
    expect(sent.url.pathname).toBe("/1/cards");
    // Only the connection's credentials are in the query.
    expect([...sent.url.searchParams.keys()].sort()).toEqual(["key", "token"]);
    expect(sent.body).toBe("");
  });

  it("a step's name must start with its service id", () => {
    expect(() =>
      defineWiredTool({ ...base, name: "other_step", operationId: "getCard", input: s.strictObject({}), wire: {} }),
    ).toThrow(/must match .* and start with "trello_"/);
  });
});
