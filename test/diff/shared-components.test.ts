/**
 * The pair file declares once what both sides declare alike (generator/diff/shared-components.ts),
 * and never what reaches a change: a component whose own text is unchanged but which references a
 * changed one must stay declared on each side, or the checker would not see the change there.
 */
import { describe, expect, it } from "vitest";
import { writeSharedTypes } from "../../generator/diff/shared-components.js";
import { openapiDocument } from "../helpers/spec.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A document with one operation: query `q` of schema `Query`, answering `Box`. */
function doc(schemas: Record<string, unknown>, query: unknown = { type: "string" }) {
  return openapiDocument("t", {
    paths: {
      "/box": {
        get: {
          operationId: "getBox",
          parameters: [{ name: "q", in: "query", schema: query }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: ref("Box") } } } },
        },
      },
    },
    components: { schemas },
  });
}

const schemas = (itemType: string) => ({
  Item: { type: "object", properties: { x: { type: itemType } } },
  Box: { type: "object", properties: { item: ref("Item"), label: ref("Label") } },
  Label: { type: "object", properties: { text: { type: "string" } } },
});

describe("shared declarations in the pair file", () => {
  it("names the old side's unchanged component and parameters, and redeclares what reaches a change", () => {
    const written = writeSharedTypes(doc(schemas("string")), doc(schemas("number")), "Old")!;
    // Unchanged and reaching nothing changed: one declaration, the old side's.
    expect(written.newTypes).toContain('Label: Old.components["schemas"]["Label"];');
    expect(written.newTypes).toContain('parameters: Old.operations["getBox"]["parameters"];');
    // Item changed; Box's own text did not, but it reaches Item: both stay on the new side.
    expect(written.newTypes).toContain("Item: { x?: number; };");
    expect(written.newTypes).toContain(
      'Box: { item?: components["schemas"]["Item"]; label?: components["schemas"]["Label"]; };',
    );
    // The old side is written as it always was.
    expect(written.oldTypes).toContain("Item: { x?: string; };");
    expect(written.oldTypes).not.toContain("Old.");
  });

  it("redeclares parameters that reach a changed component", () => {
    const written = writeSharedTypes(doc(schemas("string"), ref("Item")), doc(schemas("number"), ref("Item")), "Old")!;
    expect(written.newTypes).not.toContain('Old.operations["getBox"]');
    expect(written.newTypes).toContain('query?: { q?: components["schemas"]["Item"]; };');
  });
});
