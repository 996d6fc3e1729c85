/**
 * One schema node, read by every walker (issue 22): for each tricky schema the node says whether
 * null is admitted, and the tool step's input (zod), its OpenAI strict and Gemini exports, the
 * mock's request validator (Ajv), its conformance checker and its sampler all give that answer.
 * On main, a 3.0 `nullable: true` beside a `$ref` or an `allOf` of one `$ref` was refused by the
 * tool step and the conformance checker while the mock's validator (and the types) admitted null.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { SchemaWriter } from "../../generator/emit/tool-schemas.js";
import { NameTable } from "../../generator/names.js";
import { requestComponents, requestSchema } from "../../runtime/mock/dialect.js";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import { schemaChecker } from "../../runtime/mock/schema-conforms.js";
import { SchemaNodes } from "../../runtime/spec/schema-node.js";
import { defineWiredTools } from "../../runtime/tools/data.js";
import { toOpenAI } from "../../runtime/tools/export.js";
import { toGemini } from "../../runtime/tools/gemini.js";
import { modelOf } from "../generator/emit/fixture.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const schemas = {
  Obj: { type: "object", properties: { a: { type: "string" } } },
  Color: { type: "string", enum: ["red", "blue"] },
  Id: { type: "string", readOnly: true },
  /** A request body whose `v` is read-only only through its $ref (the check stage writes the flag on `v`). */
  Req: { type: "object", properties: { v: ref("Id"), w: { type: "string" } }, required: ["v", "w"] },
  Tree: {
    type: "object",
    properties: {
      children: { type: "array", items: ref("Tree") },
      parent: { allOf: [ref("Tree")], nullable: true },
    },
  },
};

/** Each case: a schema, whether it admits null, and a non-null value it admits. */
const cases: Array<[string, unknown, boolean, unknown]> = [
  ["3.0 nullable beside a $ref", { ...ref("Obj"), nullable: true }, true, { a: "x" }],
  ["3.0 nullable beside an allOf of a $ref", { allOf: [ref("Obj")], nullable: true }, true, { a: "x" }],
  ["3.0 nullable on an enum", { type: "string", enum: ["a", "b"], nullable: true }, true, "a"],
  ["3.0 nullable on an allOf of an enum $ref", { allOf: [ref("Color")], nullable: true }, true, "red"],
  ["3.1 type list with null", { type: ["string", "null"] }, true, "s"],
  ["null in an enum of a typed string (JSON Schema: no null)", { type: "string", enum: ["a", null] }, false, "a"],
  ["oneOf with a null branch", { oneOf: [ref("Obj"), { type: "null" }] }, true, { a: "x" }],
  ["anyOf of primitives", { anyOf: [{ type: "string" }, { type: "integer" }] }, false, 3],
  ["allOf of a $ref plus properties", { allOf: [ref("Obj"), { properties: { b: { type: "integer" } } }] }, false, {}],
  ["a recursive schema", ref("Tree"), false, { children: [{ children: [] }], parent: null }],
  ["a plain string", { type: "string" }, false, "s"],
];

function fixture() {
  const model = modelOf((doc) => Object.assign(doc.components.schemas, schemas));
  const resolve = pointerResolver(model.refs.doc);
  return { model, resolve, nodes: new SchemaNodes(resolve), checker: schemaChecker({ resolve }) };
}

/** The tool step of a body `{ v }` with `v` required, built as a generated tools.ts builds it. */
function toolOf(model: ReturnType<typeof fixture>["model"], value: unknown) {
  const writer = new SchemaWriter(model.refs, new NameTable());
  const body = { type: "object", properties: { v: value, w: { type: "string" } }, required: ["v", "w"] };
  const input = writer.data(body, "input");
  const step = {
    name: "widgets_check_v",
    operationId: "listWidgets",
    title: "Check v",
    description: "Checks v.",
    annotations: [true, false, true, true] as [boolean, boolean, boolean, boolean],
    input,
    output: "unknown",
    outputWrap: "none" as const,
    wire: {},
  };
  return defineWiredTools(model.descriptor, { schemas: writer.shared, steps: [step] })[0]!;
}

