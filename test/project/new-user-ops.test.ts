/**
 * A new user's project from the packed tarball, past the first hour: the commands that watch,
 * record and serve a service (mock --explain, proxy --record then mock --replay, the call log and
 * `log`, mcp --code and --output-schemas, diff), each run on the user's own spec (bookshelf.yaml,
 * found by id in the project's stepforge.config.ts), never on the four bundled services.
 *
 * The project installs only what these commands need beside stepforge: TypeScript, openapi-typescript
 * and QuickJS for the code mode, openapi-typescript for diff, and the MCP SDK. It never runs
 * `generate`: every command here builds the service from its spec in the process.
 *
 * Each step is timed; the figures print at the end.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { outsideEnv, run, startUntil, stop, type Run } from "../consumer/helpers.js";
import { packedTarball, writeAppManifest } from "../helpers/tarball.js";
import { BOOKSHELF, postBook } from "./helpers.js";
import { stageTimes } from "../helpers/stage-times.js";

const root = packageRoot();
const env = outsideEnv(root);
const work = mkdtempSync(join(tmpdir(), "stepforge-new-user-ops-"));
const project = join(work, "shelf-app");
const bin = join(project, "node_modules", ".bin", "stepforge");
const inspector = join(root, "node_modules", ".bin", "mcp-inspector");
const { times, timed } = stageTimes();
/** The user's own bearer token: a secret that must not reach a recording or a log. */
const TOKEN = "shelf-user-token-5f3a9c2e71b04d68";

const stepforge = (args: string[], extra: NodeJS.ProcessEnv = {}) => run(bin, args, project, { ...env, ...extra });
const say = (r: Run) => `${r.stdout}\n${r.stderr}`;
/** `stepforge mcp --mock FLAGS…` started by the MCP Inspector's CLI, as a client would. */
const inspect = (flags: string[], method: string[]) =>
  run(
    process.execPath,
    [inspector, "--cli", process.execPath, bin, "mcp", "--mock", ...flags, ...method],
    project,
    env,
  );

beforeAll(async () => {
  const packed = await timed("pack (shared; 0 when cached)", () => packedTarball());
  mkdirSync(join(project, "specs"), { recursive: true });
  copyFileSync(BOOKSHELF, join(project, "specs", "bookshelf.yaml"));
  const peers = ["typescript", "openapi-typescript", "quickjs-emscripten", "@modelcontextprotocol/sdk"];
  writeAppManifest(project, "shelf-app", packed.tarball, peers);
  const install = await timed("install", () =>
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], project, env),
  );
  expect(install.code, install.stderr).toBe(0);
  const init = await stepforge(["init"]);
  expect(init.code, say(init)).toBe(0);
  expect(init.stdout).toContain("bookshelf (specs/bookshelf.yaml)");
}, 600_000);

afterAll(async () => {
  console.log(`new-user ops flow (s): ${JSON.stringify(times)}`);
  await rm(work, { recursive: true, force: true });
}, 60_000);

