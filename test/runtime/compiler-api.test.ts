/**
 * Which TypeScript stepforge's compiler-backed parts use (runtime/internal/compiler-api.ts): the
 * project's own when it has the JavaScript API, ts-morph's copy when the project is on TypeScript 7
 * (the native compiler, whose package answers only its version), and one sentence naming both ways
 * out when neither is there. The projects here are folders in the temporary directory whose
 * `typescript` is a package shaped as TypeScript 7's (its manifest, an entry answering the version);
 * test/project/typescript7.test.ts installs the real one from the registry.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildDeclarations } from "../../runtime/code/declarations.js";
import { operationTypesDeclarations } from "../../runtime/code/load.js";
import { CodeChecker } from "../../runtime/code/typecheck.js";
import { lendCompilerApi, loadCompilerApi, locateCompilerApi } from "../../runtime/internal/compiler-api.js";
import { bundledServices } from "../code/helpers.js";

const repoModules = join(import.meta.dirname, "..", "..", "node_modules");
const folders: string[] = [];

function writePackage(project: string, name: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(project, "node_modules", name, path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
  }
}

/** A project whose typescript is 7.0.2 (no API), with ts-morph linked in or not. */
function typescript7Project(options: { tsMorph: boolean; typescript?: boolean }): string {
  const project = mkdtempSync(join(tmpdir(), "stepforge-ts7-"));
  folders.push(project);
  if (options.typescript !== false) {
    writePackage(project, "typescript", {
      "package.json": JSON.stringify({ name: "typescript", version: "7.0.2", main: "./lib/version.cjs" }),
      "lib/version.cjs": 'module.exports = { version: "7.0.2" };\n',
    });
  }
  // Two packages that require the compiler, as openapi-typescript does.
  for (const name of ["consumer-before", "consumer-after"]) {
    writePackage(project, name, {
      "package.json": JSON.stringify({ name, version: "1.0.0", main: "index.js" }),
      "index.js": 'module.exports = require("typescript");\n',
    });
  }
  if (options.tsMorph) symlinkSync(join(repoModules, "ts-morph"), join(project, "node_modules", "ts-morph"), "dir");
  return project;
}

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe("the compiler with the JavaScript API", () => {
  it("is the project's own typescript when it has one (5.9 here)", () => {
    const found = locateCompilerApi("a feature");
    expect(found).toMatchObject({ from: "typescript", version: "5.9.3" });
    expect(found.file).toMatch(/node_modules\/typescript\/lib\/typescript\.js$/);
    expect(loadCompilerApi("a feature").readLib("lib.es5.d.ts")).toContain("interface Array<T>");
  });

  it("is ts-morph's TypeScript 5.9 in a project on TypeScript 7, with its library files", () => {
    const from = typescript7Project({ tsMorph: true });
    const found = locateCompilerApi("a feature", { from });
    expect(found.from).toBe("ts-morph");
    expect(found.version).toMatch(/^5\.9\./);
    const api = loadCompilerApi("a feature", { from });
    expect(api.ts.version).toBe(found.version);
    expect(typeof api.ts.createProgram).toBe("function");
    expect(api.readLib("lib.es5.d.ts")).toContain("interface Array<T>");
    expect(api.readLib("lib.es2023.array.d.ts")).toContain("findLast");
    expect(api.readLib("lib.nothing.d.ts")).toBeUndefined();
  });

  it("is lent to a package that requires typescript, in this process only", () => {
    const from = typescript7Project({ tsMorph: true });
    const require = createRequire(join(from, "noop.js"));
    // What openapi-typescript met before: TypeScript 7's entry, the version and nothing else.
    expect(require("consumer-before")).toEqual({ version: "7.0.2" });
    const lent = lendCompilerApi("consumer-after", "a feature", { from });
    expect(lent?.from).toBe("ts-morph");
    const got = require("consumer-after") as typeof import("typescript");
    expect(typeof got.factory.createKeywordTypeNode).toBe("function");
    expect(got.version).toMatch(/^5\.9\./);
    // A package whose typescript has the API keeps its own.
    expect(lendCompilerApi("openapi-typescript", "a feature")).toBeUndefined();
  });

  it("checks an agent's code against the bundled declarations with ts-morph's copy", async () => {
    const api = loadCompilerApi("a feature", { from: typescript7Project({ tsMorph: true }) });
    const services = (await bundledServices()).filter((s) => s.catalog.id === "trello");
    const declarations = buildDeclarations(api.ts, {
      services: services.map((s) => ({ id: s.catalog.id, client: s.client, types: s.types })),
      operationTypes: operationTypesDeclarations(),
      methods: new Map([["trello", new Set(["getCard"])]]),
    });
    const checker = new CodeChecker(api.ts, { declarations, accounts: new Map() }, { readLib: api.readLib });
    const card = `const card = await services.trello.getCard({ params: { path: { id: "c" } } });\n`;
    expect(checker.check(`${card}return [card.name].findLast(Boolean);`).ok).toBe(true);
    expect(checker.check(`${card}return card.nam;`)).toMatchObject({
      ok: false,
      diagnostics: [{ line: 2, column: 13, code: "TS2551" }],
    });
  });
});

describe("without one", () => {
  it("names the TypeScript 7 it found and both ways out, in one sentence and its aside", () => {
    const from = typescript7Project({ tsMorph: false });
    expect(() => locateCompilerApi("stepforge generate", { from })).toThrow(
      expect.objectContaining({ name: "CompilerApiError", reason: "native" }),
    );
    expect(() => locateCompilerApi("stepforge generate", { from })).toThrow(
      "stepforge generate needs TypeScript's JavaScript compiler API, and this project's typescript 7.0.2 is " +
        "the native compiler, which has none. Keep it and add ts-morph, whose TypeScript 5.9 stepforge then " +
        "uses: npm install -D ts-morph@27.0.2 (or npm install -D typescript@5.9.3 in its place)",
    );
    // A runtime feature (code mode) says `npm install`, not `-D`.
    expect(() => locateCompilerApi("code mode", { from, dependency: "runtime" })).toThrow(
      /npm install ts-morph@27\.0\.2 \(or npm install typescript@5\.9\.3 in its place\)$/,
    );
  });

  it("asks for the compiler when the project has none", () => {
    const from = typescript7Project({ tsMorph: false, typescript: false });
    expect(() => locateCompilerApi("stepforge diff", { from })).toThrow(
      expect.objectContaining({ name: "CompilerApiError", reason: "missing" }),
    );
    expect(() => locateCompilerApi("stepforge diff", { from })).toThrow(
      "stepforge diff needs the TypeScript compiler, which is not installed; add it to your project: " +
        "npm install -D typescript@5.9.3",
    );
  });
});
