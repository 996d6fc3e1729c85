/**
 * generator/diff/declarations.ts writes types.ts for the checker without openapi-typescript; the
 * checker's verdicts and the types it prints come from those declarations, so they must be
 * openapi-typescript's own. Compared token by token (comments and layout aside) on every spec of
 * the repository and on fixtures/keywords.yaml, which holds every keyword and shape it writes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compareSpecs } from "../../generator/diff/index.js";
import { writeDeclarations } from "../../generator/diff/declarations.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { emitTypes } from "../../generator/emit/types.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import type { ServiceModel } from "../../generator/model.js";
import { packageRoot } from "../../generator/package-root.js";

type Json = Record<string, any>;
const ROOT = packageRoot();
const FIXTURES = join(import.meta.dirname, "fixtures");

/** The tokens of a module: kinds, with the values of names and literals (escapes and quotes aside). */
function tokens(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text);
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const valued = [ts.SyntaxKind.Identifier, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NumericLiteral].includes(kind);
    out.push(valued ? `${ts.SyntaxKind[kind]} ${scanner.getTokenValue()}` : ts.SyntaxKind[kind]!);
  }
  return out;
}

async function openapiTypescript(typesDocument: Json, file: string): Promise<string> {
  const model = { id: "x", spec: { file }, typesDocument } as unknown as ServiceModel;
  const [types] = await emitTypes(model, { runtimeImport: "stepforge/runtime", specLabel: file } as never);
  return types!.content;
}

const specs = [
  ...readdirSync(join(ROOT, "specs"))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(ROOT, "specs", f)),
  ...readdirSync(join(ROOT, "test", "corpus", "specs"))
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(ROOT, "test", "corpus", "specs", f)),
  join(FIXTURES, "widgets.yaml"),
];

describe("types.ts for the checker, written without openapi-typescript", { timeout: 120_000 }, () => {
  it.each(specs.map((file) => [file.slice(ROOT.length + 1), file]))(
    "%s: openapi-typescript's tokens",
    async (_, file) => {
      const model = checkForDiff(loadSpecFile(file), undefined, EXTENSION_PARTS);
      const written = writeDeclarations(model.typesDocument);
      expect(written).toBeDefined();
      expect(tokens(written!)).toEqual(tokens(await openapiTypescript(model.typesDocument, file)));
    },
  );

  it("every keyword and document shape it writes: openapi-typescript's tokens", async () => {
    const file = join(FIXTURES, "keywords.yaml");
    const doc = parse(readFileSync(file, "utf8")) as Json;
    const written = writeDeclarations(doc);
    expect(written).toBeDefined();
    expect(tokens(written!)).toEqual(tokens(await openapiTypescript(doc, file)));
    // The shapes that take openapi-typescript's special cases are in the fixture (not silently dropped).
    for (const text of [
      "WithRequired<",
      "readonly id",
      '"*/*"?: never',
      'operations["put/thing"]',
      "(number | null)",
    ]) {
      expect(written).toContain(text);
    }
  });

  it("leaves what it does not write to openapi-typescript, and diff still decides with the checker", async () => {
    const doc = parse(readFileSync(join(FIXTURES, "widgets.yaml"), "utf8")) as Json;
    const pet = {
      oneOf: [{ $ref: "#/components/schemas/Widget" }, { type: "object", properties: { kind: { type: "string" } } }],
      discriminator: { propertyName: "kind" },
    };
    doc.components.schemas.Pet = pet;
    expect(writeDeclarations(doc)).toBeUndefined();
    doc.paths["/widgets/{id}"].get.responses["200"].content["application/json"].schema = {
      $ref: "#/components/schemas/Pet",
    };
    const now = structuredClone(doc);
    now.components.schemas.Widget.properties.size = { type: "string" };
    const model = (d: Json, file: string) =>
      checkForDiff(loadSpecText(file, JSON.stringify(d)), "widgets", EXTENSION_PARTS);
    const report = await compareSpecs(model(doc, "old.json"), model(now, "new.json"));
    // Declarations from openapi-typescript (the document has a discriminator), verdicts from the checker.
    expect(report.changes.map((c) => `${c.kind} ${c.target}: ${c.detail} [${c.decidedBy}]`)).toMatchInlineSnapshot(`
      [
        "response-type-changed listWidgets: response field [].size: number → string [checker]",
        "response-type-changed createWidget: response field size: number → string [checker]",
      ]
    `);
  });
});
