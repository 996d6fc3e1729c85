/**
 * A new user's first hour (issue 19), from the packed tarball in a project outside the repository:
 * install stepforge and the generator's peers, `init`, `generate` from the config, compile the
 * output, `lint`, the mock over HTTP on loopback, `call --mock`, `tools list`, and `mcp --mock`
 * through the MCP Inspector's CLI, on (a) a plain spec written for the test (bookshelf.yaml) and
 * (b) a public spec of the corpus (World News API's own document, as specs/news.json). Then what
 * a user of the package needs beyond it: `require("stepforge/…")` from CommonJS, the per-service
 * READMEs, and an MCP client entry started from another folder.
 *
 * The mock's behaviour for a plain spec (create then read, 404 after delete, the declared list
 * envelope, issue 19 item 3) and lint's leniency for plain specs (item 4) are checked here too.
 *
 * Each step is timed; the figures print at the end (the new-user flow of the report).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { BROKEN, outsideEnv, run, startUntil, stop, type Run } from "../consumer/helpers.js";
import { packedTarball, writeAppManifest } from "../helpers/tarball.js";
import { BOOKSHELF, postBook, PUBLIC_SPEC } from "./helpers.js";
import { stageTimes } from "../helpers/stage-times.js";

const root = packageRoot();
const env = outsideEnv(root);
const work = mkdtempSync(join(tmpdir(), "stepforge-new-user-"));
const project = join(work, "shelf-app");
const elsewhere = join(work, "elsewhere");
const bin = join(project, "node_modules", ".bin", "stepforge");
const inspector = join(root, "node_modules", ".bin", "mcp-inspector");
const { times, timed } = stageTimes();

const stepforge = (...args: string[]) => run(bin, args, project, env);
const say = (r: Run) => `${r.stdout}\n${r.stderr}`;

/** The credentials a generated mock accepts, read from its mock.ts (JSON text inside). */
function mockCredentials(id: string): Record<string, string> {
  const text = readFileSync(join(project, "src", "stepforge", id, "mock.ts"), "utf8");
  return JSON.parse(/"credentials": (\{[^}]*\})/.exec(text)![1]!) as Record<string, string>;
}

beforeAll(async () => {
  const packed = await timed("pack (shared; 0 when cached)", () => packedTarball());
  mkdirSync(join(project, "specs"), { recursive: true });
  mkdirSync(elsewhere);
  copyFileSync(BOOKSHELF, join(project, "specs", "bookshelf.yaml"));
  copyFileSync(PUBLIC_SPEC, join(project, "specs", "news.json"));
  // What the README tells a spec author to add: the generator's peers, and the MCP SDK for `mcp`.
  const peers = [
    "openapi-typescript",
    "handlebars",
    "@stoplight/spectral-cli",
    "typescript",
    "@modelcontextprotocol/sdk",
  ];
  writeAppManifest(project, "shelf-app", packed.tarball, peers);
  const install = await timed("install", () =>
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], project, env),
  );
  expect(install.code, install.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  console.log(`new-user flow (s): ${JSON.stringify(times)}`);
  await rm(work, { recursive: true, force: true });
}, 60_000);

