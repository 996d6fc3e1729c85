/** The sentence an agent reads for invalid input: every field's fix, punctuated once. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invalidInput } from "../../runtime/tools/errors.js";
import { validateInput } from "../../runtime/tools/execute.js";
import type { ToolDefinition } from "../../runtime/tools/types.js";

const step = { input: z.strictObject({ name: z.string(), size: z.string().optional() }) } as unknown as ToolDefinition;

describe("the invalid-input message", () => {
  it("ends an unknown field's list of fields with one full stop", () => {
    const result = validateInput(step, { name: "Rex", body: {} });
    if (result.ok) throw new Error("expected the input to be refused");
    expect(invalidInput(result.fields, "pets_create_pet", "pets").message).toBe(
      'The input for pets_create_pet is not valid — body: "body" is not a field of this step; remove it or use ' +
        "the right name. The fields are: name, size. Correct these fields and call the step again.",
    );
  });
});
