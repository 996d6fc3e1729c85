/**
 * Mock data from schemas (runtime/mock/sample.ts), keyword by keyword: every sample is checked by
 * Ajv (2020-12 with formats, as the mock validates requests). Random schemas and the specs' own
 * schemas: sample.test.ts.
 */
import { describe, expect, it } from "vitest";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import { validSample } from "./sample-helpers.js";

describe("sampleFromSchema: keywords", () => {
  it("gives the same bytes for the same seed and other values for another seed", () => {
    const schema = {
      type: "object",
      required: ["id", "when", "tags"],
      properties: {
        id: { type: "string", format: "uuid" },
        when: { type: "string", format: "date-time" },
        n: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
      },
    };
    const a = JSON.stringify(sampleFromSchema(schema, { seed: 7 }));
    expect(JSON.stringify(sampleFromSchema(schema, { seed: 7 }))).toBe(a);
    expect(JSON.stringify(sampleFromSchema(schema, { seed: "7" }))).toBe(a);
    expect(JSON.stringify(sampleFromSchema(schema, { seed: 8 }))).not.toBe(a);
    expect(JSON.stringify(sampleFromSchema(schema, { seed: "card" }))).not.toBe(a);
  });

  it("keeps a property's value when another property is added (values are seeded by path)", () => {
    const one = sampleFromSchema(
      { type: "object", required: ["a"], properties: { a: { type: "string" } } },
      { seed: 3 },
    ) as Record<string, unknown>;
    const two = sampleFromSchema(
      { type: "object", required: ["z", "a"], properties: { z: { type: "integer" }, a: { type: "string" } } },
      { seed: 3 },
    ) as Record<string, unknown>;
    expect(two.a).toBe(one.a);
  });

  it.each([
    ["type arrays", { type: ["integer", "string"] }, (v: unknown) => expect(typeof v).toBe("number")],
    [
      "null only when nothing else is allowed",
      { type: ["null", "boolean"] },
      (v: unknown) => expect(typeof v).toBe("boolean"),
    ],
    [
      "OpenAPI 3.0 nullable",
      { type: "string", nullable: true, minLength: 3 },
      (v: unknown) => expect(typeof v).toBe("string"),
    ],
    ["enum", { type: "string", enum: ["open", "closed"] }, (v: unknown) => expect(["open", "closed"]).toContain(v)],
    ["const", { const: { a: [1, "x"] } }, (v: unknown) => expect(v).toEqual({ a: [1, "x"] })],
    ["email", { type: "string", format: "email" }, (v: unknown) => expect(v).toMatch(/^[a-z]+\d+@example\.com$/)],
    ["uri", { type: "string", format: "uri" }, (v: unknown) => expect(() => new URL(String(v))).not.toThrow()],
    [
      "uuid",
      { type: "string", format: "uuid" },
      (v: unknown) => expect(v).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    ],
    [
      "date-time",
      { type: "string", format: "date-time" },
      (v: unknown) => expect(Number.isNaN(Date.parse(String(v)))).toBe(false),
    ],
    ["date", { type: "string", format: "date" }, (v: unknown) => expect(v).toMatch(/^\d{4}-\d{2}-\d{2}$/)],
    [
      "ipv4 and ipv6 in documentation ranges",
      {
        type: "array",
        minItems: 2,
        prefixItems: [
          { type: "string", format: "ipv4" },
          { type: "string", format: "ipv6" },
        ],
      },
      (v: unknown) => expect(String(v)).toMatch(/^192\.0\.2\.\d+,2001:db8::/),
    ],
    [
      "minLength and maxLength",
      { type: "string", minLength: 40, maxLength: 40 },
      (v: unknown) => expect(String(v)).toHaveLength(40),
    ],
    [
      "pattern",
      { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" },
      (v: unknown) => expect(v).toMatch(/^[A-Z]{3}-\d{4}$/),
    ],
    [
      "exclusive bounds (3.1)",
      { type: "integer", exclusiveMinimum: 10, exclusiveMaximum: 12 },
      (v: unknown) => expect(v).toBe(11),
    ],
    [
      "exclusive bounds (3.0)",
      { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 0.5, exclusiveMaximum: true },
      (v: unknown) => expect(Number(v) > 0 && Number(v) < 0.5).toBe(true),
    ],
    [
      "multipleOf",
      { type: "number", multipleOf: 0.25, minimum: 3, maximum: 4 },
      (v: unknown) => expect([3, 3.25, 3.5, 3.75, 4]).toContain(v),
    ],
    [
      "int32",
      { type: "integer", format: "int32", minimum: 2147483000 },
      (v: unknown) => expect(Number(v)).toBeLessThanOrEqual(2147483647),
    ],
    [
      "minItems and uniqueItems",
      { type: "array", minItems: 3, uniqueItems: true, items: { type: "integer", minimum: 1, maximum: 3 } },
      (v: unknown) => expect([...(v as number[])].sort()).toEqual([1, 2, 3]),
    ],
    ["maxItems 0", { type: "array", maxItems: 0, items: { type: "string" } }, (v: unknown) => expect(v).toEqual([])],
    [
      "contains",
      { type: "array", minItems: 2, items: { type: "integer" }, contains: { const: 42 } },
      (v: unknown) => expect(v).toContain(42),
    ],
    [
      "required and optional properties",
      { type: "object", required: ["a"], properties: { a: { type: "string" }, b: { type: "integer" } } },
      (v: unknown) => expect(Object.keys(v as object)).toEqual(["a", "b"]),
    ],
    [
      "writeOnly optional properties are left out of responses",
      { type: "object", properties: { password: { type: "string", writeOnly: true }, name: { type: "string" } } },
      (v: unknown) => expect(Object.keys(v as object)).toEqual(["name"]),
    ],
    [
      "maxProperties keeps the required ones",
      {
        type: "object",
        maxProperties: 1,
        required: ["b"],
        properties: { a: { type: "string" }, b: { type: "string" } },
      },
      (v: unknown) => expect(Object.keys(v as object)).toEqual(["b"]),
    ],
    [
      "additionalProperties as a map",
      { type: "object", additionalProperties: { type: "integer", minimum: 5, maximum: 5 } },
      (v: unknown) => expect(Object.values(v as object)).toEqual([5]),
    ],
    [
      "minProperties with additionalProperties",
      {
        type: "object",
        minProperties: 3,
        properties: { a: { type: "string" } },
        additionalProperties: { type: "boolean" },
      },
      (v: unknown) => expect(Object.keys(v as object)).toHaveLength(3),
    ],
    [
      "patternProperties and propertyNames",
      {
        type: "object",
        minProperties: 1,
        propertyNames: { pattern: "^x-" },
        patternProperties: { "^x-": { type: "integer" } },
        additionalProperties: false,
      },
      (v: unknown) => expect(Object.keys(v as object)[0]).toMatch(/^x-/),
    ],
    [
      "allOf merges members",
      {
        allOf: [
          { type: "object", required: ["a"], properties: { a: { type: "string", maxLength: 3 } } },
          { required: ["b"], properties: { a: { minLength: 2 }, b: { type: "integer", minimum: 100 } } },
        ],
      },
      (v: unknown) => expect(Object.keys(v as object)).toEqual(["a", "b"]),
    ],
    [
      "allOf with a closed member",
      {
        allOf: [
          { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false },
          { properties: { c: { type: "string" } } },
        ],
      },
      (v: unknown) => expect(Object.keys(v as object)).not.toContain("c"),
    ],
    [
      "anyOf",
      {
        anyOf: [
          { type: "string", minLength: 100 },
          { type: "integer", minimum: 1, maximum: 1 },
        ],
      },
      () => undefined,
    ],
    [
      "oneOf that overlaps: a value only one branch accepts",
      {
        oneOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", required: ["b"], properties: { a: { type: "string" }, b: { type: "string" } } },
        ],
      },
      (v: unknown) => expect(v).not.toHaveProperty("b"),
    ],
    ["not", { type: "string", enum: ["a", "b", "c"], not: { enum: ["a", "b"] } }, (v: unknown) => expect(v).toBe("c")],
    [
      "two patterns through allOf",
      { allOf: [{ type: "string", pattern: "^[a-c]+$" }, { pattern: "b" }] },
      (v: unknown) => expect(v).toMatch(/^[a-c]*b[a-c]*$/),
    ],
    ["an empty schema", {}, (v: unknown) => expect(v).not.toBeUndefined()],
    [
      "a valid example is used",
      { type: "string", maxLength: 10, example: "octocat" },
      (v: unknown) => expect(v).toBe("octocat"),
    ],
    [
      "an invalid example is not",
      { type: "string", maxLength: 3, example: "octocat" },
      (v: unknown) => expect(String(v).length).toBeLessThanOrEqual(3),
    ],
  ])("%s", (_name, schema, check) => {
    for (const seed of [1, 2, 3]) check(validSample(schema, {}, seed));
  });

  it("follows $refs and ends recursion: optional self-references stop, required properties stay", () => {
    const doc = {
      components: {
        schemas: {
          Node: {
            type: "object",
            required: ["id"],
            properties: {
              id: { type: "string" },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
              parent: { $ref: "#/components/schemas/Node" },
            },
          },
          Person: {
            type: "object",
            required: ["name", "employer"],
            properties: { name: { type: "string" }, employer: { $ref: "#/components/schemas/Company" } },
          },
          Company: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, ceo: { $ref: "#/components/schemas/Person" } },
          },
        },
      },
    };
    const node = validSample({ $ref: "#/components/schemas/Node" }, doc) as {
      parent: { id: string; parent?: unknown };
    };
    expect(node.parent.id).toEqual(expect.any(String));
    expect(node.parent).not.toHaveProperty("parent");
    const person = validSample({ $ref: "#/components/schemas/Person" }, doc) as {
      employer: { ceo: { employer: { name: string; ceo?: unknown } } };
    };
    expect(person.employer.ceo.employer).not.toHaveProperty("ceo");
  });

  it("holds only what is required below maxDepth", () => {
    const schema = {
      type: "object",
      required: ["a"],
      properties: {
        a: {
          type: "object",
          required: ["b"],
          properties: { b: { type: "object", properties: { c: { type: "string" } } }, d: { type: "string" } },
        },
      },
    };
    expect(validSample(schema, {}, 1, 1)).toEqual({ a: { b: {} } });
    expect(validSample(schema, {}, 1, 5)).toMatchObject({ a: { b: { c: expect.any(String) }, d: expect.any(String) } });
  });

  it("names the discriminator's branch in its property", () => {
    const doc = {
      components: {
        schemas: {
          Pet: {
            oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }],
            discriminator: { propertyName: "kind", mapping: { cat: "#/components/schemas/Cat" } },
          },
          Cat: {
            type: "object",
            required: ["kind", "lives"],
            additionalProperties: false,
            properties: { kind: { type: "string" }, lives: { type: "integer", maximum: 9 } },
          },
          Dog: {
            type: "object",
            required: ["kind", "barks"],
            additionalProperties: false,
            properties: { kind: { type: "string" }, barks: { type: "boolean" } },
          },
        },
      },
    };
    const kinds = new Set(
      [1, 2, 3, 4, 5, 6].map(
        (seed) => (validSample({ $ref: "#/components/schemas/Pet" }, doc, seed) as { kind: string }).kind,
      ),
    );
    expect([...kinds].sort()).toEqual(["Dog", "cat"]);
  });

  it("keeps a property named __proto__ as an own key", () => {
    const schema: unknown = JSON.parse(
      '{"type":"object","required":["__proto__","constructor"],' +
        '"properties":{"__proto__":{"const":"x"},"constructor":{"const":1}}}',
    );
    const v = validSample(schema) as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(v))).toEqual(JSON.parse('{"__proto__":"x","constructor":1}'));
  });

  it("says how to resolve a $ref when no resolver is given, and which reference points nowhere", () => {
    expect(() => sampleFromSchema({ $ref: "#/components/schemas/Card" })).toThrow(
      /"\$ref": "#\/components\/schemas\/Card"; pass options.resolve \(for example pointerResolver\(spec\)\)/,
    );
    expect(() =>
      sampleFromSchema({ $ref: "#/components/schemas/Card" }, { resolve: pointerResolver({ components: {} }) }),
    ).toThrow(/"#\/components\/schemas\/Card" points at nothing/);
    expect(() => sampleFromSchema({ $ref: "other.yaml#/Card" }, { resolve: pointerResolver({}) })).toThrow(
      /only local references/,
    );
  });

  it("bounds the work on a schema that requires itself (no finite value exists)", () => {
    const doc = {
      components: {
        schemas: {
          Loop: { type: "object", required: ["next"], properties: { next: { $ref: "#/components/schemas/Loop" } } },
        },
      },
    };
    const levels = (maxDepth?: number) => {
      const v = JSON.stringify(
        sampleFromSchema({ $ref: "#/components/schemas/Loop" }, { resolve: pointerResolver(doc), maxDepth }),
      );
      expect(v).toMatch(/^(\{"next":)+null\}+$/);
      return v.match(/\{"next":/g)!.length;
    };
    // It gives up 48 levels past maxDepth (default 5): the nesting, hence the work, has that bound.
    expect(levels()).toBe(5 + 48 + 1);
    expect(levels(10)).toBe(10 + 48 + 1);
  });
});

// ---- property test ---------------------------------------------------------------------------
