/**
 * Property: hostile text anywhere in a spec (comment closers, backticks, `${}`, quotes, CR-LF,
 * U+2028, reserved words, `then`, `__proto__`, `constructor`, code) never becomes code. For random
 * specs carrying such strings in every text field and name — title, descriptions, summaries,
 * operationIds, parameter, property, schema and security-scheme names, enum values, examples, a
 * path segment and the spec's file name — every generated module parses, declares exactly the
 * names the model predicts, type-checks under strict settings, and importing it runs nothing
 * but the module (a child process imports every module and must print only "imported").
 *
 * Cost: generation is cheap, so the property runs a dozen cases; tsc and the import run once over
 * all of them.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { generate, write } from "../../generator/pipeline.js";
import { typecheckGenerated } from "../helpers/tsc.js";

const root = packageRoot();
const work = join(root, "test", ".tmp", "hostile");

const PIECES = [
  "*/",
  "/*",
  "/**",
  "`",
  "${process.exit(7)}",
  '"',
  "'",
  "\\",
  "\r\n",
  "\n",
  "\r",
  "\u2028",
  "\u2029",
  "then",
  "constructor",
  "__proto__",
  "class",
  "default",
  "prototype",
  "process.exit(7);",
  "-->",
  "<!--",
  " ",
  "a",
  "Get",
  "get",
  "1",
  "é",
  "{}",
  "@param",
  "#",
  "?",
  "%",
];
const hostile = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));

