/**
 * A project on TypeScript 7 (npm's `latest` since late 2026: the native compiler, with no JavaScript
 * API), from the packed tarball in a folder outside the repository, with the real typescript@7.0.2
 * from the registry:
 * - stepforge installs beside it with npm's usual peer checks (its optional peer range takes 7);
 * - the README's client code compiles with TypeScript 7's own tsc (strict, nodenext, the package's
 *   declarations checked too) and runs against the mock;
 * - without ts-morph, `init` lists it, and `mcp --code` stops with one sentence naming it; with it,
 *   `mcp --code` type-checks and runs an agent's code through the MCP Inspector's CLI (ts-morph's
 *   TypeScript 5.9);
 * - `generate` writes a spec's code (openapi-typescript is lent the same compiler) and TypeScript 7
 *   compiles it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { outsideEnv, run, type Run } from "../consumer/helpers.js";
import { packedTarball } from "../helpers/tarball.js";
import { BOOKSHELF } from "./helpers.js";

const root = packageRoot();
const env = outsideEnv(root);
const work = mkdtempSync(join(tmpdir(), "stepforge-ts7-"));
const project = join(work, "ts7-app");
const bin = join(project, "node_modules", ".bin", "stepforge");
const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
const inspector = join(root, "node_modules", ".bin", "mcp-inspector");
const say = (r: Run) => `${r.stdout}\n${r.stderr}`;
const stepforge = (...args: string[]) => run(bin, args, project, env);
const npm = (...args: string[]) => run("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund"], project, env);
const pinned = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies;

const TRELLO_FIELDS = `{ apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" }`;

beforeAll(async () => {
  const packed = await packedTarball();
  mkdirSync(join(project, "specs"), { recursive: true });
  copyFileSync(BOOKSHELF, join(project, "specs", "bookshelf.yaml"));
  const manifest = {
    name: "ts7-app",
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: {
      stepforge: `file:${packed.tarball}`,
      "quickjs-emscripten": pinned["quickjs-emscripten"],
      "@modelcontextprotocol/sdk": pinned["@modelcontextprotocol/sdk"],
    },
    devDependencies: { typescript: "7.0.2", "@types/node": pinned["@types/node"] },
  };
  writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", target: "es2022", outDir: "out", types: ["node"] },
      include: ["*.ts", "src"],
    }),
  );
  // npm's usual peer checks: before the range took 7, this failed with ERESOLVE.
  const install = await npm("install");
  expect(install.code, install.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
}, 60_000);

describe("a project on TypeScript 7, from the tarball", { timeout: 240_000, sequential: true }, () => {
  it("compiles the README's client code with TypeScript 7's tsc, and it runs against the mock", async () => {
    const version = await run(process.execPath, [tsc, "--version"], project, env);
    expect(version.stdout).toMatch(/^Version 7\./);
    writeFileSync(
      join(project, "app.ts"),
      [
        'import { AuthError } from "stepforge/runtime";',
        'import { executeToolByName } from "stepforge/runtime/tools";',
        'import { TrelloClient, tools } from "stepforge/trello";',
        'import { startTrelloMock } from "stepforge/trello/mock";',
        "const mock = await startTrelloMock();",
        `const connection = { name: "work", fields: ${TRELLO_FIELDS} };`,
        "const trello = new TrelloClient({ connection, baseUrl: mock.url });",
        "try {",
        '  const [board] = await trello.getMemberBoards({ params: { path: { id: "me" } } });',
        "  const [list] = await trello.getBoardLists({ params: { path: { id: board!.id } } });",
        '  const card = await trello.createCard({ body: { idList: list!.id, name: "Write the report" } });',
        '  const step = await executeToolByName(tools, "trello_get_boards", { filter: "open" }, ' +
          "{ connection, baseUrl: mock.url });",
        "  console.log(card.name, step.ok);",
        "} catch (error) {",
        '  if (error instanceof AuthError) console.error("check the key and token:", error.message);',
        "  else throw error;",
        "} finally {",
        "  await mock.close();",
        "}",
      ].join("\n"),
    );
    const compiled = await run(process.execPath, [tsc, "-p", "."], project, env);
    expect(say(compiled).trim()).toBe("");
    expect(compiled.code).toBe(0);
    const ran = await run(process.execPath, [join("out", "app.js")], project, env);
    expect(ran.stdout.trim(), ran.stderr).toBe("Write the report true");
  });

  it("without ts-morph, init says what to add, and mcp --code stops with one sentence naming it", async () => {
    const init = await stepforge("init", "--spec", "specs/bookshelf.yaml");
    expect(init.code, say(init)).toBe(0);
    expect(init.stdout).toContain(
      "generate, diff, mcp --code (TypeScript 7 has no compiler API): npm install -D ts-morph@27.0.2",
    );
    const r = await stepforge("mcp", "--code", "--mock", "--service", "trello");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "needs TypeScript's JavaScript compiler API, and this project's typescript 7.0.2 is the native compiler, " +
        "which has none. Keep it and add ts-morph, whose TypeScript 5.9 stepforge then uses: npm install " +
        "ts-morph@27.0.2",
    );
    expect(r.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
  });

  it("with ts-morph, mcp --code type-checks and runs an agent's code (MCP Inspector CLI)", async () => {
    const added = await npm("install", "-D", `ts-morph@${pinned["ts-morph"]}`);
    expect(added.code, added.stderr).toBe(0);
    const execute = (code: string) =>
      run(
        process.execPath,
        [
          inspector,
          "--cli",
          process.execPath,
          bin,
          "mcp",
          "--code",
          "--mock",
          "--service",
          "trello",
          "--method",
          "tools/call",
          "--tool-name",
          "execute",
          "--tool-arg",
          `code=${code}`,
        ],
        project,
        env,
      );
    const boards = 'const boards = await services.trello.getMemberBoards({ params: { path: { id: "me" } } });\n';
    const ok = await execute(`${boards}return boards.map((b) => b.name).findLast(Boolean);`);
    expect(ok.code, ok.stderr).toBe(0);
    const answer = JSON.parse(ok.stdout) as { isError?: boolean; content: Array<{ text: string }> };
    expect(answer.isError, ok.stdout).toBeFalsy();
    expect(JSON.parse(answer.content[0]!.text)).toMatchObject({ result: expect.any(String), calls: 1 });
    const wrong = await execute(`${boards}return boards[0]!.nam;`);
    const refused = JSON.parse(wrong.stdout) as { isError?: boolean; content: Array<{ text: string }> };
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text)).toMatchObject({
      kind: "type_error",
      diagnostics: [{ line: 2, code: "TS2551", message: expect.stringContaining("Did you mean 'name'?") }],
    });
  });

  it("generate writes a spec's code with ts-morph's compiler, and TypeScript 7 compiles it", async () => {
    // openapi-typescript's own peer range (typescript ^5) is what needs --legacy-peer-deps here.
    const tools = ["openapi-typescript", "handlebars"].map((name) => `${name}@${pinned[name]}`);
    const added = await npm("install", "-D", ...tools, "--legacy-peer-deps");
    expect(added.code, added.stderr).toBe(0);
    const generated = await stepforge("generate");
    expect(generated.code, say(generated)).toBe(0);
    expect(readFileSync(join(project, "src", "stepforge", "bookshelf", "types.ts"), "utf8")).toContain(
      "export interface paths",
    );
    expect((await stepforge("generate", "--check")).code).toBe(0);
    writeFileSync(
      join(project, "shelf.ts"),
      [
        'import { BookshelfClient } from "./src/stepforge/bookshelf/index.js";',
        'const shelf = new BookshelfClient({ connection: { name: "x", fields: { accessToken: "t" } }, ' +
          'baseUrl: "http://127.0.0.1:9" });',
        "export const list: () => Promise<unknown> = () => shelf.listBooks({});",
      ].join("\n"),
    );
    const compiled = await run(process.execPath, [tsc, "-p", "."], project, env);
    expect(say(compiled).trim()).toBe("");
    expect(compiled.code).toBe(0);
  });
});
