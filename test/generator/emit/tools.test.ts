/** generator/emit/tools.ts: each rule of the schema → zod translation and the step layout. */
import { describe, expect, it } from "vitest";
import { emitTools } from "../../../generator/emit/tools.js";
import { context, modelOf } from "./fixture.js";

/** The printed `input:` of the step for createWidget, with `schema` as its body. */
async function inputOf(schema: unknown, fixed?: Record<string, unknown>, foreign = false): Promise<string> {
  const model = modelOf((d) => {
    if (foreign) {
      delete d["x-stepforge"];
      delete d.paths["/widgets"].get["x-stepforge-paging"];
    }
    d.paths = { "/widgets": { post: { ...d.paths["/widgets"].post, ...(fixed ? { "x-stepforge-tool": { fixed } } : {}) } } };
    d.paths["/widgets"].post.requestBody.content["application/json"].schema = schema;
  });
  const [file] = await emitTools(model, context);
  const text = file!.content;
  return text.slice(text.indexOf("  input:"), text.indexOf("  output:")).trimEnd();
}

describe("emitTools", () => {
  it("strings: format, pattern, lengths; an invalid pattern is left out instead of throwing at import", async () => {
    expect(await inputOf({ type: "object", properties: { a: { type: "string", format: "date" }, b: { type: "string", pattern: "^x+$", minLength: 1 }, c: { type: "string", format: "email" } } })).toMatchInlineSnapshot(`
      "  input: s.strictObject({
          a: s.string().regex(DATE).meta({ format: "date" }).optional(),
          b: s.string().regex(new RegExp("^x+$", "u")).min(1).optional(),
          c: s.email().optional(),
        }),"
    `);
    // A strict spec refuses it (SF162); a foreign one gets a warning and no check.
    await expect(inputOf({ type: "object", properties: { bad: { type: "string", pattern: "([" } } })).rejects.toThrow(/SF162 pattern "\(\[" is not a valid/);
    expect(await inputOf({ type: "object", properties: { bad: { type: "string", pattern: "([" } } }, undefined, true)).not.toContain("RegExp");
  });

  it("numbers, enums, nullable unions and defaults (written for the model, optional in the input)", async () => {
    expect(await inputOf({ type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 1, maximum: 10 }, mode: { enum: ["a", "b", null], default: "a" }, v: { type: ["string", "number", "null"] } } })).toMatchInlineSnapshot(`
      "  input: s.strictObject({
          n: s.number().int().min(1).max(10),
          mode: s.enum(["a", "b"]).nullable().optional(),
          v: s.union([s.string(), s.number()]).nullable().optional(),
        }),"
    `);
  });

  it("a body property named constructor is a field like any other (it used to vanish), beside a fixed one", async () => {
    const text = await inputOf({ type: "object", properties: { constructor: { type: "string" }, other: { type: "string" } } }, { other: "x" });
    expect(text).toMatchInlineSnapshot(`"  input: s.strictObject({ constructor: s.string().optional() }),"`);
  });

  it("a fixed value travels in the wire mapping as { fixed }, never as an input field", async () => {
    const model = modelOf((d) => {
      d.paths = { "/widgets": { post: { ...d.paths["/widgets"].post, "x-stepforge-tool": { fixed: { other: 7 } } } } };
      d.paths["/widgets"].post.requestBody.content["application/json"].schema = { type: "object", properties: { constructor: { type: "string" }, other: { type: "number" } } };
    });
    const [file] = await emitTools(model, context);
    expect(file!.content).toContain(`wire: { body: { constructor: "constructor", other: { fixed: 7 } } },`);
  });

  it("the wire mapping says, as data, which input field goes where (renamed and odd wire names kept)", async () => {
    const model = modelOf((d) => {
      d.paths["/widgets/{id}"].get.parameters.push({ name: "q_by[]", in: "query", schema: { type: "array", items: { type: "string" } } });
      d.paths["/widgets/{id}"].get["x-stepforge-tool"] = { fields: { widget: { from: "id", description: "The widget." } } };
    });
    const [file] = await emitTools(model, context);
    const text = file!.content;
    expect(text.slice(text.indexOf("export const widgetsGetWidget"))).toMatchInlineSnapshot(`
      "export const widgetsGetWidget = defineWiredTool({
        name: "widgets_get_widget",
        operationId: "getWidget",
        title: "Get a widget",
        description: "Get a widget. Returns: ok.",
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
        descriptor,
        input: s.strictObject({ widget: s.string().describe("The widget."), q_by: s.array(s.string()).optional() }),
        output: OutWidget.describe("ok"),
        outputWrap: "none",
        wire: { path: { id: "widget" }, query: { "q_by[]": "q_by" } },
      });

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
  });
});