describe("a new user's own service: watch, record, serve, compare", { timeout: 240_000, sequential: true }, () => {
  it("mock bookshelf --explain prints the behaviour inferred from the spec", async () => {
    const r = await timed("mock --explain", () => stepforge(["mock", "bookshelf", "--explain"]));
    expect(r.code, say(r)).toBe(0);
    expect(r.stdout).toMatch(/^bookshelf mock: inferred from the REST shape of .*specs\/bookshelf\.yaml/);
    expect(r.stdout).toMatch(/POST +\/books +createBook: create books/);
    expect(r.stdout).toMatch(/GET +\/books\/\{bookId\} +getBook: read books/);
    expect(r.stdout).toContain("answer: records in items");
  });

  describe("proxy --record in front of the mock, then mock --replay of the recording", () => {
    let mock: Awaited<ReturnType<typeof startUntil>> | undefined;
    let mockUrl = "";
    const har = join(project, "shelf.har");

    beforeAll(async () => {
      mock = await timed("mock (start to listening)", () =>
        startUntil(bin, ["mock", "bookshelf", "--port", "0"], project, env, "running on", 120_000),
      );
      mockUrl = /^bookshelf mock (http:\/\/127\.0\.0\.1:\d+)$/m.exec(mock.output())![1]!;
    }, 180_000);
    afterAll(async () => {
      if (mock) await stop(mock.child);
    });

    it("proxy --service finds the project's service by id and records a redacted HAR", async () => {
      const args = ["proxy", "--service", "bookshelf", "--upstream", mockUrl, "--port", "0", "--record", har];
      const proxy = await timed("proxy (start to listening)", () =>
        startUntil(bin, args, project, env, "Ctrl-C stops it", 120_000),
      );
      try {
        const url = /^bookshelf proxy (http:\/\/127\.0\.0\.1:\d+) -> /m.exec(proxy.output())?.[1];
        expect(url, proxy.output()).toBeDefined();
        const auth = { authorization: `Bearer ${TOKEN}` };
        const created = await postBook(url!, auth, { title: "The Left Hand of Darkness", author: "Ursula K. Le Guin" });
        expect(created.status).toBe(201);
        expect((await fetch(`${url}/books?page=1&per_page=5`, { headers: auth })).status).toBe(200);
      } finally {
        expect(await stop(proxy.child)).toBe(0);
      }
      const text = readFileSync(har, "utf8");
      expect(text).not.toContain(TOKEN);
      const entries = (JSON.parse(text) as { log: { entries: Array<{ request: { method: string; url: string } }> } })
        .log.entries;
      expect(entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)).toEqual([
        "POST /books",
        "GET /books",
      ]);
    });

    it("mock bookshelf --replay answers the recorded exchanges", async () => {
      const replay = await timed("mock --replay (start to listening)", () =>
        startUntil(bin, ["mock", "bookshelf", "--port", "0", "--replay", har], project, env, "running on", 120_000),
      );
      try {
        expect(replay.output()).toContain("bookshelf: 2 recorded answers from");
        const url = /^bookshelf mock (http:\/\/127\.0\.0\.1:\d+)$/m.exec(replay.output())![1]!;
        const page = await fetch(`${url}/books?page=1&per_page=5`, {
          headers: { authorization: "Bearer another-token-0123456789" },
        });
        expect(page.status).toBe(200);
        const body = (await page.json()) as { items: Array<{ title: string }> };
        expect(body.items.map((b) => b.title)).toEqual(["The Left Hand of Darkness"]);
      } finally {
        await stop(replay.child);
      }
    });

    it("a call with the user's own connection is logged, its secret redacted where it appears", async () => {
      const connections = join(project, "connections.json");
      const entry = { service: "bookshelf", baseUrl: mockUrl, fields: { accessToken: TOKEN } };
      writeFileSync(connections, JSON.stringify({ shelf: entry }));
      const input = JSON.stringify({ title: `pasted ${TOKEN}`, author: "Frank Herbert" });
      const logged = { STEPFORGE_CALL_LOG: "calls.jsonl" };
      const args = ["call", "bookshelf_create_book", "--connections", connections, "--input", input];
      const called = await timed("call (logged)", () => stepforge(args, logged));
      expect(called.code, say(called)).toBe(0);
      const file = readFileSync(join(project, "calls.jsonl"), "utf8");
      expect(file).toContain('"tool":"bookshelf_create_book"');
      expect(file).toContain("[redacted]");
      expect(file).not.toContain(TOKEN);
    });
  });

  it("call --mock with STEPFORGE_CALL_LOG is logged, and log prints the call", async () => {
    const logged = { STEPFORGE_CALL_LOG: "mock-calls.jsonl" };
    const input = JSON.stringify({ title: "Dune", author: "Frank Herbert" });
    const called = await stepforge(["call", "bookshelf_create_book", "--mock", "--input", input], logged);
    expect(called.code, say(called)).toBe(0);
    const log = await timed("log", () => stepforge(["log"], logged));
    expect(log.code, say(log)).toBe(0);
    expect(log.stdout).toMatch(/ ok +bookshelf_create_book +mock +1 attempt /);
  });

  it("mcp --mock --code: search finds the user's operation and execute runs a program calling it", async () => {
    const found = await timed("mcp --code (Inspector search)", () =>
      inspect(["--code"], ["--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=create a book"]),
    );
    expect(found.code, found.stderr).toBe(0);
    const text = (JSON.parse(found.stdout) as { content: Array<{ text: string }> }).content[0]!.text;
    expect(text).toContain("services.bookshelf.createBook(init: { body: NewBook }): Promise<Book>");
    const code = [
      'const book = await services.bookshelf.createBook({ body: { title: "Dune", author: "Frank Herbert" } });',
      "const page = await services.bookshelf.listBooks();",
      "return { created: book.title, listed: page.items.map((b) => b.title) };",
    ].join("\n");
    const ran = await timed("mcp --code (Inspector execute)", () =>
      inspect(["--code"], ["--method", "tools/call", "--tool-name", "execute", "--tool-arg", `code=${code}`]),
    );
    expect(ran.code, ran.stderr).toBe(0);
    const answer = JSON.parse(ran.stdout) as { isError?: boolean; content: Array<{ text: string }> };
    expect(answer.isError, answer.content[0]!.text).toBeFalsy();
    expect(JSON.parse(answer.content[0]!.text)).toMatchObject({
      result: { created: "Dune", listed: ["Dune"] },
      writes: [{ call: "services.bookshelf.createBook", outcome: "done" }],
    });
  });

  it("mcp --mock --output-schemas lists outputSchema for the user's step; calls have structuredContent", async () => {
    const listed = await timed("mcp --output-schemas (Inspector tools/list)", () =>
      inspect(["--output-schemas"], ["--method", "tools/list"]),
    );
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: Array<{ name: string; outputSchema?: unknown }> }).tools;
    const create = tools.find((t) => t.name === "bookshelf_create_book");
    expect(create?.outputSchema).toMatchObject({ type: "object", properties: { id: { type: "string" } } });
    const called = await inspect(
      ["--output-schemas"],
      [
        "--method",
        "tools/call",
        "--tool-name",
        "bookshelf_create_book",
        "--tool-arg",
        "title=Dune",
        "--tool-arg",
        "author=Herbert",
      ],
    );
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ structuredContent: { title: "Dune", author: "Herbert" } });
  });

  it("diff of the user's spec against an edited copy names the project's steps and the bump", async () => {
    const spec = readFileSync(join(project, "specs", "bookshelf.yaml"), "utf8");
    const edited = spec.replace("required: [title, author]", "required: [title, author, status]");
    expect(edited).not.toBe(spec);
    mkdirSync(join(project, "next"), { recursive: true });
    writeFileSync(join(project, "next", "bookshelf.yaml"), edited);
    const r = await timed("diff", () => stepforge(["diff", "specs/bookshelf.yaml", "next/bookshelf.yaml"]));
    expect(r.code, say(r)).toBe(0);
    expect(r.stdout).toMatch(/^bookshelf: \d+ API changes, 2 breaking — suggested version 2\.0\.0/);
    expect(r.stdout).toMatch(/breaking +tool-field-required +bookshelf_create_book: field status became required/);
    expect(r.stdout).toMatch(/breaking +request-field-required +createBook: request field status: now required/);
  });
});
