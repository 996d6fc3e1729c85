/**
 * Spec shapes the MCP server must take:
 *
 * - No spec is refused for what its fields are called. The server's own fields are namespaced
 *   (`stepforge_connection`, `stepforge_result_fields`); a spec field named `connection` is the
 *   spec's, sent to the service like any other, and a spec that uses the server's name itself
 *   pushes the server's field to the next free name (`stepforge_connection_2`).
 * - A request body nested 12 levels deep is listed and callable through MCP, and exported to
 *   OpenAI with `strict: false` (strict mode takes 10 levels).
 *
 * A small plain spec (no x-stepforge), generated in this process, its behavioural mock on
 * 127.0.0.1, and an in-process MCP server with two accounts reached through the SDK client.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { Accounts, StepforgeMcp, type Account, type ServiceCatalog } from "../../runtime/mcp/index.js";
import { loadMock, startMock, type RunningMock } from "../../runtime/mock/index.js";
import { exportTools, type OpenAITool, type ToolDefinition } from "../../runtime/tools/index.js";
import { runCli } from "../helpers/cli.js";
import { toYaml } from "../helpers/spec.js";
import { json } from "./helpers.js";

const OUT = join(packageRoot(), "test", ".tmp", `mcp-fields-${process.pid}`);

const note = {
  type: "object",
  required: ["title", "connection", "stepforge_connection"],
  properties: {
    id: { type: "string", readOnly: true },
    title: { type: "string" },
    connection: { type: "string", description: "How the note was taken (wifi, cable)." },
    stepforge_connection: { type: "string", description: "A field of the spec that uses the server's name." },
  },
};

/** A folder holding a folder, `levels` deep (written out, no $ref: a generator inlines it so). */
function folder(levels: number): Record<string, unknown> {
  const node: Record<string, unknown> = {
    type: "object",
    required: ["name"],
    properties: { name: { type: "string", minLength: 1 } },
  };
  if (levels > 1) (node.properties as Record<string, unknown>).child = folder(levels - 1);
  return node;
}

const spec = {
  openapi: "3.0.3",
  info: { title: "Notes", version: "1" },
  servers: [{ url: "https://api.notes.example" }],
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas: { Note: note } },
  security: [{ bearer: [] }],
  paths: {
    "/notes": {
      get: {
        operationId: "listNotes",
        parameters: [
          { name: "connection", in: "query", schema: { type: "string" }, description: "Only notes taken this way." },
        ],
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Note" } } },
            },
          },
        },
      },
      post: {
        operationId: "createNote",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
        },
        responses: {
          "201": {
            description: "created",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
          },
        },
      },
    },
    "/folders": {
      post: {
        operationId: "createFolder",
        requestBody: { required: true, content: { "application/json": { schema: folder(12) } } },
        responses: {
          "201": {
            description: "created",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } },
          },
        },
      },
    },
    "/notes/{id}": {
      get: {
        operationId: "getNote",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
          },
        },
      },
    },
  },
};

let mock: RunningMock;
let client: Client;
let server: StepforgeMcp;
let tools: ToolDefinition[];

