/**
 * `stepforge tools list|schema` and `stepforge call` as a user runs them: one JSON document on
 * stdout, exit 0 on success, 1 on a tool error, 2 on a usage error.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { packageRoot } from "../../generator/package-root.js";
import { runCli } from "../helpers/cli.js";
import { connections, json, loopback, text, type Loopback } from "./helpers.js";

let server: Loopback;
let dir: string;
let plainFile: string;
let storeFile: string;

beforeAll(async () => {
  server = await loopback((req, res) => {
    if (req.url.pathname === "/1/cards/6123a9f0c4b5d6e7f8091a2b")
      return json(res, 200, { id: "6123a9f0c4b5d6e7f8091a2b", name: "Card" });
    if (req.url.pathname === "/1/members/me/boards")
      return json(res, 200, [{ id: "60d5ecb74e2a1b3c4d5e6f70", name: "Launch" }]);
    text(res, 404, "The requested resource was not found.");
  });
  dir = await mkdtemp(join(tmpdir(), "stepforge-tools-"));
  plainFile = join(dir, "plain.json");
  await writeFile(
    plainFile,
    JSON.stringify({
      work: { service: "trello", fields: connections.trello!.fields },
      home: { service: "trello", fields: connections.trello!.fields },
      news: { service: "worldnews", fields: connections.worldnews!.fields },
    }),
  );
  storeFile = join(dir, "store.json");
  await writeFile(storeFile, JSON.stringify({ version: 1, connections: { trello: { work: connections.trello } } }));
  await chmod(storeFile, 0o600);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("stepforge tools", () => {
  it("lists the steps, per service, as text or JSON", async () => {
    const listed = await runCli("tools", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^trello_create_card\s+Create card/m);
    const asJson = await runCli("tools", "list", "--service", "worldnews", "--json");
    expect(asJson.code).toBe(0);
    const rows = JSON.parse(asJson.stdout) as Array<{ name: string; service: string; openaiStrict: boolean }>;
    expect(rows.map((r) => r.name)).toContain("worldnews_search_news");
    expect(rows.every((r) => r.service === "worldnews")).toBe(true);
    expect(rows.find((r) => r.name === "worldnews_api_call")!.openaiStrict).toBe(false);
  });

  it("prints schemas per format", async () => {
    const mcp = await runCli("tools", "schema", "--format", "mcp", "--service", "trello");
    expect(mcp.code).toBe(0);
    const tools = JSON.parse(mcp.stdout) as unknown[];
    for (const t of tools) expect(ToolSchema.safeParse(t).success).toBe(true);
    // The same as `stepforge mcp` lists: compact, no output schemas.
    expect(tools.some((t) => "outputSchema" in (t as object))).toBe(false);
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeLessThan(50_000);
    const openai = await runCli("tools", "schema", "--format", "openai", "--service", "trello");
    expect(JSON.parse(openai.stdout)[0]).toMatchObject({
      type: "function",
      function: { name: "trello_create_card", strict: true },
    });
    expect(openai.stderr).toMatch(/trello_api_call is exported with strict: false/);
    const anthropic = await runCli("tools", "schema", "--format", "anthropic");
    expect(Object.keys(JSON.parse(anthropic.stdout)[0]).sort()).toEqual(["description", "input_schema", "name"]);
  });

  it("refuses a wrong command line with exit 2", async () => {
    expect((await runCli("tools", "schema", "--format", "yaml")).code).toBe(2);
    expect((await runCli("tools", "list", "--service", "nope")).code).toBe(2);
    expect((await runCli("tools", "frobnicate")).code).toBe(2);
  });
});

describe("stepforge call", () => {
  /** The flags that read connections from `file` and send to the loopback server. */
  const against = (file: string) => ["--connections", file, "--base-url", server.url];
  /** `stepforge call TOOL --input JSON` with the "work" connection of the plain file, against the mock. */
  const callWork = (tool: string, input: string) =>
    runCli("call", tool, "--input", input, "--connection", "work", ...against(plainFile));

  it("runs a step and prints its result (exit 0)", async () => {
    const r = await callWork("trello_get_card", '{"id":"6123a9f0c4b5d6e7f8091a2b"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { id: "6123a9f0c4b5d6e7f8091a2b", name: "Card" } });
  });

  it("reads the runtime's store file and picks the only connection", async () => {
    const r = await runCli("call", "trello_get_boards", "--input", "{}", ...against(storeFile));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, data: { items: [{ name: "Launch" }] } });
  });

  it("prints a tool error as JSON with exit 1", async () => {
    const invalid = await callWork("trello_get_card", '{"id":42}');
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      ok: false,
      error: { kind: "invalid_input", fields: [{ path: "id" }] },
    });
    const missing = await callWork("trello_get_card", '{"id":"aaaaaaaaaaaaaaaaaaaaaaaa"}');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { kind: "not_found", status: 404 } });
    const hostile = await callWork("trello_api_call", '{"method":"GET","endpoint":"//evil.example/x"}');
    expect(hostile.code).toBe(1);
    expect(JSON.parse(hostile.stdout).error.fields[0].path).toBe("endpoint");
    expect(hostile.stdout).not.toContain(connections.trello!.fields.token);
  });

  it("exits 2 on usage errors", async () => {
    const base = against(plainFile);
    expect((await runCli("call", "trello_nope", "--input", "{}", ...base)).code).toBe(2);
    expect((await runCli("call", "trello_get_card", "--input", "{not json", ...base)).code).toBe(2);
    expect((await runCli("call", "trello_get_card", ...base)).code).toBe(2);
    const ambiguous = await runCli("call", "trello_get_card", "--input", "{}", ...base);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/several trello connections \(home, work\)/);
    expect((await runCli("call", "trello_get_card", "--input", "{}", "--connection", "nobody", ...base)).code).toBe(2);
    expect(
      (await runCli("call", "trello_get_card", "--input", "{}", "--connections", join(dir, "missing.json"))).code,
    ).toBe(2);
  });
});

describe("the stepforge command in a pipe", () => {
  it("ends quietly with exit 0 when the reader closes early (`stepforge tools list | head -1`)", async () => {
    const child = spawn(process.execPath, [join(packageRoot(), "bin", "stepforge.js"), "tools", "list"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.once("data", () => child.stdout.destroy()); // what head does after its first line
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });
});
