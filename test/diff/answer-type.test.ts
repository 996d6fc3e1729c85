/**
 * The pair file writes what a compared method resolves to as a plain indexed access where that is
 * what the runtime's `OperationData<Op>` comes to (generator/diff/answer-type.ts). It must be the
 * very same type to the checker, or verdicts and printed types would move: for every operation of
 * the specs below both are declared and the checker must hand back one type object for the two.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answerType } from "../../generator/diff/answer-type.js";
import { writeDeclarations } from "../../generator/diff/declarations.js";
import { pairText } from "../../generator/diff/pair-file.js";
import { pairProgram } from "../../generator/diff/program.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { nameRecursiveSchemasInText } from "../../generator/emit/recursive-types.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import type { SurfaceModel } from "../../generator/model.js";
import { str } from "../../generator/print.js";
import { TRELLO_OFFICIAL } from "./trello-planted.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURES = join(import.meta.dirname, "fixtures");

/** Two success statuses, a 205 (no success status), no JSON media type, no content, a status range. */
const EDGES = JSON.stringify({
  openapi: "3.1.0",
  info: { title: "Edges", version: "1" },
  paths: {
    "/two": {
      get: {
        operationId: "two",
        responses: {
          "200": { description: "a", content: { "application/json": { schema: { type: "string" } } } },
          "201": { description: "b", content: { "application/json": { schema: { type: "number" } } } },
        },
      },
    },
    "/reset": { get: { operationId: "reset", responses: { "205": { description: "r" } } } },
    "/text": {
      get: {
        operationId: "text",
        responses: { "200": { description: "t", content: { "text/plain": { schema: { type: "string" } } } } },
      },
    },
    "/none": { get: { operationId: "none", responses: { "204": { description: "empty" } } } },
    "/ranged": {
      get: {
        operationId: "ranged",
        responses: {
          "2XX": { description: "any", content: { "application/json": { schema: { type: "boolean" } } } },
          default: { description: "error", content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    },
  },
});

/** Each operation's OperationData and, where answer-type.ts writes one, its indexed access, as aliases. */
function compared(model: SurfaceModel): { text: string; direct: number; total: number } {
  const types = writeDeclarations(model.typesDocument);
  if (types === undefined) throw new Error(`declarations.ts does not write ${model.id}`);
  const lines: string[] = [];
  let direct = 0;
  model.operations.forEach((op, i) => {
    const alias = `Op${i}`;
    lines.push(`type ${alias} = Old.paths[${str(op.path)}][${str(op.method.toLowerCase())}];`);
    lines.push(`export type Data${i} = OperationData<${alias}>;`);
    const answer = answerType(model.typesDocument, op.path, op.method, alias);
    if (answer === `OperationData<${alias}>`) return;
    direct++;
    lines.push(`export type Direct${i} = ${answer};`);
  });
  const text = pairText({ oldTypes: nameRecursiveSchemasInText(types), newTypes: "", aliases: lines.join("\n") });
  return { text, direct, total: model.operations.length };
}

describe("what a compared method resolves to, written without OperationData", { timeout: 120_000 }, () => {
  // The four project specs pass too (checked once); they add seconds, not shapes, so CI reads these.
  const specs = [TRELLO_OFFICIAL, ...readdirSync(FIXTURES).map((f) => join(FIXTURES, f))];

  it.each(specs.map((file) => [file.slice(ROOT.length + 1), file]))("is OperationData's own type: %s", (_, file) => {
    const model = checkForDiff(loadSpecFile(file), "compared", EXTENSION_PARTS);
    const { text, direct, total } = compared(model);
    const { aliases } = pairProgram(text);
    for (let i = 0; i < total; i++) {
      const plain = aliases.get(`Direct${i}`);
      if (plain) expect(plain, model.operations[i]!.operationId).toBe(aliases.get(`Data${i}`));
    }
    if (file === TRELLO_OFFICIAL) expect(direct).toBeGreaterThan(240);
  });

  it("keeps OperationData where no single success answers with one JSON body or none", () => {
    const model = checkForDiff(loadSpecText("edges.json", EDGES), "edges", EXTENSION_PARTS);
    const written = Object.fromEntries(
      model.operations.map((op) => [op.operationId, answerType(model.typesDocument, op.path, op.method, "Op")]),
    );
    expect(written).toEqual({
      two: "OperationData<Op>",
      reset: "OperationData<Op>",
      text: "OperationData<Op>",
      none: 'Op["responses"]["204"]["content"]',
      ranged: 'Op["responses"]["2XX"]["content"]["application/json"]',
    });
    const { text } = compared(model);
    const { aliases } = pairProgram(text);
    for (const id of ["ranged", "none"]) {
      const i = model.operations.findIndex((op) => op.operationId === id);
      expect(aliases.get(`Direct${i}`), id).toBe(aliases.get(`Data${i}`));
    }
  });
});
