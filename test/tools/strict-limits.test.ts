/**
 * `strict: true` only when the schema meets every rule OpenAI documents for strict mode, its size
 * limits included (OPENAI_STRICT_LIMITS): synthetic deep and wide schemas on either side of each
 * limit, through the OpenAI export. Two public specs had steps nested deeper than 10 levels
 * exported as strict, which OpenAI refuses (and with them the whole request).
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { descriptor } from "../../generated/worldnews/descriptor.js";
import {
  defineOperationTool,
  exportTools,
  openaiStrictViolations,
  type OpenAITool,
} from "../../runtime/tools/index.js";
import { OPENAI_STRICT_LIMITS } from "../../runtime/tools/export-strict.js";

function toolWith(input: z.ZodObject, name = "worldnews_synthetic") {
  return defineOperationTool({
    name,
    operationId: "synthetic",
    title: "Synthetic",
    description: "A synthetic step.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    descriptor,
    input,
    output: z.object({ ok: z.boolean() }),
    outputWrap: "none",
    handler: async () => ({ ok: true }),
  });
}

function openai(input: z.ZodObject): { tool: OpenAITool["function"]; reasons: string[] } {
  const result = exportTools([toolWith(input)], "openai");
  const tool = (result.tools[0] as OpenAITool).function;
  return { tool, reasons: result.nonStrict[0]?.reasons ?? [] };
}

/** An input whose deepest value sits `levels` levels down (the input object is level 1). */
function nested(levels: number): z.ZodObject {
  let node: z.ZodType = z.string();
  for (let i = 1; i < levels; i++) node = z.strictObject({ inner: node });
  return node as z.ZodObject;
}

/** `objects` objects of `each` properties named with `nameLength` characters. */
function wide(objects: number, each: number, nameLength = 4): z.ZodObject {
  const shape = (prefix: string) =>
    Object.fromEntries(Array.from({ length: each }, (_, i) => [`${prefix}${i}`.padEnd(nameLength, "x"), z.string()]));
  return z.strictObject(
    Object.fromEntries(
      Array.from({ length: objects }, (_, o) => [`o${o}`.padEnd(nameLength, "x"), z.strictObject(shape(`p${o}_`))]),
    ),
  );
}

describe("OpenAI strict mode's limits", () => {
  it("nesting: 10 levels are strict, 11 are not", () => {
    expect(openai(nested(10)).tool.strict).toBe(true);
    const deep = openai(nested(11));
    expect(deep.tool.strict).toBe(false);
    expect(deep.reasons.join()).toMatch(/at most 10 levels of nesting \(this schema has 11\)/);
    // A deep list counts its items as levels too.
    expect(openai(z.strictObject({ rows: z.array(z.array(nested(8))) })).tool.strict).toBe(false);
  });

  it("properties: 5,000 in all are strict, 5,001 are not", () => {
    // 50 objects of 99 properties + the 50 objects themselves = 5,000.
    expect(openai(wide(50, 99)).tool.strict).toBe(true);
    const over = openai(wide(50, 99).extend({ extra: z.string() }));
    expect(over.tool.strict).toBe(false);
    expect(over.reasons.join()).toMatch(/at most 5000 properties in all \(this schema has 5001\)/);
  });

  it("characters of property names: 120,000 at most", () => {
    // 40 objects of 100 properties, each name 30 characters: 4,040 names, 121,200 characters.
    const over = openai(wide(40, 100, 30));
    expect(over.tool.strict).toBe(false);
    expect(over.reasons.join()).toMatch(/at most 120000 characters of property names, enum and const values/);
    expect(openai(wide(30, 100, 30)).tool.strict).toBe(true);
  });

  it("enum values: 1,000 in all; a string enum of over 250 values holds at most 15,000 characters", () => {
    const values = (n: number, width: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `${tag}${i}`.padEnd(width, "v"));
    const enums = (n: number) =>
      z.strictObject(
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`e${i}`, z.enum(values(100, 4, `${i}_`))])),
      );
    expect(openai(enums(10)).tool.strict).toBe(true);
    const many = openai(enums(10).extend({ one: z.enum(["a"]) }));
    expect(many.tool.strict).toBe(false);
    expect(many.reasons.join()).toMatch(/at most 1000 enum values in all \(this schema has 1001\)/);
    // 251 values of 60 characters: 15,060 characters (the limit counts values that may be null too).
    const large = openai(z.strictObject({ country: z.enum(values(251, 60, "c")) }));
    expect(large.tool.strict).toBe(false);
    expect(large.reasons.join()).toMatch(
      /an enum of over 250 strings may hold at most 15000 characters \(this one: 251 values, 15060 characters\)/,
    );
    expect(openai(z.strictObject({ country: z.enum(values(251, 59, "c")) })).tool.strict).toBe(true);
  });

  it("every tool exported as strict passes the checker, and the checker finds what the export refused", () => {
    const tools = [
      toolWith(nested(12), "worldnews_deep"),
      toolWith(wide(2, 3), "worldnews_small"),
      toolWith(z.strictObject({ m: z.record(z.string(), z.string()) }), "worldnews_map"),
    ];
    for (const exported of exportTools(tools, "openai").tools as OpenAITool[]) {
      const violations = openaiStrictViolations(exported.function.parameters);
      expect(exported.function.strict, exported.function.name).toBe(violations.length === 0);
    }
    expect(OPENAI_STRICT_LIMITS).toMatchObject({
      depth: 10,
      properties: 5000,
      enumValues: 1000,
      nameCharacters: 120_000,
    });
  });
});

describe("a hand-written step's schemas", () => {
  it("are zod's or the s builders': anything else is refused when the step is defined, naming the field", () => {
    const lookalike = { shape: {}, safeParse: () => ({ success: true as const, data: {} }) };
    expect(() => toolWith(lookalike as never)).toThrow(
      'tool "worldnews_synthetic": input must be an object schema made with `s` ' +
        "(stepforge/runtime/tools) or zod 4, not object",
    );
    expect(() => toolWith(z.string() as never)).toThrow(/input must be an object schema/);
    // The declared type a zod object meets without naming zod, and the step validates with it.
    const step = toolWith(z.strictObject({ text: z.string() }));
    expect(step.input.safeParse({ text: "a" })).toEqual({ success: true, data: { text: "a" } });
    expect(step.input.safeParse({}).success).toBe(false);
  });
});
