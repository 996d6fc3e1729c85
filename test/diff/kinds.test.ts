/**
 * One pair of specs per kind of change, with the report `stepforge diff` gives for it: kind,
 * breaking (B) or compatible (c), target and detail. The old spec is test/diff/fixtures/widgets.yaml
 * (or the project's trello.yaml for triggers and toolsets), the new one the same with one edit.
 * Each group's expected classification is one inline snapshot, name of the edit → report lines:
 * the classification table, read in one place, that a changed verdict shows up in as a diff.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { packageRoot } from "../../generator/package-root.js";
import { type Json, reportLines } from "./report-lines.js";

const WIDGETS = readFileSync(join(import.meta.dirname, "fixtures", "widgets.yaml"), "utf8");
const TRELLO = readFileSync(join(packageRoot(), "specs", "trello.yaml"), "utf8");

type Edit = (doc: Json) => void;

async function report(edit: Edit, before: Edit = () => undefined, base = WIDGETS): Promise<string[]> {
  const old = parse(base) as Json;
  before(old);
  return reportLines(old, edit);
}

/** A kind of change: its name, the edit; what both sides get before it, and the spec they start
 * from when it is not widgets.yaml. */
type Case = [name: string, edit: Edit, before?: Edit, base?: string];

/** A line a case: its name → its edit's report lines, joined by " + " (what the inline snapshots hold). */
async function classify(cases: Case[]): Promise<string> {
  const table: string[] = [];
  for (const [name, edit, before, base] of cases) {
    const lines = await report(edit, before, base);
    table.push(`${name} → ${lines.join(" + ") || "(no change)"}`);
  }
  return table.join("\n");
}

const widgets = (doc: Json) => doc.paths["/widgets"];
const widget = (doc: Json) => doc.paths["/widgets/{id}"];
const schema = (doc: Json, name: string) => doc.components.schemas[name];
const param = (op: Json, name: string) => op.parameters.find((p: Json) => p.name === name);

