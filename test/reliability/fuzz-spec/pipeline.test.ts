/**
 * Property-based fuzzing of the spec loader and validator: the mutation kinds and what they must give are in
 * mutations.ts.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceModel } from "../../../generator/model.js";
import { SERVICE_EMITTERS } from "../../../generator/pipeline.js";
import { checkSpec as validateSpec } from "../../../generator/check/index.js";
import { runs, SEED } from "../arbitraries.js";
import { clone, getAt, isObject, type Json } from "./mutations.js";
import { checkDiagnostics, inventories, loadRealSpecs } from "./outcomes.js";

beforeAll(loadRealSpecs);
describe("pipeline on specs with mutated schemas (property-based, in memory)", () => {
  const SCHEMA_EDITS = [
    "type → strin",
    "type → 42",
    "type → [string, 7]",
    "delete items",
    "items → string",
    "required → string",
    "properties → list",
    "enum → string",
    "enum → []",
    "nullable → yes",
    "allOf → object",
    "anyOf → []",
    "$ref sibling",
    "pattern → 7",
    "pattern → (",
    "format → 5",
    "maxLength → -1",
    "additionalProperties → string",
    "description → 5",
    "default → {}",
    "deep nesting",
  ];

  function editSchema(schema: Json, how: string): void {
    const target = isObject(schema.properties)
      ? ((Object.values(schema.properties).find(isObject) as Json | undefined) ?? schema)
      : schema;
    switch (how) {
      case "type → strin":
        target.type = "strin";
        break;
      case "type → 42":
        target.type = 42;
        break;
      case "type → [string, 7]":
        target.type = ["string", 7];
        break;
      case "delete items":
        target.type = "array";
        delete target.items;
        break;
      case "items → string":
        target.type = "array";
        target.items = "string";
        break;
      case "required → string":
        schema.required = "id";
        break;
      case "properties → list":
        schema.properties = ["id"];
        break;
      case "enum → string":
        target.enum = "a,b";
        break;
      case "enum → []":
        target.enum = [];
        break;
      case "nullable → yes":
        target.nullable = "yes";
        break;
      case "allOf → object":
        target.allOf = { type: "string" };
        break;
      case "anyOf → []":
        target.anyOf = [];
        break;
      case "$ref sibling":
        target.$ref = "#/components/schemas";
        break;
      case "pattern → 7":
        target.pattern = 7;
        break;
      case "pattern → (":
        target.type = "string";
        target.pattern = "(";
        break;
      case "format → 5":
        target.format = 5;
        break;
      case "maxLength → -1":
        target.maxLength = -1;
        break;
      case "additionalProperties → string":
        schema.additionalProperties = "yes";
        break;
      case "description → 5":
        target.description = 5;
        break;
      case "default → {}":
        target.default = { deep: { er: [1] } };
        break;
      case "deep nesting": {
        let node: Json = { type: "string" };
        for (let i = 0; i < 200; i++) node = { type: "array", items: node };
        target.items = node;
        target.type = "array";
        break;
      }
    }
  }

  it.each([["worldnews"], ["contentsnare"]])("%s: emitting never throws anything but a SpecError", async (service) => {
    const inv = inventories.get(service)!;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inv.schemas), fc.constantFrom(...SCHEMA_EDITS), async (schemaPath, how) => {
        const data = clone(inv.spec.data);
        editSchema(getAt(data, schemaPath) as Json, how);
        let model: ServiceModel;
        try {
          model = validateSpec({ ...inv.spec, data });
        } catch (error) {
          checkDiagnostics(error, inv.spec.file, inv.spec.text);
          return;
        }
        const context = { runtimeImport: "../../runtime/index.js", specLabel: `specs/${service}.yaml` };
        try {
          for (const emit of SERVICE_EMITTERS) {
            const files = await emit(model, context);
            for (const f of files) {
              expect(typeof f.path).toBe("string");
              expect(typeof f.content).toBe("string");
            }
          }
        } catch (error) {
          if (error instanceof Error && error.name === "AssertionError") throw error;
          checkDiagnostics(error, inv.spec.file, inv.spec.text);
        }
      }),
      { seed: SEED, numRuns: runs(12) },
    );
  });
});
