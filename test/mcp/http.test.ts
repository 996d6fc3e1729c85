/**
 * `stepforge mcp` over Streamable HTTP, driven by the official SDK client: a real process with two
 * Trello accounts from a connections file (chosen per call), the bearer token and the loopback
 * host checks, and results cut to a byte budget with a cursor the client passes back.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { Accounts, serveMcpHttp, StepforgeMcp } from "../../runtime/mcp/index.js";
import { CARD, LIST, TRELLO } from "../mock/helpers.js";
import { httpClient, httpProcess, json, texts } from "./helpers.js";
import { catalogsOf, type ServedTrello, serveTrelloOverHttp } from "./in-process.js";

describe("stepforge mcp --http with two Trello accounts", () => {
  let mock: RunningMock;
  let server: Awaited<ReturnType<typeof httpProcess>>;
  beforeAll(async () => {
    mock = await startMock("trello");
    const dir = mkdtempSync(join(tmpdir(), "stepforge-mcp-"));
    const file = join(dir, "connections.json");
    // "work" holds the mock's credentials; "personal" a token the mock does not know.
    writeFileSync(
      file,
      JSON.stringify({
        work: { service: "trello", fields: { ...TRELLO } },
        personal: {
          service: "trello",
          fields: { apiKey: TRELLO.apiKey, token: "ATTApersonal0000000000000000000000000000000000" },
        },
      }),
      { mode: 0o600 },
    );
    server = await httpProcess(["--service", "trello", "--connections", file, "--base-url", `trello=${mock.url}`]);
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it("adds a required connection field naming both accounts to every step", async () => {
    const c = await httpClient(server.url);
    try {
      const { tools } = await c.client.listTools();
      const steps = tools.filter((t) => t.name !== "continue_result");
      expect(steps.length).toBe(35);
      for (const t of steps) {
        expect(t.inputSchema.properties?.stepforge_connection, t.name).toMatchObject({
          type: "string",
          enum: ["personal", "work"],
        });
        expect(t.inputSchema.required, t.name).toContain("stepforge_connection");
      }
    } finally {
      await c.close();
    }
  });

  it("runs each call with the account it names, and says which field to set when none is named", async () => {
    const c = await httpClient(server.url);
    try {
      const before = mock.counters().requests;
      const work = await c.client.callTool({
        name: "trello_get_card",
        arguments: { id: CARD, stepforge_connection: "work" },
      });
      expect(work.isError).toBeFalsy();
      expect(json(work)).toMatchObject({ id: CARD });
      const personal = await c.client.callTool({
        name: "trello_get_card",
        arguments: { id: CARD, stepforge_connection: "personal" },
      });
      expect(personal.isError).toBe(true);
      expect(json(personal)).toMatchObject({ kind: "auth", retryable: false });
      // The other account's token never shows in what the model reads.
      expect(texts(personal).join("")).not.toContain("ATTApersonal");
      expect(mock.counters().requests - before).toBe(2);

      const none = await c.client.callTool({ name: "trello_get_card", arguments: { id: CARD } });
      expect(none.isError).toBe(true);
      expect(json(none)).toMatchObject({
        kind: "invalid_input",
        fields: [{ path: "stepforge_connection", message: expect.stringMatching(/"personal", "work"/) }],
      });
      const wrong = await c.client.callTool({
        name: "trello_get_card",
        arguments: { id: CARD, stepforge_connection: "home" },
      });
      expect(json(wrong)).toMatchObject({ kind: "invalid_input", fields: [{ path: "stepforge_connection" }] });
      expect(mock.counters().requests - before).toBe(2);
    } finally {
      await c.close();
    }
  });
});

describe("MCP over HTTP in process: result budget, token, host checks", () => {
  let http: ServedTrello;
  const TOKEN = "test-bearer-token-0123456789";
  beforeAll(async () => {
    http = await serveTrelloOverHttp({ mcp: { resultBytes: 4000 }, http: { token: TOKEN } });
  });
  afterAll(async () => http?.close());

  it("cuts a long list at a record boundary and hands the rest out through continue_result", async () => {
    const c = await httpClient(http.url, TOKEN);
    try {
      for (let i = 0; i < 14; i++) {
        const made = await c.client.callTool({
          name: "trello_create_card",
          arguments: { idList: LIST, name: `budget card ${i}`, desc: "x".repeat(300) },
        });
        expect(made.isError).toBeFalsy();
      }
      const first = await c.client.callTool({ name: "trello_get_list_cards", arguments: { id: LIST } });
      expect(first.isError).toBeFalsy();
      const [data, note] = texts(first);
      expect(Buffer.byteLength(data!)).toBeLessThanOrEqual(4000);
      const page = JSON.parse(data!) as { items: Array<{ id: string; name: string }> };
      expect(page.items.length).toBeGreaterThan(0);
      expect(note).toMatch(
        joinedPattern([
          /Result cut to stay under 4000 bytes: "items" holds records 1-\d+ of \d+\. /,
          /For the next records call continue_result with \{"cursor":"[\w-]+"\}/,
        ]),
      );
      const total = Number(/of (\d+)\./.exec(note!)![1]);
      expect(total).toBeGreaterThanOrEqual(14);

      // Follow the cursors to the end: every record exactly once, in order.
      const ids = page.items.map((r) => r.id);
      let cursor = /"cursor":"([\w-]+)"/.exec(note!)?.[1];
      while (cursor) {
        const next = await c.client.callTool({ name: "continue_result", arguments: { cursor } });
        expect(next.isError).toBeFalsy();
        const [text, more] = texts(next);
        expect(Buffer.byteLength(text!)).toBeLessThanOrEqual(4000);
        ids.push(...(JSON.parse(text!) as { items: Array<{ id: string }> }).items.map((r) => r.id));
        cursor = more ? /"cursor":"([\w-]+)"/.exec(more)?.[1] : undefined;
      }
      expect(ids.length).toBe(total);
      expect(new Set(ids).size).toBe(total);

      // A cursor works once.
      const used = await c.client.callTool({
        name: "continue_result",
        arguments: { cursor: /"cursor":"([\w-]+)"/.exec(note!)![1] },
      });
      expect(used.isError).toBe(true);
      expect(json(used)).toMatchObject({ kind: "invalid_input", fields: [{ path: "cursor" }] });

      // Field selection: only the fields asked for, and the whole list fits.
      const slim = await c.client.callTool({
        name: "trello_get_list_cards",
        arguments: { id: LIST, stepforge_result_fields: ["id", "name"] },
      });
      const slimItems = json<{ items: Array<Record<string, unknown>> }>(slim).items;
      expect(slimItems.length).toBe(total);
      for (const r of slimItems) expect(Object.keys(r).sort()).toEqual(["id", "name"]);
      expect(texts(slim)).toHaveLength(1);
      const typo = await c.client.callTool({
        name: "trello_get_list_cards",
        arguments: { id: LIST, stepforge_result_fields: ["id", "nmae"] },
      });
      expect(texts(typo)[1]).toMatch(/No record has the field "nmae"/);
      const badFields = await c.client.callTool({
        name: "trello_get_list_cards",
        arguments: { id: LIST, stepforge_result_fields: "id" },
      });
      expect(json(badFields)).toMatchObject({ kind: "invalid_input", fields: [{ path: "stepforge_result_fields" }] });
    } finally {
      await c.close();
    }
  });

  it("refuses a client without the bearer token, and a forged Host", async () => {
    await expect(httpClient(http.url)).rejects.toThrow(/401|bearer/i);
    await expect(httpClient(http.url, "wrong-token-0123456789abcdef")).rejects.toThrow(/401|bearer/i);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        http.url,
        {
          method: "POST",
          headers: { host: "evil.example:80", authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(403);
  });

  // Streamable HTTP makes an SDK server per request; one that builds its own validator builds a new
  // Ajv (about 1 ms of CPU) for every request. `_jsonSchemaValidator` is the SDK's own field: if it
  // is renamed, this fails, and the option is to be checked again.
  it("gives every request's server the same JSON Schema validator", async () => {
    const mcp = new StepforgeMcp({ catalogs: await catalogsOf("worldnews"), accounts: new Accounts([]) });
    const validatorOf = (server: object) => (server as { _jsonSchemaValidator?: unknown })._jsonSchemaValidator;
    const [first, second] = [mcp.createServer(), mcp.createServer()];
    expect(validatorOf(first)).toBeDefined();
    expect(validatorOf(second)).toBe(validatorOf(first));
    const other = new StepforgeMcp({ catalogs: await catalogsOf("worldnews"), accounts: new Accounts([]) });
    expect(validatorOf(other.createServer())).not.toBe(validatorOf(first));
  });

  it("will not listen beyond loopback without a token", async () => {
    const catalogs = await catalogsOf("worldnews");
    const mcp = new StepforgeMcp({ catalogs, accounts: new Accounts([]) });
    await expect(serveMcpHttp(() => mcp.createServer(), { port: 0, host: "0.0.0.0" })).rejects.toThrow(
      /beyond loopback.*STEPFORGE_MCP_TOKEN/,
    );
  });
});
