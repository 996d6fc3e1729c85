/**
 * Mock data from schemas (runtime/mock/sample.ts): every sample is checked by Ajv (2020-12 with
 * formats, as the mock validates requests), over random schemas (fast-check) and the response and
 * component schemas of the four project specs and of @readme/oas-examples. Keyword by keyword:
 * sample-keywords.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import { DocumentValidator, successSchemas } from "./sample-helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

const SAFE_PATTERNS = ["^[a-z]{2,6}$", "^\\d{3}-\\d{2}$", "^[A-F0-9]+$", "ab+c", "^(red|green|blue)$"];
const FORMATS = [
  "date-time",
  "date",
  "time",
  "email",
  "uri",
  "uuid",
  "hostname",
  "ipv4",
  "ipv6",
  "byte",
  "duration",
  "uri-reference",
  "json-pointer",
  "unknown-format",
];
// Not __proto__: Ajv 8 counts a declared "__proto__" property as an additional one (the unit test
// above covers it). Not toString: Ajv's deep equality (const, enum) throws on `{"toString": null}`.
const NAMES = ["id", "name", "Size", "created_at", "x-extra", "constructor", "a b", "ü"];
const POOL = ["Tree", "Label", "Money"];

const stringSchema = fc.oneof(
  fc
    .record({ type: fc.constant("string"), minLength: fc.nat(5), extra: fc.nat(20) })
    .map(({ type, minLength, extra }) => ({ type, minLength, maxLength: minLength + extra })),
  fc.record({ type: fc.constant("string"), format: fc.constantFrom(...FORMATS) }),
  fc.record({ type: fc.constant("string"), pattern: fc.constantFrom(...SAFE_PATTERNS) }),
  fc.record({ type: fc.constant("string"), enum: fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 4 }) }),
);
const numberSchema = fc
  .record({
    type: fc.constantFrom("integer", "number"),
    lo: fc.option(fc.integer({ min: -50, max: 50 })),
    span: fc.nat(100),
    exclusive: fc.boolean(),
    multipleOf: fc.option(fc.constantFrom(1, 2, 5, 0.5, 0.01)),
    format: fc.option(fc.constantFrom("int32", "int64", "double")),
  })
  .map(({ type, lo, span, exclusive, multipleOf, format }) => {
    const s: Record<string, unknown> = { type };
    if (lo !== null) {
      s[exclusive ? "exclusiveMinimum" : "minimum"] = lo;
      s.maximum = lo + span + 1;
    }
    if (multipleOf !== null && (lo === null || span >= 10))
      s.multipleOf = type === "integer" ? Math.max(1, Math.round(multipleOf)) : multipleOf;
    if (format !== null && !(type === "integer" && format === "double")) s.format = format;
    return s;
  });
const leafSchema = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => ({ const: v })),
  fc.constantFrom(...POOL).map((name) => ({ $ref: `#/components/schemas/${name}` })),
  fc.constant({}),
);

const open = (o: Record<string, unknown>): Record<string, unknown> => {
  const { additionalProperties: _closed, ...rest } = o;
  return rest;
};
const renamed = (o: Record<string, unknown>): Record<string, unknown> => ({
  ...o,
  properties: Object.fromEntries(Object.entries(o.properties as object).map(([k, v]) => [`${k}_b`, v])),
  required: (o.required as string[]).map((k) => `${k}_b`),
});

const { schema: randomSchema } = fc.letrec<{ schema: unknown; object: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafSchema,
    tie("object"),
    fc
      .record({ type: fc.constant("array"), items: tie("schema"), minItems: fc.nat(2), extra: fc.nat(3) })
      .map(({ type, items, minItems, extra }) => ({ type, items, minItems, maxItems: minItems + extra })),
    fc.record({
      type: fc.constant("array"),
      items: fc.constant({ type: "integer" }),
      uniqueItems: fc.constant(true),
      minItems: fc.nat(3),
    }),
    // nullable in both spellings
    fc
      .tuple(stringSchema, fc.boolean())
      .map(([s, v30]) => (v30 ? { ...s, nullable: true } : { ...s, type: [s.type, "null"] })),
    // allOf of open objects with their own property names (closed or shared ones can contradict
    // each other), plus a member that narrows one property of the first
    fc
      .tuple(tie("object"), tie("object"))
      .map(([a, b]) => ({ allOf: [open(a), open(renamed(b)), { properties: { id: { description: "narrowed" } } }] })),
    // oneOf over different types, so exactly one branch can hold
    fc
      .tuple(stringSchema, numberSchema, tie("object"))
      .map(([s, n, o]) => ({ oneOf: [s, { ...n, type: "integer", multipleOf: undefined }, o] })),
    fc.array(tie("schema"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    stringSchema
      .filter((s) => !("enum" in s && s.enum.includes("")) && !("maxLength" in s && s.maxLength === 0))
      .map((s) => ({ ...s, not: { const: "" } })),
  ),
  object: fc
    .record({
      props: fc.dictionary(fc.constantFrom(...NAMES), tie("schema"), { maxKeys: 4 }),
      requiredMask: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
      additional: fc.oneof(fc.constant(undefined), fc.constant(false), fc.constant(true), leafSchema),
      minProperties: fc.option(fc.nat(2)),
    })
    .map(({ props, requiredMask, additional, minProperties }) => {
      const names = Object.keys(props);
      const s: Record<string, unknown> = {
        type: "object",
        properties: props,
        required: names.filter((_, i) => requiredMask[i]),
      };
      if (additional !== undefined) s.additionalProperties = additional;
      if (minProperties !== null && (additional !== false || names.length >= minProperties))
        s.minProperties = minProperties;
      return s;
    }),
}));

const POOL_DOC = {
  components: {
    schemas: {
      Tree: {
        type: "object",
        required: ["value"],
        properties: {
          value: { type: "integer" },
          left: { $ref: "#/components/schemas/Tree" },
          right: { $ref: "#/components/schemas/Tree" },
        },
      },
      Label: { type: "string", minLength: 1, maxLength: 8, pattern: "^[a-z]+$" },
      Money: {
        type: "object",
        required: ["amount", "currency"],
        additionalProperties: false,
        properties: { amount: { type: "number", multipleOf: 0.01, minimum: 0 }, currency: { enum: ["EUR", "USD"] } },
      },
    },
  },
};

describe("sampleFromSchema: random schemas", () => {
  it("samples a value Ajv accepts for every generated schema and seed, and the same one twice", () => {
    const validator = new DocumentValidator(POOL_DOC);
    const resolve = pointerResolver(POOL_DOC);
    fc.assert(
      fc.property(randomSchema, fc.oneof(fc.integer(), fc.string()), (schema, seed) => {
        const value = sampleFromSchema(schema, { seed, resolve });
        expect(JSON.stringify(sampleFromSchema(schema, { seed, resolve }))).toBe(JSON.stringify(value));
        const validate = validator.compile(schema);
        if (!validate(value)) throw new Error(`${JSON.stringify(value)} fails ${JSON.stringify(validate.errors?.[0])}`);
      }),
      { numRuns: Number(process.env.SAMPLE_RUNS ?? 300), seed: Number(process.env.SAMPLE_SEED ?? 20261123) },
    );
  });
});

// ---- real specs -------------------------------------------------------------------------------

function specFiles(): string[] {
  const examples = join(ROOT, "node_modules", "@readme", "oas-examples");
  return [
    ...readdirSync(join(ROOT, "specs"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => join(ROOT, "specs", f)),
    ...["3.0", "3.1"].flatMap((v) =>
      readdirSync(join(examples, v, "json"))
        .filter((f) => f.endsWith(".json"))
        .map((f) => join(examples, v, "json", f)),
    ),
  ];
}

/** Schemas no value satisfies, so no sample can pass: TreeNode requires `parent`, a TreeNode. */
const UNSATISFIABLE = [
  "circular-request-bodies.json POST /direct 200 application/json",
  "circular-request-bodies.json #/components/schemas/TreeNode",
];

describe("sampleFromSchema: the project's specs and @readme/oas-examples", () => {
  it("samples every JSON success response and component schema validly (two seeds each)", () => {
    const invalid: string[] = [];
    let checked = 0;
    for (const file of specFiles()) {
      const spec = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const validator = new DocumentValidator(spec);
      const resolve = pointerResolver(spec);
      const components = Object.keys(
        ((spec.components as Record<string, unknown> | undefined)?.schemas ?? {}) as object,
      ).map((name) => ({
        where: `#/components/schemas/${name}`,
        schema: { $ref: `#/components/schemas/${name.replace(/~/g, "~0").replace(/\//g, "~1")}` },
      }));
      for (const { where, schema } of [...successSchemas(spec), ...components]) {
        const validate = validator.compile(schema);
        for (const seed of [1, 2]) {
          checked++;
          const value = sampleFromSchema(schema, { seed, resolve });
          if (!validate(value)) invalid.push(`${file.split("/").at(-1)} ${where}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(1500);
    expect([...new Set(invalid)].sort()).toEqual(UNSATISFIABLE.sort());
  });
});
