/** The tool-step extension keys that only constrain the spec (runtime/tools/extension.ts). */
import { describe, expect, it } from "vitest";
import { OperationToolSchema } from "../../runtime/tools/extension.js";

describe("x-stepforge-tool skip and reason", () => {
  it("takes a skipped operation with its reason", () => {
    expect(OperationToolSchema.parse({ skip: true, reason: "credential plumbing" })).toEqual({
      skip: true,
      reason: "credential plumbing",
    });
  });

  it("refuses skip without a reason, and a reason without skip, naming the field", () => {
    const missing = OperationToolSchema.safeParse({ skip: true });
    expect(missing.error?.issues).toEqual([
      expect.objectContaining({ path: ["reason"], message: "say why the operation has no step: add `reason`" }),
    ]);
    const stray = OperationToolSchema.safeParse({ name: "trello_get_card", reason: "because" });
    expect(stray.error?.issues).toEqual([
      expect.objectContaining({
        path: ["reason"],
        message: expect.stringMatching(/add `skip: true` or remove `reason`/),
      }),
    ]);
  });
});
