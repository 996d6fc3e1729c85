/**
 * One command regenerates everything: after `stepforge generate`, the CLI and the package entries
 * (which run from dist/) see the new output, with no `npm run build` in between.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compileGenerated, staleGeneratedModules } from "../../cli/compile-generated.js";
import { packageRoot } from "../../generator/package-root.js";

const root = packageRoot();
const work = mkdtempSync(join(tmpdir(), "stepforge-dist-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("compileGenerated", () => {
  const project = join(work, "unit");
  const source = join(project, "generated", "svc", "a.ts");
  const compiled = join(project, "dist", "generated", "svc", "a.js");
  mkdirSync(join(project, "generated", "svc"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    join(project, "tsconfig.build.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        declaration: true,
        rootDir: ".",
        outDir: "dist",
        types: [],
      },
      include: ["generated"],
    }),
  );

  it("compiles a module whose JavaScript is missing, then nothing while it is in step", async () => {
    writeFileSync(source, "export const answer: number = 1;\n");
    expect(await compileGenerated(project)).toEqual({ compiled: ["generated/svc/a.ts"], removed: [] });
    expect(await import(`${compiled}?1`)).toEqual(expect.objectContaining({ answer: 1 }));
    expect(existsSync(compiled.replace(/\.js$/, ".d.ts"))).toBe(true);
    expect(staleGeneratedModules(project)).toEqual([]);
    expect(await compileGenerated(project)).toEqual({ compiled: [], removed: [] });
  });

  it("loads no TypeScript when every module is in step (the no-change rerun stays cheap)", () => {
    // A process of its own, so the module cache says what this call loaded (the built module, as
    // the CLI runs it).
    const built = pathToFileURL(join(root, "dist", "cli", "compile-generated.js")).href;
    const script = [
      `import { createRequire } from "node:module";`,
      `const { compileGenerated } = await import(${JSON.stringify(built)});`,
      `const sync = await compileGenerated(${JSON.stringify(project)});`,
      `const files = Object.keys(createRequire(process.cwd() + "/").cache);`,
      `const loaded = files.some((f) => f.includes("/node_modules/typescript/"));`,
      `console.log(JSON.stringify({ sync, loaded }));`,
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ sync: { compiled: [], removed: [] }, loaded: false });
  });

  it("loads the compiler once, by require: openapi-typescript and ts-blank-space get that instance", () => {
    // The built modules, as the CLI runs them. An ES import of `typescript` (openapi-typescript's ES
    // build, ts-blank-space) makes Node scan the 9 MB file before running it; NODE_DEBUG=esm names
    // each file the ES loader stores. The compiled JavaScript is still ts-blank-space's (columns kept).
    const dist = pathToFileURL(join(root, "dist")).href;
    const module = join(work, "once", "generated", "svc", "a.ts");
    cpSync(join(project, "package.json"), join(work, "once", "package.json"));
    cpSync(join(project, "tsconfig.build.json"), join(work, "once", "tsconfig.build.json"));
    mkdirSync(dirname(module), { recursive: true });
    writeFileSync(module, "export const answer: number = 1;\n");
    const script = [
      `const { emitTypes } = await import("${dist}/generator/emit/types.js");`,
      `const { compileGenerated } = await import("${dist}/cli/compile-generated.js");`,
      `const typesDocument = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} };`,
      `const model = { id: "svc", typesDocument, spec: { file: "svc.yaml" } };`,
      `const [types] = await emitTypes(model, { specLabel: "svc.yaml", runtimeImport: "" });`,
      `const sync = await compileGenerated(${JSON.stringify(join(work, "once"))});`,
      `console.log(JSON.stringify({ types: types.path, sync }));`,
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, NODE_DEBUG: "esm" },
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      types: "svc/types.ts",
      sync: { compiled: ["generated/svc/a.ts"], removed: [] },
    });
    const stored = run.stderr.split("\n").filter((line) => /Storing .*in ModuleLoadMap/.test(line));
    expect(stored.some((line) => line.includes("ts-blank-space"))).toBe(true);
    expect(stored.filter((line) => /\/node_modules\/typescript\//.test(line))).toEqual([]);
    expect(readFileSync(join(work, "once", "dist", "generated", "svc", "a.js"), "utf8")).toBe(
      "export const answer         = 1;\n",
    );
  });

  it("recompiles a module whose source is newer than its JavaScript", async () => {
    writeFileSync(source, "export const answer: number = 2;\n");
    const later = new Date(Date.now() + 60_000);
    utimesSync(source, later, later);
    expect((await compileGenerated(project)).compiled).toEqual(["generated/svc/a.ts"]);
    expect(await import(`${compiled}?2`)).toEqual(expect.objectContaining({ answer: 2 }));
  });

  it("removes the compiled files of a module that is no longer generated", async () => {
    rmSync(source);
    const result = await compileGenerated(project);
    expect(result.compiled).toEqual([]);
    expect(result.removed.sort()).toEqual(["dist/generated/svc/a.d.ts", "dist/generated/svc/a.js"]);
    expect(existsSync(compiled)).toBe(false);
  });

  it("names the problem, and writes nothing, when a generated module has a syntax error", async () => {
    writeFileSync(source, "export const broken: number = ;\n");
    await expect(compileGenerated(project)).rejects.toThrow(
      /compiling generated code into dist\/ failed \(1 problem\): generated\/svc\/a\.ts:1: Expression expected/,
    );
    expect(existsSync(compiled)).toBe(false);
  });

  it("takes a module of types only (types.ts) as its own .d.ts, with nothing to run", async () => {
    const types =
      '// header\nexport interface paths {\n  "/a": { get: { id: string } };\n}\nexport type Id = paths["/a"];\n';
    writeFileSync(source, types);
    expect(await compileGenerated(project)).toEqual({ compiled: ["generated/svc/a.ts"], removed: [] });
    expect(readFileSync(compiled.replace(/\.js$/, ".d.ts"), "utf8")).toBe(types);
    expect(readFileSync(compiled, "utf8")).toBe("export {};\n");
    // A value beside the types: compiled as any module (its .d.ts emitted, its JavaScript blanked).
    const fresh = (text: string) => {
      writeFileSync(source, text);
      for (const out of [compiled, compiled.replace(/\.js$/, ".d.ts")]) rmSync(out, { force: true });
    };
    fresh(`${types}export const version: string = "1";\n`);
    await compileGenerated(project);
    expect(readFileSync(compiled.replace(/\.js$/, ".d.ts"), "utf8")).toContain("export declare const version: string;");
    // A syntax error in a module of types is still refused, naming the place.
    fresh("export interface paths {\n  a: string\n");
    await expect(compileGenerated(project)).rejects.toThrow(/generated\/svc\/a\.ts:\d+: '}' expected/);
  });

  it("refuses an export whose type the emitter did not write (its .d.ts would need a type-checker)", async () => {
    writeFileSync(source, "const hidden = { a: 1 };\nexport const inferred = hidden;\n");
    await expect(compileGenerated(project)).rejects.toThrow(
      new RegExp(
        "generated/svc/a\\.ts:2: Variable must have an explicit type annotation with --isolatedDeclarations\\." +
          ".*the emitter must write the type of each exported value",
      ),
    );
    expect(existsSync(compiled)).toBe(false);
  });
});

describe("stepforge generate in a checkout", () => {
  it("after a new operation in specs/trello.yaml, tools list and the package entry see it at once", () => {
    // A copy of the checkout (timestamps kept, so only what generate changes is newer than dist/).
    const checkout = join(work, "checkout");
    for (const path of [
      "bin",
      "cli",
      "dist",
      "generated",
      "generator",
      "runtime",
      "specs",
      "templates",
      "package.json",
      "tsconfig.json",
      "tsconfig.build.json",
      ".spectral.yaml",
    ]) {
      cpSync(join(root, path), join(checkout, path), { recursive: true, preserveTimestamps: true });
    }
    symlinkSync(join(root, "node_modules"), join(checkout, "node_modules"), "dir");
    const specPath = join(checkout, "specs", "trello.yaml");
    const operation = [
      "  /1/boards/{id}/memberships:",
      "    parameters:",
      '      - $ref: "#/components/parameters/BoardIdPath"',
      "    get:",
      "      operationId: getBoardMemberships",
      "      summary: List the memberships of a board",
      "      description: Returns who belongs to the board.",
      "      tags: [boards]",
      "      x-stepforge-tool:",
      "        description: List who belongs to a Trello board.",
      "      responses:",
      '        "200":',
      "          description: The memberships.",
      "          content:",
      "            application/json:",
      "              schema: { type: array, items: { type: object } }",
      "              example: []",
      "",
    ].join("\n");
    const spec = readFileSync(specPath, "utf8");
    expect(spec).toContain("  /1/boards/{id}/labels:\n");
    writeFileSync(specPath, spec.replace("  /1/boards/{id}/labels:\n", `${operation}  /1/boards/{id}/labels:\n`));

    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(checkout, "bin", "stepforge.js"), ...args], {
        cwd: checkout,
        encoding: "utf8",
      });
    const generate = cli("generate");
    expect(generate.stderr).toBe("");
    expect(generate.status).toBe(0);
    expect(generate.stdout).toMatch(/compiled \d+ generated modules? into dist\//);

    const tools = cli("tools", "list", "--service", "trello");
    expect(tools.stdout).toContain("trello_get_board_memberships");
    const entry = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(join(checkout, "dist", "generated", "trello", "index.js"))}); ` +
          `console.log(typeof m.TrelloClient.prototype.getBoardMemberships)`,
      ],
      {
        encoding: "utf8",
      },
    );
    expect(entry.stdout.trim()).toBe("function");

    // Nothing left to compile on the next run.
    const again = cli("generate");
    expect(again.stdout).not.toContain("compiled");
  });
});
