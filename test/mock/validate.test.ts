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

describe("enum, const and uniqueItems compare request data as JSON", () => {
  const listed = {
    ...operation,
    operationId: "pickThing",
    body: {
      required: true,
      schema: {
        type: "object",
        properties: {
          shape: { enum: [{ kind: "square", size: 2 }, "circle"] },
          marker: { const: { toString: null } },
          tags: { type: "array", uniqueItems: true },
        },
      },
    },
  } as unknown as MockOperationSpec;
  const check = (json: string) => new RequestValidator({}).check(listed, parts(JSON.parse(json)));

  it("an object with own toString / valueOf keys is data: refused as a value not listed, never a thrown TypeError", () => {
    // Ajv's built-in deep-equal called the body's own toString and threw; the mock answered 500.
    expect(check('{"shape": {"toString": null}}')).toEqual({ field: "shape", detail: "shape must be equal to one of the allowed values" });
    expect(check('{"shape": {"valueOf": 1, "kind": "square", "size": 2}}')).toEqual({ field: "shape", detail: "shape must be equal to one of the allowed values" });
    expect(check('{"marker": {"valueOf": 1}}')).toEqual({ field: "marker", detail: "marker must be equal to constant" });
  });

  it("listed values pass whatever their key order; near misses are refused", () => {
    expect(check('{"shape": {"size": 2, "kind": "square"}}')).toBeUndefined();
    expect(check('{"shape": "circle"}')).toBeUndefined();
    expect(check('{"marker": {"toString": null}}')).toBeUndefined();
    expect(check('{"shape": {"kind": "square", "size": 2, "extra": 0}}')?.field).toBe("shape");
    expect(check('{"shape": {"kind": "square", "size": "2"}}')?.field).toBe("shape");
    expect(check('{"shape": ["circle"]}')?.field).toBe("shape");
  });

  it("uniqueItems finds the first repeat, objects compared by value", () => {
    expect(check('{"tags": [{"valueOf": 1}, {"valueOf": 2}]}')).toBeUndefined();
    expect(check('{"tags": [{"a": 1, "b": 2}, "x", {"b": 2, "a": 1}]}')).toEqual({ field: "tags", detail: "tags must NOT have duplicate items (items ## 2 and 0 are identical)" });
    expect(check('{"tags": [1, "1", [1], {"1": 1}]}')).toBeUndefined();
  });
});
