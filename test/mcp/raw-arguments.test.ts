/**
 * `tools/call` requests as a careless client sends them, over HTTP in process: arguments that are
 * not an object come back as an isError result naming the fields (not a JSON-RPC error with a zod
 * dump); params without a tool name are invalid params (-32602) in plain words; a top-level
 * "__proto__" key reaches validation and is refused, as `stepforge call` refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockAccounts } from "../../runtime/mcp/index.js";
import { CARD } from "../mock/helpers.js";
import { type ServedTrello, serveTrelloOverHttp } from "./in-process.js";

interface Answer {
  result?: { isError?: boolean; content: Array<{ text: string }> };
  error?: { code: number; message: string };
}

describe("tools/call with malformed params or arguments", () => {
  let http: ServedTrello;
  let mocks: MockAccounts;
  beforeAll(async () => {
    http = await serveTrelloOverHttp();
    mocks = http.mocks;
  });
  afterAll(async () => http?.close());

  /** One JSON-RPC request; `params` is raw JSON text so any shape (a "__proto__" key included) goes as written. */
  async function call(params: string | undefined): Promise<Answer> {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call"${params === undefined ? "" : `,"params":${params}`}}`;
    const res = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
    });
    return (await res.json()) as Answer;
  }
  const toolError = (a: Answer) => {
    expect(a.error).toBeUndefined();
    expect(a.result!.isError).toBe(true);
    return JSON.parse(a.result!.content[0]!.text) as {
      kind: string;
      message: string;
      fields: Array<{ path: string; message: string }>;
    };
  };

  it.each([
    ["null", "null"],
    ["[]", "a list"],
    ['"id=1"', "string"],
  ])("arguments %s: an isError result saying the input must be an object with the step's fields", async (args, got) => {
    const error = toolError(await call(`{"name":"trello_get_card","arguments":${args}}`));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toMatch(new RegExp(`the input must be a JSON object with the fields id, .*not ${got}`));
  });

  it("no arguments: the step's own message for its missing fields", async () => {
    const error = toolError(await call('{"name":"trello_get_card"}'));
    expect(error.fields[0]).toMatchObject({ path: "id", message: expect.stringMatching(/^required/) });
  });

  it.each([
    ["no params", undefined],
    ["name 123", '{"name":123,"arguments":{}}'],
    ["no name", '{"arguments":{}}'],
  ])("%s: invalid params (-32602) in plain words", async (_label, params) => {
    const answer = await call(params);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/tools\/call takes params \{"name"/);
    expect(answer.error?.message).not.toMatch(/invalid_type|expected/);
  });

  it('refuses a top-level "__proto__" key instead of dropping it', async () => {
    const before = mocks.mocks[0]!.counters().requests;
    const error = toolError(
      await call(`{"name":"trello_get_card","arguments":{"id":"${CARD}","__proto__":{"fields":"all"}}}`),
    );
    expect(error.kind).toBe("invalid_input");
    expect(error.fields.map((f) => f.path)).toContain("__proto__");
    expect(mocks.mocks[0]!.counters().requests).toBe(before);
  });
});
