/** runtime/mock/validate.ts: the mock's request checks against the spec's schemas (real Ajv, no server). */
import { describe, expect, it } from "vitest";
import type { MockOperationSpec } from "../../runtime/mock/extension.js";
import { RequestValidator } from "../../runtime/mock/validate.js";

const operation = {
  operationId: "createThing",
  method: "POST",
  path: "/things",
  parameters: [],
  body: {
    required: true,
    schema: {
      type: "object",
      required: ["constructor", "name"],
      properties: { constructor: { type: "string" }, name: { type: "string" } },
    },
  },
  success: { status: 201 },
} as unknown as MockOperationSpec;

const parts = (body: unknown) => ({ path: {}, query: new URLSearchParams(), headers: {}, body, hasBody: true });

describe("RequestValidator", () => {
  it("a required field named like an Object.prototype member must be in the body itself", () => {
    const validator = new RequestValidator({});
    // Missing, not "must be string": Object.prototype.constructor is not the body's field.
    expect(validator.check(operation, parts({ name: "a" }))).toEqual({
      field: "constructor",
      detail: "constructor must have required property 'constructor'",
    });
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

  it(
    "an object with own toString / valueOf keys is data: refused as a value not listed, " + "never a thrown TypeError",
    () => {
      // Ajv's built-in deep-equal called the body's own toString and threw; the mock answered 500.
      expect(check('{"shape": {"toString": null}}')).toEqual({
        field: "shape",
        detail: "shape must be equal to one of the allowed values",
      });
      expect(check('{"shape": {"valueOf": 1, "kind": "square", "size": 2}}')).toEqual({
        field: "shape",
        detail: "shape must be equal to one of the allowed values",
      });
      expect(check('{"marker": {"valueOf": 1}}')).toEqual({
        field: "marker",
        detail: "marker must be equal to constant",
      });
    },
  );

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
    expect(check('{"tags": [{"a": 1, "b": 2}, "x", {"b": 2, "a": 1}]}')).toEqual({
      field: "tags",
      detail: "tags must NOT have duplicate items (items ## 2 and 0 are identical)",
    });
    expect(check('{"tags": [1, "1", [1], {"1": 1}]}')).toBeUndefined();
  });
});

describe("OpenAPI 3.0 spellings and what a request may leave out", () => {
  const components = {
    schemas: {
      Owner: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
      Pet: { type: "object", required: ["petType"], properties: { petType: { type: "string" } } },
      Dog: {
        allOf: [{ $ref: "#/components/schemas/Pet" }, { type: "object", properties: { bark: { type: "boolean" } } }],
      },
      Cat: {
        allOf: [{ $ref: "#/components/schemas/Pet" }, { type: "object", properties: { lives: { type: "integer" } } }],
      },
    },
  };
  const withBody = (schema: unknown) =>
    ({
      ...operation,
      operationId: `op${Math.random()}`,
      body: { required: true, schema },
    }) as unknown as MockOperationSpec;
  const validator = new RequestValidator(components);
  const check = (schema: unknown, body: unknown) => validator.check(withBody(schema), parts(body));

  it(
    "nullable without a type beside allOf admits null and still checks the object " +
      "(Ajv2020 threw at compile: a 500)",
    () => {
      const schema = {
        type: "object",
        properties: { owner: { nullable: true, allOf: [{ $ref: "#/components/schemas/Owner" }] } },
      };
      expect(check(schema, {})).toBeUndefined();
      expect(check(schema, { owner: null })).toBeUndefined();
      expect(check(schema, { owner: { name: "Ann" } })).toBeUndefined();
      expect(check(schema, { owner: {} })?.field).toBe("owner");
    },
  );

  it("boolean exclusiveMinimum / exclusiveMaximum bound the number as 3.0 means", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "number", minimum: 10, exclusiveMinimum: true, maximum: 20, exclusiveMaximum: false } },
    };
    expect(check(schema, { n: 10 })).toEqual({ field: "n", detail: "n must be > 10" });
    expect(check(schema, { n: 10.5 })).toBeUndefined();
    expect(check(schema, { n: 20 })).toBeUndefined();
    expect(check(schema, { n: 20.5 })?.field).toBe("n");
  });

  it("a required readOnly property is not demanded in a request", () => {
    const schema = {
      type: "object",
      required: ["id", "name"],
      properties: { id: { type: "string", readOnly: true }, name: { type: "string" } },
    };
    expect(check(schema, { name: "a" })).toBeUndefined();
    expect(check(schema, {})).toEqual({ field: "name", detail: "name must have required property 'name'" });
  });

  it("oneOf with a discriminator accepts a branch that overlaps another (petstore's Dog / Cat)", () => {
    const schema = {
      oneOf: [{ $ref: "#/components/schemas/Dog" }, { $ref: "#/components/schemas/Cat" }],
      discriminator: { propertyName: "petType" },
    };
    expect(check(schema, { petType: "Dog", bark: true })).toBeUndefined();
    expect(check(schema, { bark: true })?.detail).toMatch(/petType/);
  });

  it("data keywords stay data: an enum value that looks like a 3.0 schema is compared as written", () => {
    const schema = {
      type: "object",
      properties: { v: { enum: [{ nullable: true, exclusiveMinimum: true }] }, nullable: { type: "string" } },
    };
    expect(check(schema, { v: { nullable: true, exclusiveMinimum: true } })).toBeUndefined();
    expect(check(schema, { v: {} })?.field).toBe("v");
    expect(check(schema, { nullable: 1 })?.field).toBe("nullable");
  });
});

describe("RequestValidator: a query value typed only by its anyOf branches", () => {
  // Stripe's GetCustomers: `created` (style deepObject) is a range object or an integer.
  const listing = {
    operationId: "GetCustomers",
    method: "GET",
    path: "/v1/customers",
    parameters: [
      {
        name: "created",
        in: "query",
        required: false,
        schema: { anyOf: [{ type: "object", properties: { gt: { type: "integer" } } }, { type: "integer" }] },
      },
    ],
    success: { status: 200 },
  } as unknown as MockOperationSpec;
  const query = (q: string) => ({
    path: {},
    query: new URLSearchParams(q),
    headers: {},
    body: undefined,
    hasBody: false,
  });

  it("reads `created=412` as the integer the spec allows, and still refuses text", () => {
    const validator = new RequestValidator({});
    expect(validator.check(listing, query("created=412"))).toBeUndefined();
    expect(validator.check(listing, query("created=soon"))?.field).toBe("created");
  });
});