describe("operations", { timeout: 120_000 }, () => {
  const cases: Case[] = [
    [
      "added",
      (d) =>
        (d.paths["/widgets/{id}/parts"] = {
          get: {
            operationId: "listParts",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            responses: { "200": { description: "ok" } },
          },
        }),
    ],
    ["removed", (d) => delete widget(d).delete],
    ["renamed (same method and path, new operationId)", (d) => (widget(d).get.operationId = "fetchWidget")],
    [
      "moved (same operationId, new path)",
      (d) => {
        d.paths["/gadgets/{id}"] = { get: widget(d).get };
        delete widget(d).get;
      },
    ],
    ["deprecated", (d) => (widget(d).get.deprecated = true)],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "added → c operation-added listParts: GET /widgets/{id}/parts added [model] + c tool-added widgets_list_parts: step added [model]
      removed → B operation-removed deleteWidget: DELETE /widgets/{id} removed; calls to deleteWidget() no longer compile [declarations] + B tool-removed widgets_delete_widget: step removed [model]
      renamed (same method and path, new operationId) → B operation-renamed fetchWidget: getWidget → fetchWidget (GET /widgets/{id}) [declarations] + B tool-renamed widgets_fetch_widget: widgets_get_widget → widgets_fetch_widget [model]
      moved (same operationId, new path) → c operation-moved getWidget: GET /widgets/{id} → GET /gadgets/{id} [model] + B toolset-changed widgets: -widgets_get_widget [model] + c toolset-added gadgets: toolset added [model]
      deprecated → c operation-deprecated getWidget: marked deprecated [model]"
    `);
  });
  it("two at one endpoint (paths that differ only in a parameter's name): each compared with its own", async () => {
    // `/widgets/{id}` and `/widgets/{serial}` are one endpoint to the surface (parameter names left out).
    const bySerial = (d: Json) => {
      d.paths["/widgets/{serial}"] = {
        get: {
          operationId: "getWidgetBySerial",
          parameters: [{ name: "serial", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok" } },
        },
      };
    };
    expect(await report(() => undefined, bySerial)).toEqual([]);
    expect(await report((d) => (d.paths["/widgets/{serial}"].get.deprecated = true), bySerial)).toEqual([
      "c operation-deprecated getWidgetBySerial: marked deprecated [model]",
    ]);
  });
});

describe("parameters", { timeout: 120_000 }, () => {
  const cases: Case[] = [
    [
      "optional one added",
      (d) => widgets(d).get.parameters.push({ name: "page", in: "query", schema: { type: "integer" } }),
    ],
    [
      "required one added",
      (d) => widgets(d).get.parameters.push({ name: "page", in: "query", required: true, schema: { type: "integer" } }),
    ],
    ["removed", (d) => (widgets(d).get.parameters = [param(widgets(d).get, "limit")])],
    ["query parameter renamed", (d) => (param(widgets(d).get, "limit").name = "max")],
    [
      "path parameter renamed",
      (d) => {
        const item = widget(d);
        for (const op of [item.get, item.delete]) param(op, "id").name = "widgetId";
        delete d.paths["/widgets/{id}"];
        d.paths["/widgets/{widgetId}"] = item;
      },
    ],
    ["made required", (d) => (param(widgets(d).get, "limit").required = true)],
    [
      "made optional",
      (d) => (param(widgets(d).get, "limit").required = false),
      (d) => (param(widgets(d).get, "limit").required = true),
    ],
    ["type narrowed (integer to string)", (d) => (param(widgets(d).get, "limit").schema = { type: "string" })],
    ["type widened (enum to any string)", (d) => (param(widgets(d).get, "color").schema = { type: "string" })],
    ["enum value added", (d) => param(widgets(d).get, "color").schema.enum.push("yellow")],
    ["enum value removed", (d) => param(widgets(d).get, "color").schema.enum.pop()],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "optional one added → c tool-field-added widgets_list_widgets: optional field page added [model] + c parameter-added listWidgets: query parameter page: optional number [checker]
      required one added → B tool-field-added widgets_list_widgets: required field page added [model] + B parameter-added listWidgets: query parameter page: required number [checker]
      removed → B tool-field-removed widgets_list_widgets: field color removed [model] + B parameter-removed listWidgets: query parameter color: removed [declarations]
      query parameter renamed → B parameter-renamed listWidgets: query parameter limit → max [declarations] + B tool-field-removed widgets_list_widgets: field limit removed [model] + c tool-field-added widgets_list_widgets: optional field max added [model]
      path parameter renamed → B parameter-renamed getWidget: path parameter id → widgetId [declarations] + B parameter-renamed deleteWidget: path parameter id → widgetId [declarations] + B tool-field-removed widgets_get_widget: field id removed [model] + B tool-field-added widgets_get_widget: required field widgetId added [model] + B tool-field-removed widgets_delete_widget: field id removed [model] + B tool-field-added widgets_delete_widget: required field widgetId added [model]
      made required → B tool-field-required widgets_list_widgets: field limit became required [model] + B parameter-required listWidgets: query parameter limit: now required [checker]
      made optional → c tool-field-optional widgets_list_widgets: field limit became optional [model] + c parameter-optional listWidgets: query parameter limit: now optional [checker]
      type narrowed (integer to string) → B tool-field-changed widgets_list_widgets: field limit: no longer accepts integer [model] + B parameter-type-changed listWidgets: query parameter limit: number → string [checker]
      type widened (enum to any string) → B tool-field-changed widgets_list_widgets: field color: schema changed (treated as breaking: wider and narrower look alike here) [model] + c parameter-type-changed listWidgets: query parameter color: "red" | "green" | "blue" → string [checker]
      enum value added → c tool-field-changed widgets_list_widgets: field color: accepts more values [model] + c parameter-enum-value-added listWidgets: query parameter color: value "yellow" added [checker]
      enum value removed → B tool-field-changed widgets_list_widgets: field color: values "blue" no longer accepted [model] + B parameter-enum-value-removed listWidgets: query parameter color: value "blue" removed [checker]"
    `);
  });
});

