/**
 * Schemas that reach themselves through a union or array (generator/emit/recursive-types.ts) in
 * `stepforge diff`, which writes its own declarations (generator/diff/declarations.ts): named the
 * way types.ts names them, so its checker sees their types (as TS2502's `any`, every change to them
 * passed as compatible). test/realspecs/typecheck.test.ts type-checks the generated types.ts.
 */
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { compareSpecs } from "../../../generator/diff/index.js";
import { writeDeclarations } from "../../../generator/diff/declarations.js";
import { EXTENSION_PARTS } from "../../../generator/check/zod-parts.js";
import { checkForDiff } from "../../../generator/diff/specs.js";
import { emitTypes } from "../../../generator/emit/types.js";
import { nameRecursiveSchemasInText } from "../../../generator/emit/recursive-types.js";
import { loadSpecText } from "../../../generator/load.js";
import { RECURSIVE } from "../../realspecs/specs.js";

const model = (doc: object, file: string) =>
  checkForDiff(loadSpecText(file, JSON.stringify(doc)), "recur", EXTENSION_PARTS);

/** A module's tokens, comments and layout aside. */
function tokens(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text);
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan())
    out.push(`${ts.SyntaxKind[kind]} ${scanner.getTokenText()}`);
  return out;
}

describe("recursive schemas in stepforge diff", { timeout: 60_000 }, () => {
  it("are declared as types.ts declares them", async () => {
    const checked = model(RECURSIVE, "recur.json");
    const [types] = await emitTypes(checked, { runtimeImport: "stepforge/runtime", specLabel: "recur.json" });
    const written = nameRecursiveSchemasInText(writeDeclarations(checked.typesDocument)!);
    expect(written).toContain("Expr: SchemaExpr;");
    expect(tokens(written)).toEqual(tokens(types!.content));
  });

  it("are compared by the checker: a changed branch of Expr changes evaluate's body", async () => {
    const now = structuredClone(RECURSIVE);
    now.components.schemas.Expr.oneOf[0] = { type: "string" };
    const report = await compareSpecs(model(RECURSIVE, "old.json"), model(now, "new.json"));
    const checker = report.changes.filter((c) => c.decidedBy === "checker").map((c) => `${c.kind} ${c.target}`);
    expect(checker).toEqual(["request-type-changed evaluate", "response-type-changed evaluate"]);
  });
});
