/**
 * generator/emit/tools.ts: each rule of the schema → tool schema data translation, the step
 * layout, and the zod schemas the runtime builds from that data (runtime/tools/data.ts).
 */
import { describe, expect, it } from "vitest";
import { emitTools } from "../../../generator/emit/tools.js";
import type { SchemaData, WiredToolsData } from "../../../runtime/tools/data.js";
import { defineWiredTools } from "../../../runtime/tools/index.js";
import { descriptor } from "../../../generated/trello/descriptor.js";
import { context, modelOf } from "./fixture.js";

/** The data a tools.ts hands `defineWiredTools`, read back from its JSON text. */
function dataOf(content: string): WiredToolsData {
  const start = content.indexOf("JSON.parse(`") + "JSON.parse(`".length;
  const raw = content.slice(start, content.indexOf("\n`)", start)); // the closing line (an escaped \` may come before)
  // jsonData escapes backslashes, backticks and `${` for the template literal: undone here.
  return JSON.parse(raw.replace(/\\([\\`$])/g, "$1")) as WiredToolsData;
}

async function stepsOf(edit: (d: any) => void, foreign = false): Promise<WiredToolsData> {
  const model = modelOf((d) => {
    if (foreign) {
      delete d["x-stepforge"];
      delete d.paths["/widgets"].get["x-stepforge-paging"];
    }
    edit(d);
  });
  const [file] = await emitTools(model, context);
  return dataOf(file!.content);
}

/** The input data of the step for createWidget, with `schema` as its body. */
async function inputOf(schema: unknown, fixed?: Record<string, unknown>, foreign = false): Promise<SchemaData> {
  const data = await stepsOf((d) => {
    d.paths = {
      "/widgets": { post: { ...d.paths["/widgets"].post, ...(fixed ? { "x-stepforge-tool": { fixed } } : {}) } },
    };
    d.paths["/widgets"].post.requestBody.content["application/json"].schema = schema;
  }, foreign);
  return data.steps[0]!.input;
}

/** The zod input schema the runtime builds from a step's data (names and wire from a Trello-like step). */
function built(input: SchemaData, schemas?: Record<string, SchemaData>) {
  const [step] = defineWiredTools(descriptor, {
    ...(schemas ? { schemas } : {}),
    steps: [
      {
        name: "trello_data_step",
        operationId: "createCard",
        title: "t",
        description: "d",
        annotations: [false, false, false, true],
        input,
        output: "unknown",
        outputWrap: "none",
        wire: {},
      },
    ],
  });
  return step!.input as unknown as { safeParse(v: unknown): { success: boolean } };
}

describe("emitTools", () => {
  it("strings: format, pattern, lengths; an invalid pattern is left out instead of throwing at import", async () => {
    const date = { type: "string", format: "date" };
    const input = await inputOf({
      type: "object",
      properties: {
        a: date,
        b: { type: "string", pattern: "^x+$", minLength: 1 },
        c: { type: "string", format: "email" },
      },
    });
    expect(input).toEqual({
      s: "strictObject",
      a: [
        {
          a: { s: "string", c: [["regex", "DATE"], ["meta", { format: "date" }], ["optional"]] },
          b: { s: "string", c: [["regex", { p: "^x+$", f: "u" }], ["min", 1], ["optional"]] },
          c: { s: "email", c: [["optional"]] },
        },
      ],
    });
    const schema = built(input);
    expect(schema.safeParse({ a: "2024-06-14", b: "xx", c: "a@example.com" }).success).toBe(true);
    expect(schema.safeParse({ a: "14/06/2024" }).success).toBe(false);
    expect(schema.safeParse({ b: "xy" }).success).toBe(false);
    expect(schema.safeParse({ b: "" }).success).toBe(false);
    expect(schema.safeParse({ other: 1 }).success).toBe(false);
    // A strict spec refuses it (SF162); a foreign one gets a warning and no check.
    await expect(inputOf({ type: "object", properties: { bad: { type: "string", pattern: "([" } } })).rejects.toThrow(
      /SF162 pattern "\(\[" is not a valid/,
    );
    expect(
      JSON.stringify(
        await inputOf({ type: "object", properties: { bad: { type: "string", pattern: "([" } } }, undefined, true),
      ),
    ).not.toContain("regex");
  });

  it("numbers, enums, nullable unions and defaults (written for the model, optional in the input)", async () => {
    const input = await inputOf({
      type: "object",
      required: ["n"],
      properties: {
        n: { type: "integer", minimum: 1, maximum: 10 },
        mode: { enum: ["a", "b", null], default: "a" },
        v: { type: ["string", "number", "null"] },
      },
    });
    expect(input).toEqual({
      s: "strictObject",
      a: [
        {
          n: { s: "number", c: [["int"], ["min", 1], ["max", 10]] },
          mode: { s: "enum", a: [["a", "b"]], c: [["nullable"], ["optional"]] },
          v: { s: "union", a: [["string", "number"]], c: [["nullable"], ["optional"]] },
        },
      ],
    });
    const schema = built(input);
    expect(schema.safeParse({ n: 3, mode: null, v: 2 }).success).toBe(true);
    expect(schema.safeParse({ n: 3.5 }).success).toBe(false);
    expect(schema.safeParse({ n: 11 }).success).toBe(false);
    expect(schema.safeParse({ n: 1, mode: "c" }).success).toBe(false);
  });

  it(
    "a body property named constructor is a field like any other (it used to vanish); " +
      "__proto__ is a key of a nested shape",
    async () => {
      const nested = { type: "object", properties: { ["__proto__"]: { type: "integer" } } };
      const input = await inputOf(
        { type: "object", properties: { constructor: { type: "string" }, nested, other: { type: "string" } } },
        { other: "x" },
      );
      const shape = (input as unknown as { a: [Record<string, { a: [object] }>] }).a[0];
      expect(Object.keys(shape)).toEqual(["constructor", "nested"]);
      expect(Object.keys(shape.nested!.a[0])).toEqual(["__proto__"]);
      const schema = built(input);
      expect(schema.safeParse(JSON.parse(`{ "constructor": "c", "nested": { "__proto__": 2 } }`)).success).toBe(true);
      expect(schema.safeParse(JSON.parse(`{ "nested": { "__proto__": "not a number" } }`)).success).toBe(false);
    },
  );

  it("a fixed value travels in the wire mapping as { fixed }, never as an input field", async () => {
    const data = await stepsOf((d) => {
      d.paths = { "/widgets": { post: { ...d.paths["/widgets"].post, "x-stepforge-tool": { fixed: { other: 7 } } } } };
      d.paths["/widgets"].post.requestBody.content["application/json"].schema = {
        type: "object",
        properties: { constructor: { type: "string" }, other: { type: "number" } },
      };
    });
    expect(data.steps[0]!.wire).toEqual({ body: { constructor: "constructor", other: { fixed: 7 } } });
  });

  it("shared schemas are data keys defined before use; the data refuses an unknown builder, method or name", () => {
    const schema = built(
      { s: "strictObject", a: [{ id: { r: "InId", c: [["optional"]] } }] },
      { InId: { s: "string", c: [["min", 2]] } },
    );
    expect(schema.safeParse({ id: "ab" }).success).toBe(true);
    expect(schema.safeParse({ id: "a" }).success).toBe(false);
    expect(() => built({ r: "InMissing" })).toThrow(/refers to "InMissing", which is not defined before it/);
    expect(() => built("constructor")).toThrow(/unknown builder "constructor"/);
    expect(() => built({ s: "string", c: [["parse", "x"]] })).toThrow(/unknown method "parse"/);
    expect(() => built({ s: "string", c: [["regex", "NOPE"]] })).toThrow(/unknown pattern "NOPE"/);
  });

  it(
    "the step layout: one const per step from the data, the wire mapping with renamed and " + "odd wire names kept",
    async () => {
      const model = modelOf((d) => {
        d.paths["/widgets/{id}"].get.parameters.push({
          name: "q_by[]",
          in: "query",
          schema: { type: "array", items: { type: "string" } },
        });
        d.paths["/widgets/{id}"].get["x-stepforge-tool"] = {
          fields: { widget: { from: "id", description: "The widget." } },
        };
      });
      const [file] = await emitTools(model, context);
      const text = file!.content;
      const step = dataOf(text).steps[2]!;
      expect(step).toMatchObject({
        name: "widgets_get_widget",
        operationId: "getWidget",
        title: "Get a widget",
        description: "Get a widget. Returns: ok.",
        annotations: [true, false, true, true],
        input: {
          s: "strictObject",
          a: [
            {
              widget: { s: "string", c: [["describe", "The widget."]] },
              q_by: { s: "array", a: ["string"], c: [["optional"]] },
            },
          ],
        },
        output: { r: "OutWidget", c: [["describe", "ok"]] },
        outputWrap: "none",
        wire: { path: { id: "widget" }, query: { "q_by[]": "q_by" } },
      });
      expect(text.slice(text.indexOf("export const widgetsGetWidget"))).toMatchInlineSnapshot(`
      "export const widgetsGetWidget: OperationToolDefinition<ToolInput> = steps[2]!;

      /** Every tool step of Widgets, in spec order. */
      export const tools: readonly ToolDefinition[] = [widgetsListWidgets, widgetsCreateWidget, widgetsGetWidget];

      /** Named groups of these steps, one per tag (the spec declares none), for agents offered a few at a time. */
      export const toolsets: readonly Toolset[] = [
        {
          name: "widgets",
          description: "Operations tagged \\"widgets\\".",
          steps: ["widgets_list_widgets", "widgets_create_widget", "widgets_get_widget"],
        },
      ];
      "
    `);
    },
  );
});
