/**
 * Null in a step's input means "not given" (OpenAI strict mode sends null for every optional field)
 * except where the field takes null: a required nullable field keeps its null. Found from outside,
 * on a user's spec (`owner: allOf [$ref], nullable: true` beside an optional `vet`): a strict-mode
 * input `{ owner: null, vet: null }` was refused as "owner: required".
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateInput } from "../../runtime/tools/execute.js";
import type { ToolDefinition } from "../../runtime/tools/types.js";

const owner = z.strictObject({ name: z.string() });
const step = {
  input: z.strictObject({
    name: z.string(),
    owner: owner.nullable(),
    vet: owner.optional(),
    notes: z.strictObject({ text: z.string().optional(), by: owner.nullable() }).optional(),
  }),
} as unknown as ToolDefinition;

describe("null in a step's input", () => {
  it("keeps the null a nullable field takes and drops the one an optional field refuses", () => {
    expect(validateInput(step, { name: "Rex", owner: null, vet: null })).toEqual({
      ok: true,
      value: { name: "Rex", owner: null },
    });
    // Nested alike: `by` takes null, `text` does not.
    expect(validateInput(step, { name: "Rex", owner: null, notes: { text: null, by: null } })).toEqual({
      ok: true,
      value: { name: "Rex", owner: null, notes: { by: null } },
    });
  });

  it("still names the field to fix: a null for a required field that refuses null is missing", () => {
    const result = validateInput(step, { name: null, owner: null, vet: null });
    expect(result).toEqual({ ok: false, fields: [{ path: "name", message: "required: give string" }] });
  });

  it("reports a wrong value beside accepted nulls as that value's error", () => {
    const result = validateInput(step, { name: "Rex", owner: null, vet: 7 });
    expect(result).toEqual({ ok: false, fields: [{ path: "vet", message: "must be object, not number" }] });
  });
});