const texts = fc.record({
  title: hostile,
  version: hostile,
  description: hostile,
  summary: hostile,
  opId: hostile,
  opId2: hostile,
  param: hostile,
  paramText: hostile,
  prop: hostile,
  propText: hostile,
  schemaName: hostile.map((s) => s.replace(/[~/%]/g, "")),
  enumValue: hostile,
  example: hostile,
  response: hostile,
  scheme: hostile,
  header: hostile.map((s) => s.replace(/[^\x21-\x7e]/g, "") || "x-key"),
  // A "%" that starts no escape is refused (SF110), braces would declare parameters.
  segment: hostile.map((s) => s.replace(/[{}/?#%]/g, "")),
  pattern: hostile,
  file: hostile.map((s) => s.replace(/[/\0]/g, "")),
});
type Texts = typeof texts extends fc.Arbitrary<infer T> ? T : never;

/** A foreign spec (no x-stepforge, so names are repaired, not refused) with `t` in every text slot. */
function hostileSpec(t: Texts): string {
  const properties: Record<string, unknown> = {
    [t.prop]: {
      type: "string",
      description: t.propText,
      enum: [t.enumValue, "plain"],
      example: t.example,
      pattern: t.pattern,
    },
    constructor: { type: "string", description: t.propText },
  };
  Object.defineProperty(properties, "__proto__", { value: { type: "integer", default: 1 }, enumerable: true });
  const schemaRef = `#/components/schemas/${encodeURIComponent(t.schemaName).replace(/%2F/g, "~1")}`;
  const json = { $ref: schemaRef };
  const doc = {
    openapi: "3.1.0",
    info: { title: t.title, version: t.version, description: t.description },
    servers: [{ url: "https://api.example.test" }],
    security: [{ [t.scheme]: [] }],
    components: {
      securitySchemes: { [t.scheme]: { type: "apiKey", in: "header", name: t.header, description: t.description } },
      schemas: { [t.schemaName]: { type: "object", description: t.description, properties } },
    },
    paths: {
      [`/items/${t.segment}/{id}`]: {
        get: {
          operationId: t.opId,
          summary: t.summary,
          description: t.description,
          parameters: [
            {
              name: t.param,
              in: "query",
              description: t.paramText,
              schema: { type: "string", pattern: t.pattern },
              example: t.example,
            },
          ],
          responses: {
            "200": {
              description: t.response,
              content: { "application/json": { schema: json, example: { [t.prop]: t.example } } },
            },
          },
        },
        post: {
          operationId: t.opId2,
          summary: t.summary,
          requestBody: {
            required: true,
            description: t.description,
            content: { "application/json": { schema: json } },
          },
          responses: { "201": { description: t.response, content: { "application/json": { schema: json } } } },
        },
      },
      "/then": { get: { operationId: "then", summary: t.summary, responses: { "204": { description: t.response } } } },
      "/other": {
        get: {
          operationId: t.opId,
          responses: { "200": { description: t.response, content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
    },
  };
  return JSON.stringify(doc, null, 1);
}

/**
 * Top-level statements of a module: the names it declares (imports included), and anything that is not a declaration.
 */
function topLevel(
  file: string,
  text: string,
): { names: string[]; exported: string[]; other: string[]; parseErrors: number } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const names: string[] = [];
  const exported: string[] = [];
  const other: string[] = [];
  const isExported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.push(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => e.name.text));
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        names.push(d.name.getText(source));
        if (isExported(statement)) exported.push(d.name.getText(source));
      }
    } else if (
      ts.isTypeAliasDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isFunctionDeclaration(statement)
    ) {
      const name = statement.name?.text ?? "";
      names.push(name);
      if (isExported(statement)) exported.push(name);
    } else if (ts.isExportDeclaration(statement)) {
      // re-exports of the index modules
    } else {
      other.push(ts.SyntaxKind[statement.kind]);
    }
  }
  const parseErrors = (source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length;
  return { names, exported, other, parseErrors };
}

const dirs: string[] = [];

beforeAll(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("hostile text in a spec never becomes code", () => {
  it("every generated module parses and declares exactly the names the model predicts", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(texts, async (t) => {
        const caseDir = join(work, `case${n++}`);
        mkdirSync(caseDir, { recursive: true });
        const specFile = join(caseDir, `${t.file}.json`);
        writeFileSync(specFile, hostileSpec(t));
        const out = join(caseDir, "out");
        const result = await generate({ specFiles: [specFile], outDir: out, projectRoot: root, serviceId: "hostile" });
        write(out, result.files, { wholeOutDir: false });
        dirs.push(out);
        const model = result.models[0]!;
        // Repairs are warnings with a place; `then` is never a method.
        expect(model.operations.map((o) => o.operationId)).not.toContain("then");
        for (const w of result.warnings) expect(w.pointer).toMatch(/^\//);
        for (const file of result.files.filter((f) => f.path.endsWith(".ts"))) {
          const shape = topLevel(file.path, file.content);
          expect(shape.parseErrors, file.path).toBe(0);
          expect(shape.other, file.path).toEqual([]);
          expect(new Set(shape.names).size, `${file.path}: ${shape.names.join(", ")}`).toBe(shape.names.length);
          const base = file.path.split("/").pop();
          if (base === "client.ts") expect(shape.exported).toHaveLength(model.operations.length * 3 + 2);
          if (base === "tools.ts")
            expect(shape.exported).toHaveLength(model.toolSteps.length + (model.apiCall ? 1 : 0) + 2);
          if (base === "descriptor.ts") expect(shape.exported).toEqual(["descriptor"]);
          if (base === "mock.ts") expect(shape.exported).toEqual(["mockDefinition", "startHostileMock"]);
        }
        // The header comment stays one comment, whatever the file name holds.
        const client = result.files.find((f) => f.path.endsWith("client.ts"))!.content;
        expect(client.split("\n")[0]).toMatch(/^\/\/ Generated by stepforge from /);
        expect(client.split("\n")[2]).toBe("");
      }),
      { numRuns: 12, seed: 1207 },
    );
  });

  it("the generated modules type-check under strict settings", () => {
    const check = typecheckGenerated(join(work, "tsconfig.json"), dirs);
    expect(check.output).toBe("");
    expect(check.ok).toBe(true);
  });

  it("importing every generated module runs nothing but the module", () => {
    const modules = dirs.flatMap((d) => ["index.ts", "hostile/mock.ts"].map((f) => join(d, f)));
    const script = join(work, "import-all.mts");
    writeFileSync(
      script,
      `${modules.map((m, i) => `import * as m${i} from ${JSON.stringify(m)};`).join("\n")}\nvoid ` +
        `[${modules.map((_, i) => `m${i}`).join(", ")}];\nprocess.stdout.write("imported");\n`,
    );
    const run = spawnSync(process.execPath, ["--import", "tsx", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("imported");
    expect(run.status).toBe(0);
    // The generated client is not a thenable: awaiting it sends nothing.
    const client = readFileSync(join(dirs[0]!, "hostile", "client.ts"), "utf8");
    expect(client).not.toMatch(/^\s+then\(/m);
  });
});