/** A property of a Gemini parameters schema. */
function geminiField(parameters: unknown, name: string): Record<string, unknown> | undefined {
  return (parameters as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties?.[name];
}

/** The mock's request validator for a body `{ v }`, as runtime/mock/validate.ts compiles it. */
function mockValidator(components: unknown, value: unknown, required = ["v"]) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  ajv.addSchema({ $id: "spec", components: requestComponents(components, "spec") });
  return ajv.compile(requestSchema({ type: "object", properties: { v: value }, required }, "spec") as object);
}

describe("one schema node, every walker", () => {
  const { model, resolve, nodes, checker } = fixture();
  const components = (model.refs.doc as { components: unknown }).components;

  it.each(cases)("%s: admits null iff the node says so, in every walker", (_name, schema, admitsNull, value) => {
    expect(nodes.node(schema).nullable).toBe(admitsNull);
    const tool = toolOf(model, schema);
    const answers = {
      toolInput: tool.input.safeParse({ v: null, w: "x" }).success,
      openaiStrict: new Ajv2020({ strict: false }).validate(toOpenAI(tool).tool.function.parameters, {
        v: null,
        w: "x",
      }),
      gemini: geminiField(toGemini(tool).tool.parameters, "v")?.nullable === true,
      mockValidator: mockValidator(components, schema)({ v: null }),
      mockConforms: checker.conforms(schema, null),
      mockSamples: [1, 2, 3, 4].some((seed) => sampleFromSchema(schema, { resolve, seed, maxDepth: 0 }) === null),
    };
    expect(answers).toEqual({
      toolInput: admitsNull,
      openaiStrict: admitsNull,
      gemini: admitsNull,
      mockValidator: admitsNull,
      mockConforms: admitsNull,
      mockSamples: admitsNull,
    });
    // ...and the non-null value passes the tool step, the validator and the checker alike.
    expect([
      tool.input.safeParse({ v: value, w: "x" }).success,
      mockValidator(components, schema)({ v: value }),
      checker.conforms(schema, value),
    ]).toEqual([true, true, true]);
  });

  it("merges allOf, names refs, keeps recursion finite and says what merging decided", () => {
    const merged = nodes.node({ allOf: [ref("Obj"), { properties: { a: { type: "integer" } }, required: ["a"] }] });
    expect(merged.kind).toBe("object");
    expect(merged.properties.map((p) => [p.name, p.node.kind, p.required])).toEqual([["a", "integer", true]]);
    expect(merged.conflicts).toEqual(['property "a" is defined again; the later wins']);
    expect(nodes.node({ allOf: [{ type: "string" }, { type: "integer" }] })).toMatchObject({ kind: "never" });
    const tree = nodes.node(ref("Tree"));
    expect(tree.ref).toBe("Tree");
    const [children, parent] = tree.properties;
    expect(children!.node.items).toBe(tree); // the cycle is node identity
    expect(parent!.node).toMatchObject({ kind: "object", nullable: true, ref: "Tree" });
  });

  it("a readOnly property (through its $ref) is no tool input and not required by the mock in a request", () => {
    const body = ref("Req");
    expect(nodes.node(body).properties.map((p) => [p.name, p.node.readOnly])).toEqual([
      ["v", true],
      ["w", false],
    ]);
    const writer = new SchemaWriter(model.refs, new NameTable());
    writer.data(body, "input");
    expect(Object.keys((writer.shared.InReq as unknown as { a: [Record<string, unknown>] }).a[0])).toEqual(["w"]);
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: "spec", components: requestComponents(components, "spec") });
    expect(ajv.validate(requestSchema(body, "spec") as object, { w: "x" })).toBe(true);
  });

  it("a pattern JavaScript cannot compile with u is checked nowhere: node, tool step and mock agree", () => {
    const schema = { type: "string", pattern: "\\p" };
    expect(nodes.node(schema).pattern).toEqual({ source: "\\p", valid: false });
    const tool = toolOf(model, schema);
    expect([tool.input.safeParse({ v: "anything", w: "x" }).success, checker.conforms(schema, "anything")]).toEqual([
      true,
      true,
    ]);
  });
});
