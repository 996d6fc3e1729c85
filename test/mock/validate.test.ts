/** runtime/mock/validate.ts: the mock's request checks against the spec's schemas (real Ajv, no server). */
import { describe, expect, it } from "vitest";
import type { MockOperationSpec } from "../../runtime/mock/model.js";
import { RequestValidator } from "../../runtime/mock/validate.js";

const operation = {
  operationId: "createThing",
  method: "POST",
  path: "/things",
  parameters: [],
  body: { required: true, schema: { type: "object", required: ["constructor", "name"], properties: { constructor: { type: "string" }, name: { type: "string" } } } },
  success: { status: 201 },
} as unknown as MockOperationSpec;

const parts = (body: unknown) => ({ path: {}, query: new URLSearchParams(), headers: {}, body, hasBody: true });

describe("RequestValidator", () => {
  it("a required field named like an Object.prototype member must be in the body itself", () => {
    const validator = new RequestValidator({});
    // Missing, not "must be string": Object.prototype.constructor is not the body's field.
    expect(validator.check(operation, parts({ name: "a" }))).toEqual({ field: "constructor", detail: "constructor must have required property 'constructor'" });
    expect(validator.check(operation, parts(JSON.parse('{"constructor": "x", "name": "a"}')))).toBeUndefined();
  });
});