describe("request bodies", { timeout: 120_000 }, () => {
  // A NewWidget field is both a field of the create step (model) and of createWidget's request body.
  const newWidget = (d: Json) => schema(d, "NewWidget");
  const cases: Case[] = [
    ["body removed", (d) => delete widgets(d).post.requestBody],
    [
      "required body added",
      (d) =>
        (widget(d).delete.requestBody = {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { reason: { type: "string" } } } } },
        }),
    ],
    ["optional field added", (d) => (newWidget(d).properties.weight = { type: "number" })],
    [
      "required field added",
      (d) => {
        newWidget(d).properties.weight = { type: "number" };
        newWidget(d).required.push("weight");
      },
    ],
    ["field removed", (d) => delete newWidget(d).properties.size],
    ["field made required", (d) => newWidget(d).required.push("size")],
    ["field made optional", (d) => (newWidget(d).required = [])],
    ["field type changed", (d) => (newWidget(d).properties.size = { type: "string" })],
    ["enum value added and one removed", (d) => (newWidget(d).properties.color.enum = ["red", "green", "purple"])],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "body removed → B tool-field-removed widgets_create_widget: field name removed [model] + B tool-field-removed widgets_create_widget: field size removed [model] + B tool-field-removed widgets_create_widget: field color removed [model] + B request-body-removed createWidget: request body: removed [declarations]
      required body added → c tool-field-added widgets_delete_widget: optional field reason added [model] + B request-body-added deleteWidget: request body: required { reason?: string | undefined; } [checker]
      optional field added → c tool-field-added widgets_create_widget: optional field weight added [model] + c request-field-added createWidget: request field weight: optional number [checker]
      required field added → B tool-field-added widgets_create_widget: required field weight added [model] + B request-field-added createWidget: request field weight: required number [checker]
      field removed → B tool-field-removed widgets_create_widget: field size removed [model] + B request-field-removed createWidget: request field size: removed [declarations]
      field made required → B tool-field-required widgets_create_widget: field size became required [model] + B request-field-required createWidget: request field size: now required [checker]
      field made optional → c tool-field-optional widgets_create_widget: field name became optional [model] + c request-field-optional createWidget: request field name: now optional [checker]
      field type changed → B tool-field-changed widgets_create_widget: field size: no longer accepts integer [model] + B request-type-changed createWidget: request field size: number → string [checker]
      enum value added and one removed → B tool-field-changed widgets_create_widget: field color: values "blue" no longer accepted [model] + B request-enum-value-removed createWidget: request field color: value "blue" removed [checker] + c request-enum-value-added createWidget: request field color: value "purple" added [checker]"
    `);
  });
});

describe("responses", { timeout: 120_000 }, () => {
  // A Widget's field is in three answers (a list of them, the created one, the one read), and each
  // is reported: `[]` marks the list's items.
  const widgetSchema = (d: Json) => schema(d, "Widget");
  const cases: Case[] = [
    ["field added", (d) => (widgetSchema(d).properties.weight = { type: "number" })],
    ["field removed", (d) => delete widgetSchema(d).properties.tags],
    ["field made required", (d) => widgetSchema(d).required.push("size")],
    ["field made optional", (d) => (widgetSchema(d).required = ["id"])],
    ["field type changed", (d) => (widgetSchema(d).properties.size = { type: "string" })],
    ["field made nullable", (d) => (widgetSchema(d).properties.owner.type = ["object", "null"])],
    ["enum value added", (d) => widgetSchema(d).properties.status.enum.push("deleted")],
    ["enum value removed", (d) => widgetSchema(d).properties.status.enum.pop()],
    [
      "a description changed: nothing for the checker, only the tool step's text",
      (d) => (widget(d).get.summary = "Read one widget"),
    ],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "field added → c response-field-added listWidgets: response field [].weight: optional number [checker] + c response-field-added createWidget: response field weight: optional number [checker] + c response-field-added getWidget: response field weight: optional number [checker]
      field removed → B response-field-removed listWidgets: response field [].tags: removed [declarations] + B response-field-removed createWidget: response field tags: removed [declarations] + B response-field-removed getWidget: response field tags: removed [declarations]
      field made required → c response-field-required listWidgets: response field [].size: now required [checker] + c response-field-required createWidget: response field size: now required [checker] + c response-field-required getWidget: response field size: now required [checker]
      field made optional → B response-field-optional listWidgets: response field [].name: now optional [checker] + B response-field-optional createWidget: response field name: now optional [checker] + B response-field-optional getWidget: response field name: now optional [checker]
      field type changed → B response-type-changed listWidgets: response field [].size: number → string [checker] + B response-type-changed createWidget: response field size: number → string [checker] + B response-type-changed getWidget: response field size: number → string [checker]
      field made nullable → B response-type-changed listWidgets: response field [].owner: now nullable [checker] + B response-type-changed createWidget: response field owner: now nullable [checker] + B response-type-changed getWidget: response field owner: now nullable [checker]
      enum value added → B response-enum-value-added listWidgets: response field [].status: value "deleted" added [checker] + B response-enum-value-added createWidget: response field status: value "deleted" added [checker] + B response-enum-value-added getWidget: response field status: value "deleted" added [checker]
      enum value removed → c response-enum-value-removed listWidgets: response field [].status: value "archived" removed [checker] + c response-enum-value-removed createWidget: response field status: value "archived" removed [checker] + c response-enum-value-removed getWidget: response field status: value "archived" removed [checker]
      a description changed: nothing for the checker, only the tool step's text → c tool-description-changed widgets_get_widget: title "Get a widget" → "Read one widget" [model]"
    `);
  });
});

