/**
 * The listing budget and client profiles, on a plain spec of 130 operations (26 resources; no
 * x-stepforge, no tags, so toolsets come from paths) generated in this process, its behavioural mock
 * on 127.0.0.1 and in-process MCP servers reached through the SDK client:
 *
 * - over 128 tools or 120 KB the server serves the meta-tools, says why once and names toolsets
 *   that fit; calls still reach the mock through call_step;
 * - a selection that fits is listed step by step;
 * - `client: "cursor"` caps the tools at 40 and cuts names so server name + tool name ≤ 60;
 * - `client: "claude-code"` keeps results under its 25,000-token cut even when asked for more.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { Writable } from "node:stream";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { Accounts, StepforgeMcp, type ServiceCatalog, type StepforgeMcpOptions } from "../../runtime/mcp/index.js";
import { loadMock, startMock, type RunningMock } from "../../runtime/mock/index.js";
import type { ToolDefinition } from "../../runtime/tools/index.js";
import { mcpCommand } from "../../cli/commands/mcp.js";
import { runCli } from "../helpers/cli.js";
import { toYaml } from "../helpers/spec.js";
import { httpClient, json, texts } from "./helpers.js";

const OUT = join(packageRoot(), "test", ".tmp", `mcp-budget-${process.pid}`);
const RESOURCES = (
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike " +
  "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split(" ");
const LONG_OPERATION = "listEveryAlphaRecordThatBelongsToTheCurrentWorkspaceIncludingArchived";

function bigSpec(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const r of RESOURCES) {
    const title = r[0]!.toUpperCase() + r.slice(1);
    schemas[title] = {
      type: "object",
      required: ["id", "name"],
      properties: {
        id: { type: "string" },
        name: { type: "string", description: `The ${r}'s name.` },
        notes: { type: "string", minLength: 300, maxLength: 400 },
      },
    };
    const ref = { $ref: `#/components/schemas/${title}` };
    const one = { "200": { description: "ok", content: { "application/json": { schema: ref } } } };
    const id = [{ name: "id", in: "path", required: true, schema: { type: "string" } }];
    const body = { required: true, content: { "application/json": { schema: ref } } };
    paths[`/v1/${r}`] = {
      get: {
        operationId: r === "alpha" ? LONG_OPERATION : `list${title}s`,
        description: `Lists the ${r} records of the workspace, newest first, with their names and notes.`,
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "array", maxItems: 400, minItems: 300, items: ref } } },
          },
        },
      },
      post: { operationId: `create${title}`, description: `Creates a ${r} record.`, requestBody: body, responses: one },
    };
    paths[`/v1/${r}/{id}`] = {
      get: { operationId: `get${title}`, description: `One ${r} record.`, parameters: id, responses: one },
      put: {
        operationId: `update${title}`,
        description: `Replaces a ${r} record.`,
        parameters: id,
        requestBody: body,
        responses: one,
      },
      delete: {
        operationId: `delete${title}`,
        description: `Deletes a ${r} record.`,
        parameters: id,
        responses: { "204": { description: "gone" } },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Fleet", version: "1" },
    servers: [{ url: "https://api.fleet.example" }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas },
    security: [{ bearer: [] }],
    paths,
  };
}

let mock: RunningMock;
let catalog: ServiceCatalog;
let accounts: Accounts;
const clients: Client[] = [];

async function connect(options: Partial<StepforgeMcpOptions> = {}): Promise<{ server: StepforgeMcp; client: Client }> {
  const server = new StepforgeMcp({ catalogs: [catalog], accounts, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.createServer().connect(serverSide);
  const client = new Client({ name: "stepforge-test", version: "1.0.0" });
  await client.connect(clientSide);
  clients.push(client);
  return { server, client };
}

beforeAll(async () => {
  const file = `${OUT}-spec.yaml`;
  // test/.tmp is not in git: a fresh clone running this file alone has no such folder yet.
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(file, toYaml(bigSpec()));
  const generated = await runCli("generate", "--spec", file, "--out", OUT, "--service", "fleet", "--no-cache");
  expect(generated.code, generated.stderr).toBe(0);
  const { tools, toolsets } = (await import(join(OUT, "fleet", "tools.ts"))) as {
    tools: ToolDefinition[];
    toolsets: ServiceCatalog["toolsets"];
  };
  catalog = { id: "fleet", title: "Fleet", tools, toolsets };
  const definition = await loadMock(join(OUT, "fleet", "mock.ts"));
  mock = await startMock(definition);
  accounts = new Accounts([
    [
      "fleet",
      [
        {
          name: "mock",
          context: { connection: { name: "mock", fields: { ...definition.mock.credentials } }, baseUrl: mock.url },
        },
      ],
    ],
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await mock?.close();
  rmSync(OUT, { recursive: true, force: true });
  rmSync(`${OUT}-spec.yaml`, { force: true });
});

describe("the listing budget", () => {
  it("serves the meta-tools over 128 tools, says why once, and names toolsets that fit", async () => {
    const { server, client } = await connect();
    expect(server.served).toHaveLength(130);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["call_step", "continue_result", "describe_step", "search_steps"]);
    expect(server.notice).toMatch(/^the listing would be 131 tools \(over the budget of 128\)/);
    expect(server.notice).toMatch(/--toolsets alpha \(5 steps, \d+ KB\), bravo \(5 steps/);
    // The steps still run, through call_step, against the mock.
    const found = json<{ steps: Array<{ name: string }> }>(
      await client.callTool({ name: "search_steps", arguments: { query: "get kilo" } }),
    );
    expect(found.steps.map((s) => s.name)).toContain("fleet_get_kilo");
    // The mock is stateful (made-up ids are 404): create the record through call_step, then read it back.
    const created = await client.callTool({
      name: "call_step",
      arguments: { name: "fleet_create_kilo", input: { id: "ignored", name: "Kilo through call_step" } },
    });
    expect(created.isError, texts(created).join()).toBeFalsy();
    const { id } = json<{ id: string }>(created);
    const got = await client.callTool({ name: "call_step", arguments: { name: "fleet_get_kilo", input: { id } } });
    expect(got.isError, texts(got).join()).toBeFalsy();
    expect(json(got)).toMatchObject({ id, name: "Kilo through call_step" });
  });

  it("lists a selection that fits step by step, its calls reaching the mock", async () => {
    const { server, client } = await connect({ selection: { toolsets: ["kilo", "lima"] } });
    expect(server.notice).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(11);
    const createdBefore = mock.counters().byOperation.createLima ?? 0;
    const created = await client.callTool({ name: "fleet_create_lima", arguments: { id: "ignored", name: "Lima" } });
    expect(created.isError, texts(created).join()).toBeFalsy();
    expect(mock.counters().byOperation.createLima).toBe(createdBefore + 1);
    const { id } = json<{ id: string }>(created);
    const before = mock.counters().byOperation.getLima ?? 0;
    const got = await client.callTool({ name: "fleet_get_lima", arguments: { id } });
    expect(got.isError, texts(got).join()).toBeFalsy();
    expect(json(got)).toMatchObject({ id, name: "Lima" });
    expect(mock.counters().byOperation.getLima).toBe(before + 1);
  });

  it("counts bytes too: a lower size budget turns a small selection dynamic", async () => {
    const { server, client } = await connect({ selection: { toolsets: ["kilo"] }, budget: { maxBytes: 2000 } });
    expect(server.notice).toMatch(/would be \d+ KB of tools\/list \(over the budget of 2 KB/);
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it("lists every step when the budget is off", async () => {
    const { client } = await connect({ budget: false });
    expect((await client.listTools()).tools).toHaveLength(131);
  });
});

describe("client profiles", () => {
  const eightGroups = ["bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"];

  it("cursor: at most 40 tools, or the meta-tools and a message naming Cursor's limit", async () => {
    const over = await connect({ client: "cursor", selection: { toolsets: eightGroups } });
    expect(over.server.notice).toMatch(/^the listing for Cursor would be 41 tools \(Cursor takes at most 40\)/);
    expect((await over.client.listTools()).tools).toHaveLength(4);
    const fits = await connect({ client: "cursor", selection: { toolsets: eightGroups.slice(1) } });
    expect(fits.server.notice).toBeUndefined();
    expect((await fits.client.listTools()).tools).toHaveLength(36);
  });

  it("cursor: names cut so that server name + tool name is at most 60 characters, and callable so", async () => {
    const { client } = await connect({ client: "cursor", selection: { toolsets: ["alpha"] } });
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of names) expect(`stepforge ${name}`.length, name).toBeLessThanOrEqual(60);
    const long = names.find((n) => n.startsWith("fleet_list_every_alpha"))!;
    expect(long).toMatch(/^fleet_list_every_alpha_record_that_belongs_[a-f0-9]{6}$/);
    const listed = await client.callTool({ name: long, arguments: {} });
    expect(listed.isError, texts(listed).join()).toBeFalsy();
  });

  it("claude-code: a result stays under its 25,000-token cut even with a larger result budget asked for", async () => {
    const plain = await connect({ selection: { toolsets: ["mike"] }, resultBytes: 1_000_000 });
    // Lists start empty on the stateful mock: 200 records with 400-character notes make a list of
    // about 90 KB, over the cut (75,000 bytes). Created through the listed step, 20 at a time.
    for (let batch = 0; batch < 10; batch++) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          plain.client.callTool({
            name: "fleet_create_mike",
            arguments: { id: "ignored", name: `Mike ${batch * 20 + i}`, notes: "n".repeat(400) },
          }),
        ),
      );
      for (const m of made) expect(m.isError, texts(m).join()).toBeFalsy();
    }
    const whole = await plain.client.callTool({ name: "fleet_list_mikes", arguments: {} });
    expect(texts(whole)).toHaveLength(1);
    expect(Buffer.byteLength(texts(whole)[0]!)).toBeGreaterThan(75_000);
    const { client } = await connect({
      client: "claude-code",
      selection: { toolsets: ["mike"] },
      resultBytes: 1_000_000,
    });
    const cut = await client.callTool({ name: "fleet_list_mikes", arguments: {} });
    expect(Buffer.byteLength(texts(cut)[0]!)).toBeLessThanOrEqual(75_000);
    expect(texts(cut)[1]).toMatch(/Result cut to stay under 75000 bytes/);
  });
});

describe("stepforge mcp flags", () => {
  class Capture extends Writable {
    text = "";
    override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
      this.text += chunk.toString();
      done();
    }
  }

  it("--max-tools: over it, says so once on stderr and serves the meta-tools", async () => {
    const err = new Capture();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = mcpCommand(
      ["--http", "0", "--service", "trello", "--max-tools", "10", "--mock"],
      new Capture(),
      err,
      until,
    );
    try {
      for (let i = 0; i < 600 && !/on (http:\S+)/.test(err.text); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err.text)![1]!;
      const c = await httpClient(url);
      try {
        expect((await c.client.listTools()).tools.map((t) => t.name).sort()).toEqual([
          "call_step",
          "continue_result",
          "describe_step",
          "search_steps",
        ]);
      } finally {
        await c.close();
      }
      expect(err.text.match(/the listing would be/g)).toHaveLength(1);
      expect(err.text).toMatch(
        /stepforge mcp: the listing would be 36 tools \(over the budget of 10\): serving the meta-tools .* --toolsets /,
      );
      expect(err.text).toMatch(/35 steps of trello \(dynamic\) on http/);
    } finally {
      stop();
      expect(await running).toBe(0);
    }
  }, 60_000);

  it("--client and the budget flags refuse bad values, naming the choices", async () => {
    await expect(mcpCommand(["--client", "emacs", "--budget"], new Capture(), new Capture())).rejects.toThrow(
      /--client must be one of cursor, vscode, claude-code, claude-desktop, windsurf, generic, got "emacs"/,
    );
    await expect(mcpCommand(["--max-tools", "0", "--budget"], new Capture(), new Capture())).rejects.toThrow(
      /--max-tools must be a whole number, at least 1/,
    );
    await expect(mcpCommand(["--max-listing-bytes", "lots", "--budget"], new Capture(), new Capture())).rejects.toThrow(
      /--max-listing-bytes must be a whole number/,
    );
  });
});
