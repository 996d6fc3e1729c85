/**
 * A client nobody here wrote: the MCP Inspector's CLI (`@modelcontextprotocol/inspector`, a dev
 * dependency) lists and calls code mode's search and execute, over stdio (it starts
 * `stepforge mcp --code --mock` itself) and over Streamable HTTP (`--http 0 --host 127.0.0.1`).
 * Spawns the built CLI (bin/stepforge.js runs dist/), as test/mcp/inspector.test.ts does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, httpProcess } from "../mcp/helpers.js";
import { inspector, toolCall } from "../mcp/inspector-cli.js";

const SERVE = ["--code", "--mock", "--service", "trello", "--service", "worldnews"];
const PROGRAM =
  `const boards = await services.trello.getMemberBoards({ params: { path: { id: "me" } } }); ` +
  `return boards.map((b) => b.name);`;

type Listed = { tools: Array<{ name: string; inputSchema: { type: string } }> };
type Called = { content: Array<{ text: string }>; isError?: boolean };

/** Each request starts the Inspector (and, over stdio, a stepforge server of its own). */
const TIMEOUT_MS = 90_000;

function listAndRun(target: () => string[]) {
  it("lists search and execute, under 4 KB", { timeout: 120_000 }, async () => {
    const listed = (await inspector(target(), ["--method", "tools/list"], TIMEOUT_MS)) as Listed;
    expect(listed.tools.map((t) => t.name)).toEqual(["search", "execute"]);
    expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThan(4096);
  });

  it("execute runs code against the mock", { timeout: 120_000 }, async () => {
    const ran = (await inspector(target(), toolCall("execute", `code=${PROGRAM}`), TIMEOUT_MS)) as Called;
    expect(ran.isError).toBeFalsy();
    expect(JSON.parse(ran.content[0]!.text)).toMatchObject({ result: ["Product Roadmap", "Support Triage"], calls: 1 });
  });
}

/** Each stdio call starts a server of its own: the longer checks run over HTTP only. */
function searchAndRefuse(target: () => string[]) {
  it("search answers TypeScript signatures", { timeout: 120_000 }, async () => {
    const found = (await inspector(target(), toolCall("search", "query=boards of a member"), TIMEOUT_MS)) as Called;
    expect(found.isError).toBeFalsy();
    expect(found.content[0]!.text).toMatch(/services\.trello\.getMemberBoards\(init: \{ params: \{/);
  });

  it("a type error comes back with line and column, nothing run", { timeout: 120_000 }, async () => {
    const wrong = (await inspector(
      target(),
      toolCall("execute", "code=return services.trello.getBoardz();"),
      TIMEOUT_MS,
    )) as Called;
    expect(wrong.isError).toBe(true);
    expect(JSON.parse(wrong.content[0]!.text)).toMatchObject({
      kind: "type_error",
      diagnostics: [{ line: 1, column: 24, code: "TS2551" }],
    });
  });
}

describe("the MCP Inspector CLI against stepforge mcp --code", () => {
  describe("over stdio", () => {
    listAndRun(() => [process.execPath, BIN, "mcp", ...SERVE]);
  });

  describe("over Streamable HTTP", () => {
    let server: Awaited<ReturnType<typeof httpProcess>>;
    beforeAll(async () => {
      server = await httpProcess([...SERVE, "--host", "127.0.0.1"]);
    }, 120_000);
    afterAll(async () => server?.stop());
    listAndRun(() => [server.url, "--transport", "http"]);
    searchAndRefuse(() => [server.url, "--transport", "http"]);
  });
});
