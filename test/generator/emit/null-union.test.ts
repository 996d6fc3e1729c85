/**
 * `type: "null"` beside a `oneOf` none of whose branches admits null (Vercel's EdgeConfigItemValue,
 * a 3.0 `nullable: true` converted to 3.1) is read as the union with null, in the types and in the
 * model the mock and tool steps read (openapi-typescript typed it `null & (…)`, a value nothing has).
 */
import { describe, expect, it } from "vitest";
import { emitTypes } from "../../../generator/emit/types.js";
import { context, modelOf } from "./fixture.js";

describe("type null beside a oneOf", () => {
  it("becomes a union with null in the model and the types", async () => {
    const model = modelOf((doc) => {
      Object.assign(doc.components.schemas, {
        ItemValue: {
          type: "null",
          oneOf: [
            { type: "string" },
            { type: "number" },
            { type: "array", items: { $ref: "#/components/schemas/ItemValue" } },
          ],
        },
      });
    });
    expect((model.components as any).schemas.ItemValue).toEqual({
      oneOf: [
        { type: "string" },
        { type: "number" },
        { type: "array", items: { $ref: "#/components/schemas/ItemValue" } },
        { type: "null" },
      ],
    });
    const [types] = await emitTypes(model, context);
    // ItemValue reaches itself through an array: its type is the named alias recursive-types.ts writes.
    expect(types!.content).toContain("ItemValue: SchemaItemValue;");
    const line = types!.content.split("\n").find((l) => l.startsWith("export type SchemaItemValue ="));
    expect(line).not.toMatch(/null &/);
    expect(line).toMatch(/\| null/);
  });
});
