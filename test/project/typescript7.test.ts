/**
 * A project on TypeScript 7 (npm's `latest` since late 2026: the native compiler, with no JavaScript
 * API), from the packed tarball in a folder outside the repository, with the real typescript@7.0.2
 * from the registry (test/project/compiler-project.ts):
 * - stepforge installs beside it with npm's usual peer checks (its optional peer range takes 7);
 * - the README's client code compiles with TypeScript 7's own tsc (strict, nodenext, the package's
 *   declarations checked too) and runs against the mock;
 * - without ts-morph, `init` lists it, and `mcp --code` stops with one sentence naming it; with it,
 *   `mcp --code` type-checks and runs an agent's code for the MCP SDK's stdio client (ts-morph's
 *   TypeScript 5.9);
 * - `diff` compares two versions of a spec with the same compiler;
 * - `generate` writes a spec's code (openapi-typescript is lent the same compiler) and TypeScript 7
 *   compiles it, and `mcp --code` serves the project's own spec; `init` (and `generate`, run before
 *   the install) tells the project to add the README's `overrides` entry, without which npm refuses
 *   openapi-typescript next to TypeScript 7, and with which it installs it as usual.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BOARDS,
  compilerProject,
  OPENAPI_TYPESCRIPT_OVERRIDE,
  readmeClientRuns,
  pinned,
  say,
  type CompilerProject,
} from "./compiler-project.js";

let project: CompilerProject;

beforeAll(async () => {
  project = await compilerProject("7.0.2", { overrides: false });
}, 600_000);

afterAll(async () => {
  await project?.remove();
}, 60_000);

describe("a project on TypeScript 7, from the tarball", { timeout: 240_000, sequential: true }, () => {
  it("compiles the README's client code with TypeScript 7's tsc, and it runs against the mock", async () => {
    await readmeClientRuns(project, 7);
  });

  it("without ts-morph, init says what to add, and mcp --code stops with one sentence naming it", async () => {
    const init = await project.stepforge("init", "--spec", "specs/bookshelf.yaml");
    expect(init.code, say(init)).toBe(0);
    expect(init.stdout).toContain(
      "generate, diff, mcp --code (TypeScript 7 has no compiler API): npm install -D ts-morph@27.0.2",
    );
    expect(init.stdout).toContain(
      'generate, next to typescript 7.0.2: first add "overrides": { "openapi-typescript": { "typescript": ' +
        '"$typescript" } } to package.json (openapi-typescript asks for typescript ^5)',
    );
    const r = await project.stepforge("mcp", "--code", "--mock", "--service", "trello");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "needs TypeScript's JavaScript compiler API, and this project's typescript 7.0.2 is the native compiler, " +
        "which has none. Keep it and add ts-morph, whose TypeScript 5.9 stepforge then uses: npm install " +
        "ts-morph@27.0.2",
    );
    expect(r.stderr).not.toMatch(/TypeError|at .*\.js:\d+|usage:/);
    expect(r.code).toBe(1);
  });

  it("with ts-morph, mcp --code type-checks and runs an agent's code (an MCP client over stdio)", async () => {
    const added = await project.npm("install", "-D", `ts-morph@${pinned["ts-morph"]}`);
    expect(added.code, added.stderr).toBe(0);
    const [ok, wrong] = await project.execute(
      `${BOARDS}return boards.map((b) => b.name).findLast(Boolean);`,
      `${BOARDS}return boards[0]!.nam;`,
    );
    expect(ok!.isError, JSON.stringify(ok!.answer)).toBeFalsy();
    expect(ok!.answer).toMatchObject({ result: expect.any(String), calls: 1 });
    expect(wrong!.isError).toBe(true);
    expect(wrong!.answer).toMatchObject({
      kind: "type_error",
      diagnostics: [{ line: 2, code: "TS2551", message: expect.stringContaining("Did you mean 'name'?") }],
    });
  });

  it("generate writes a spec's code with ts-morph's compiler, tsc 7 compiles it, mcp --code serves it", async () => {
    const tools = ["openapi-typescript", "handlebars"].map((name) => `${name}@${pinned[name]}`);
    // What init said: npm refuses openapi-typescript next to TypeScript 7 until the project says so.
    const refused = await project.npm("install", "-D", ...tools);
    expect(refused.stderr).toContain("ERESOLVE");
    // And generate, run first, says the same before the install it asks for.
    const early = await project.stepforge("generate");
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(
      'add them to your project: first add "overrides": { "openapi-typescript": { "typescript": "$typescript" } } ' +
        `to package.json (openapi-typescript asks for typescript ^5), then npm install -D ${tools.join(" ")}`,
    );
    // So do diff and the code mode over the project's own spec, which need openapi-typescript too.
    const step = 'first add "overrides": { "openapi-typescript": { "typescript": "$typescript" } } to package.json';
    for (const args of [
      ["diff", "specs/bookshelf.yaml", "specs/bookshelf.yaml"],
      ["mcp", "--code", "--mock", "--service", "bookshelf"],
    ]) {
      const r = await project.stepforge(...args);
      expect(r.code, say(r)).toBe(1);
      expect(r.stderr).toContain(`${step} (openapi-typescript asks for typescript ^5), then npm install -D`);
    }
    const manifestFile = join(project.dir, "package.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, overrides: OPENAPI_TYPESCRIPT_OVERRIDE }, null, 2));
    const init = await project.stepforge("init", "--force", "--spec", "specs/bookshelf.yaml");
    expect(init.stdout).not.toContain("overrides");
    const added = await project.npm("install", "-D", ...tools);
    expect(added.code, added.stderr).toBe(0);
    const generated = await project.stepforge("generate");
    expect(generated.code, say(generated)).toBe(0);
    expect(readFileSync(join(project.dir, "src", "stepforge", "bookshelf", "types.ts"), "utf8")).toContain(
      "export interface paths",
    );
    expect((await project.stepforge("generate", "--check")).code).toBe(0);
    writeFileSync(
      join(project.dir, "shelf.ts"),
      [
        'import { BookshelfClient } from "./src/stepforge/bookshelf/index.js";',
        'const shelf = new BookshelfClient({ connection: { name: "x", fields: { accessToken: "t" } }, ' +
          'baseUrl: "http://127.0.0.1:9" });',
        "export const list: () => Promise<unknown> = () => shelf.listBooks({});",
      ].join("\n"),
    );
    await project.compiles();
    // The code mode over the project's own spec: its declarations come from openapi-typescript on
    // the lent compiler, and the agent's code is checked with ts-morph's.
    const [created, wrong] = await project.executeOn(
      "bookshelf",
      'const book = await services.bookshelf.createBook({ body: { title: "Dune", author: "Frank Herbert" } });\n' +
        "return (await services.bookshelf.listBooks()).items.map((b) => b.title).findLast(Boolean);",
      "return (await services.bookshelf.listBooks()).items[0]!.titel;",
    );
    expect(created!.isError, JSON.stringify(created!.answer)).toBeFalsy();
    expect(created!.answer).toMatchObject({
      result: "Dune",
      writes: [{ call: "services.bookshelf.createBook", outcome: "done" }],
    });
    expect(wrong!.answer).toMatchObject({ kind: "type_error", diagnostics: [{ line: 1, code: "TS2551" }] });
  });

  it("diff compares two versions of the spec with ts-morph's compiler (its checker pass included)", async () => {
    const spec = readFileSync(join(project.dir, "specs", "bookshelf.yaml"), "utf8");
    const changed = spec.replace("city: { type: string }", "city: { type: integer }");
    expect(changed).not.toBe(spec);
    writeFileSync(join(project.dir, "specs", "bookshelf-next.yaml"), changed);
    const r = await project.stepforge("diff", "specs/bookshelf.yaml", "specs/bookshelf-next.yaml");
    expect(r.stdout, r.stderr).toMatch(/response-type-changed +getBook.*publisher\.city: string → number/);
  });
});