describe("a new user's project, from the tarball", { timeout: 240_000, sequential: true }, () => {
  it("init writes stepforge.config.ts for the specs it finds; ids from the file names", async () => {
    const r = await timed("init", () => stepforge("init"));
    expect(r.code, say(r)).toBe(0);
    expect(r.stdout).toContain("bookshelf (specs/bookshelf.yaml), news (specs/news.json)");
    // What the project has not installed yet, each with the command that adds it; not what it has.
    expect(r.stdout).toContain("migrate: npm install -D ts-morph@27.0.2");
    expect(r.stdout).toContain("mcp --code: npm install quickjs-emscripten@0.32.0");
    expect(r.stdout).not.toContain("openapi-typescript@");
    expect(readFileSync(join(project, "stepforge.config.ts"), "utf8")).toContain('from "stepforge/config"');
    expect((await stepforge("init")).code).toBe(2);
  });

  it("generate (no arguments) generates the project from its TypeScript config, and the output compiles", async () => {
    const r = await timed("generate", () => stepforge("generate"));
    expect(r.code, say(r)).toBe(0);
    expect(r.stdout).toMatch(/generated bookshelf \(5 operations\), news \(\d+ operations\) into .*src\/stepforge/);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ["src", "stepforge.config.ts"],
      }),
    );
    const tsc = await timed("tsc (generated code + config)", () =>
      run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project, env),
    );
    expect(say(tsc).trim()).toBe("");
    expect(tsc.code).toBe(0);
  });

  it("lint lints the project's two specs, not the package's four", async () => {
    const r = await timed("lint", () => stepforge("lint"));
    expect(r.stdout).toMatch(/2 specs linted \(.*stepforge\.config\.ts\)/);
    expect(r.stdout).toContain("specs/bookshelf.yaml");
    expect(r.stdout).not.toContain("trello.yaml");
    expect(say(r)).not.toMatch(BROKEN);
  });

  // Item 4 (helper diagnostics): rules only stepforge's own specs must follow are warnings for a plain spec.
  it("lint accepts the plain spec generate accepted (exit 0)", async () => {
    const r = await stepforge("lint", "--spec", "specs/bookshelf.yaml");
    expect(r.code, say(r)).toBe(0);
  });

  it("tools list shows both services' steps", async () => {
    const r = await timed("tools list", () => stepforge("tools", "list"));
    expect(r.code, say(r)).toBe(0);
    expect(r.stdout).toContain("bookshelf_create_book");
    expect(r.stdout).toContain("news_search_news");
    expect(r.stdout).not.toContain("trello_");
  });

  it("call --mock runs a step of each against its mock in the process", async () => {
    const created = await timed("call --mock", () =>
      stepforge(
        "call",
        "bookshelf_create_book",
        "--mock",
        "--input",
        JSON.stringify({
          title: "Snow Crash",
          author: "Neal Stephenson",
          status: "available",
          publisher: { name: "Bantam" },
        }),
      ),
    );
    expect(created.code, say(created)).toBe(0);
    expect(JSON.parse(created.stdout).ok).toBe(true);
    const news = await stepforge(
      "call",
      "news_get_geo_coordinates",
      "--mock",
      "--input",
      JSON.stringify({ location: "Berlin" }),
    );
    expect(news.code, say(news)).toBe(0);
    expect(JSON.parse(news.stdout).data).toHaveProperty("latitude");
  });

  describe("the mock over HTTP on 127.0.0.1", () => {
    let url = "";
    let child: Awaited<ReturnType<typeof startUntil>>["child"] | undefined;
    let auth: Record<string, string> = {};
    let mockOutput = "";
    const json = { "content-type": "application/json" };

    beforeAll(async () => {
      const started = await timed("mock (start to listening)", () =>
        startUntil(bin, ["mock", "all", "--port", "0"], project, env, "running on", 120_000),
      );
      child = started.child;
      mockOutput = started.output();
      url = /^bookshelf mock (http:\/\/127\.0\.0\.1:\d+)$/m.exec(mockOutput)![1]!;
      auth = { authorization: `Bearer ${mockCredentials("bookshelf").accessToken}` };
    }, 180_000);
    afterAll(async () => {
      if (child) await stop(child);
    });

    it("answers: 401 without a credential, created and listed with one", async () => {
      expect((await fetch(`${url}/books`)).status).toBe(401);
      const created = await postBook(url, auth, { title: "Snow Crash", author: "Neal Stephenson" });
      expect(created.status).toBeLessThan(300);
      expect((await fetch(`${url}/books?page=1&per_page=5`, { headers: auth })).status).toBe(200);
    });

    // Item 3 (helper mockinfer): the mock infers create/read/update/delete from the REST shape.
    it("create then read returns what was created; update changes it; 404 after delete", async () => {
      const posted = await postBook(url, auth, { title: "Snow Crash", author: "Neal Stephenson" });
      const created = (await posted.json()) as { id: string; title: string };
      expect(created.title).toBe("Snow Crash");
      const read = (await (await fetch(`${url}/books/${created.id}`, { headers: auth })).json()) as { title: string };
      expect(read.title).toBe("Snow Crash");
      const patched = await fetch(`${url}/books/${created.id}`, {
        method: "PATCH",
        headers: { ...auth, ...json },
        body: JSON.stringify({ status: "borrowed" }),
      });
      expect(((await patched.json()) as { status: string }).status).toBe("borrowed");
      expect((await fetch(`${url}/books/${created.id}`, { method: "DELETE", headers: auth })).status).toBeLessThan(300);
      expect((await fetch(`${url}/books/${created.id}`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${url}/books/nope`, { headers: auth })).status).toBe(404);
    });

    // Item 3 (helper mockinfer): lists answer in the declared envelope, with what was stored.
    it("the list is the declared {items, total} envelope holding the created book", async () => {
      await fetch(`${url}/books`, {
        method: "POST",
        headers: { ...auth, ...json },
        body: JSON.stringify({ title: "Anathem", author: "Neal Stephenson" }),
      });
      const page = (await (await fetch(`${url}/books?per_page=100`, { headers: auth })).json()) as {
        items: Array<{ title: string }>;
        total: number;
      };
      expect(page.items.map((b) => b.title)).toContain("Anathem");
      expect(page.total).toBe(page.items.length);
    });

    it("the public spec's mock answers its own operation, with the key where the spec puts it", async () => {
      const news = /^news mock (http:\/\/127\.0\.0\.1:\d+)$/m.exec(mockOutput)![1]!;
      expect((await fetch(`${news}/geo-coordinates?location=Berlin`)).status).toBe(401);
      const key = encodeURIComponent(mockCredentials("news").apiKey!);
      const answer = await fetch(`${news}/geo-coordinates?location=Berlin&api-key=${key}`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toHaveProperty("latitude");
    });
  });

  it("mcp --mock serves both services to the MCP Inspector's CLI", async () => {
    const listed = await timed("mcp --mock (Inspector tools/list)", () =>
      run(
        process.execPath,
        [inspector, "--cli", process.execPath, bin, "mcp", "--mock", "--method", "tools/list"],
        project,
        env,
      ),
    );
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["bookshelf_create_book", "bookshelf_list_books", "news_search_news"]),
    );
    const called = await run(
      process.execPath,
      [
        inspector,
        "--cli",
        process.execPath,
        bin,
        "mcp",
        "--mock",
        "--method",
        "tools/call",
        "--tool-name",
        "news_get_geo_coordinates",
        "--tool-arg",
        "location=Berlin",
      ],
      project,
      env,
    );
    expect(called.code, called.stderr).toBe(0);
    expect((JSON.parse(called.stdout) as { isError?: boolean }).isError).toBeFalsy();
  });

  it("the Claude Desktop entry of mcp --print-config works when the client starts it from another folder", async () => {
    const printed = await stepforge("mcp", "--print-config", "claude", "--mock");
    expect(printed.code, say(printed)).toBe(0);
    const entry = (JSON.parse(printed.stdout) as { mcpServers: { stepforge: { command: string; args: string[] } } })
      .mcpServers.stepforge;
    expect(entry.args).toEqual(expect.arrayContaining(["--project", project]));
    // The Inspector starts the server as a client would, from its own folder.
    const listed = await run(
      process.execPath,
      [inspector, "--cli", entry.command, ...entry.args, "--method", "tools/list"],
      elsewhere,
      env,
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("bookshelf_create_book");
  });

  it("require() of the package's entries works from a CommonJS module (Node >= 20.19)", async () => {
    writeFileSync(
      join(project, "check.cjs"),
      [
        'const runtime = require("stepforge/runtime");',
        'const { defineConfig } = require("stepforge/config");',
        'const { startMock } = require("stepforge/runtime/mock");',
        'const { tools } = require("stepforge/worldnews");',
        "console.log(typeof runtime.createServiceClient, typeof defineConfig, typeof startMock, tools.length > 0);",
      ].join("\n"),
    );
    const r = await run(process.execPath, ["check.cjs"], project, env);
    expect(r.stderr).not.toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
    expect(r.stdout.trim()).toBe("function function function true");
    expect(r.code).toBe(0);
  });

  it("ships the per-service READMEs the root README points to", () => {
    for (const id of ["contentsnare", "marketo", "trello", "worldnews"]) {
      expect(existsSync(join(project, "node_modules", "stepforge", "generated", id, "README.md")), id).toBe(true);
    }
    expect(readFileSync(join(project, "src", "stepforge", "bookshelf", "README.md"), "utf8")).toContain(
      "npx stepforge mock bookshelf",
    );
  });

  it("generate without a config says how to start one", async () => {
    const r = await run(bin, ["generate"], elsewhere, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("stepforge init --spec FILE");
  });
});