beforeAll(async () => {
  const file = `${OUT}-spec.yaml`;
  mkdirSync(dirname(file), { recursive: true }); // test/.tmp is not in git: a fresh checkout has none
  writeFileSync(file, toYaml(spec));
  const generated = await runCli("generate", "--spec", file, "--out", OUT, "--service", "notes", "--no-cache");
  expect(generated.code, generated.stderr).toBe(0);
  const generatedTools = (await import(join(OUT, "notes", "tools.ts"))) as {
    tools: ToolDefinition[];
    toolsets: ServiceCatalog["toolsets"];
  };
  tools = generatedTools.tools;
  const toolsets = generatedTools.toolsets;
  const definition = await loadMock(join(OUT, "notes", "mock.ts"));
  mock = await startMock(definition);
  const account = (name: string): Account => ({
    name,
    context: { connection: { name, fields: { ...definition.mock.credentials } }, baseUrl: mock.url },
  });
  // Two accounts: every step gets the server's connection field.
  server = new StepforgeMcp({
    catalogs: [{ id: "notes", title: "Notes", tools, toolsets }],
    accounts: new Accounts([["notes", [account("home"), account("work")]]]),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.createServer().connect(serverSide);
  client = new Client({ name: "stepforge-test", version: "1.0.0" });
  await client.connect(clientSide);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await mock?.close();
  rmSync(OUT, { recursive: true, force: true });
  rmSync(`${OUT}-spec.yaml`, { force: true });
});

describe("spec fields that share a name with the server's", () => {
  it("lists the spec's connection field and the server's own fields side by side", async () => {
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === "notes_create_note")!;
    const props = create.inputSchema.properties as Record<string, { description?: string; enum?: string[] }>;
    expect(props.connection?.description).toMatch(/wifi, cable/);
    expect(props.stepforge_connection?.description).toMatch(/uses the server's name/);
    expect(props.stepforge_connection_2?.enum).toEqual(["home", "work"]);
    expect(create.inputSchema.required).toContain("stepforge_connection_2");
    const list = tools.find((t) => t.name === "notes_list_notes")!;
    expect(Object.keys(list.inputSchema.properties as object).sort()).toEqual([
      "connection",
      "stepforge_connection",
      "stepforge_result_fields",
    ]);
  });

  it("sends the spec's fields to the service and keeps the server's for itself", async () => {
    const created = await client.callTool({
      name: "notes_create_note",
      arguments: {
        title: "Standup",
        connection: "wifi",
        stepforge_connection: "the spec's value",
        stepforge_connection_2: "work",
      },
    });
    // Both are required by the spec: the mock validates the body and refuses one without them.
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    expect(mock.counters().validationFailures).toBe(0);
    expect(mock.counters().byOperation).toMatchObject({ createNote: 1 });
    const listed = await client.callTool({
      name: "notes_list_notes",
      arguments: { connection: "wifi", stepforge_connection: "home", stepforge_result_fields: ["title", "connection"] },
    });
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    const items = json<{ items: Array<Record<string, unknown>> }>(listed).items;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(Object.keys(item).every((k) => k === "title" || k === "connection")).toBe(true);
  });

  it("names the server's field, not the spec's, when no account is chosen", async () => {
    const result = await client.callTool({
      name: "notes_create_note",
      arguments: { title: "x", connection: "cable", stepforge_connection: "y" },
    });
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({
      kind: "invalid_input",
      fields: [
        {
          path: "stepforge_connection_2",
          message: expect.stringMatching(/set "stepforge_connection_2" to one of "home", "work"/),
        },
      ],
    });
  });
});

describe("a request body 12 levels deep", () => {
  /** The body, `levels` folders deep, as a model would send it. */
  function body(levels: number): Record<string, unknown> {
    return levels > 1 ? { name: `level ${levels}`, child: body(levels - 1) } : { name: "level 1" };
  }

  it("is listed whole and callable through MCP, the mock validating every level", async () => {
    const { tools: listed } = await client.listTools();
    let node = listed.find((t) => t.name === "notes_create_folder")!.inputSchema as Record<string, unknown>;
    let depth = 0;
    while ((node.properties as Record<string, Record<string, unknown>> | undefined)?.child) {
      node = (node.properties as Record<string, Record<string, unknown>>).child!;
      depth++;
    }
    expect(depth).toBeGreaterThanOrEqual(11);
    const before = mock.counters().validationFailures;
    const created = await client.callTool({
      name: "notes_create_folder",
      arguments: { ...body(12), stepforge_connection: "work" },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    expect(mock.counters().byOperation.createFolder).toBe(1);
    // An empty name eleven levels down is refused by the step's own check, before anything is sent.
    const wrong = body(12);
    let inner = wrong;
    for (let i = 0; i < 10; i++) inner = inner.child as Record<string, unknown>;
    inner.name = "";
    const refused = await client.callTool({
      name: "notes_create_folder",
      arguments: { ...wrong, stepforge_connection: "work" },
    });
    expect(refused.isError).toBe(true);
    expect(json(refused)).toMatchObject({ kind: "invalid_input" });
    expect(mock.counters().validationFailures).toBe(before);
    expect(mock.counters().byOperation.createFolder).toBe(1);
  });

  it("is exported to OpenAI with strict: false, saying why; the shallow steps stay strict", () => {
    const exported = exportTools(tools, "openai");
    const deep = (exported.tools as OpenAITool[]).find((t) => t.function.name === "notes_create_folder")!;
    expect(deep.function.strict).toBe(false);
    expect(exported.nonStrict.find((n) => n.name === "notes_create_folder")!.reasons.join()).toMatch(
      /at most 10 levels of nesting/,
    );
    expect((exported.tools as OpenAITool[]).find((t) => t.function.name === "notes_get_note")!.function.strict).toBe(
      true,
    );
  });
});