describe("auth", { timeout: 120_000 }, () => {
  const apiKey = (d: Json) => {
    d.components.securitySchemes = { key: { type: "apiKey", in: "header", name: "X-Api-Key" } };
    d.security = [{ key: [] }];
  };
  const cases: Case[] = [
    ["an API key required where none was", apiKey],
    [
      "a bearer token offered beside the API key",
      (d) => {
        d.components.securitySchemes.bearer = { type: "http", scheme: "bearer" };
        d.security.push({ bearer: [] });
      },
      apiKey,
    ],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "an API key required where none was → B auth-changed auth: none → api-key [model] + B connection-field-added auth: required connection field apiKey added [model]
      a bearer token offered beside the API key → B auth-mode-removed auth: mode default removed [model] + c auth-mode-added auth: mode bearer added [model] + c auth-mode-added auth: mode key added [model] + c connection-field-added auth: optional connection field accessToken added [model]"
    `);
  });
});

describe("triggers and toolsets (the project's trello.yaml)", { timeout: 120_000 }, () => {
  const triggers = (d: Json) => d["x-stepforge-triggers"].triggers as Json[];
  const cases: Case[] = [
    [
      "trigger removed, another's option made required",
      (d) => {
        const list = triggers(d);
        const withOption = list.find((t) => Object.keys(t.options ?? {}).length > 0)!;
        const option = Object.values(withOption.options)[0] as Json;
        option.required = true;
        list.splice(list.indexOf(list.find((t) => t !== withOption)!), 1);
      },
      undefined,
      TRELLO,
    ],
    ["toolset removed", (d) => d["x-stepforge"].tools.toolsets.pop(), undefined, TRELLO],
  ];
  it("classifies each edit", async () => {
    expect(await classify(cases)).toMatchInlineSnapshot(`
      "trigger removed, another's option made required → B trigger-removed trello_card_updated: trigger removed [model] + B trigger-changed trello_new_card: option lists became required [model]
      toolset removed → B toolset-removed api: toolset removed [model]"
    `);
  });
});
