/**
 * tools.ts of a service: the model's tool steps as data — per step its name, texts, annotations,
 * input and output schemas (the `s` builder call trees of tool-schemas.ts) and wire mapping — handed
 * to `defineWiredTools`, which builds the zod schemas and the steps when the module is imported; one
 * exported const per step, the API Call step, and the `tools` and `toolsets` lists. Everything
 * about a step (fields, wire mapping, fixed values, output wrapping) was decided by the check stage.
 *
 * Why data and not `s.strictObject({ … })` code: a consumer's type-checker checked every call,
 * chain and object literal of the schemas (most of the generated code's check time on large specs);
 * a JSON string it scans once (print.ts `compactJsonData`: one line per shared schema and per step,
 * no layout whitespace, which a bundle would carry). The zod schemas built are the same.
 */
import type { SchemaData, WiredStepData, WiredToolsData } from "../../runtime/tools/data.js";
import type { StepWire, WireValue } from "../../runtime/tools/define.js";
import type { ToolStepModel, WireSource } from "../model.js";
import { NameTable } from "../names.js";
import { arr, call, compactJsonData, constStatement, ident, jsdoc, literal, str } from "../print.js";
import { sentence } from "../schema.js";
import { moduleText, pascal, runtimeModule, type Emitter } from "./file.js";
import { describe, optional, SchemaWriter } from "./tool-schemas.js";

/** Names tools.ts imports or declares itself. */
const MODULE_NAMES = [
  "s",
  "descriptor",
  "defineWiredTool",
  "defineWiredTools",
  "defineApiCallTool",
  "ToolDefinition",
  "Toolset",
  "tools",
  "toolsets",
  "steps",
  "DATE",
  "DATE_TIME",
];

function wireValue(source: WireSource): WireValue {
  return source.from === "fixed" ? { fixed: source.value } : source.field;
}

/** The step's wire mapping (runtime/tools/define.ts `StepWire`): per place, wire name → input field or fixed value. */
function wire(step: ToolStepModel): StepWire {
  const { wire } = step;
  const place = (list: Array<[string, WireSource]>) => {
    const out: Record<string, WireValue> = {};
    for (const [name, source] of list)
      Object.defineProperty(out, name, {
        value: wireValue(source),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  };
  return {
    ...(wire.path.length ? { path: place(wire.path) } : {}),
    ...(wire.query.length ? { query: place(wire.query) } : {}),
    ...(wire.header.length ? { header: place(wire.header) } : {}),
    ...(wire.bodyWhole !== undefined
      ? { bodyWhole: wireValue(wire.bodyWhole) }
      : wire.bodyObject
        ? { body: place(wire.body) }
        : {}),
    ...(wire.encoding ? { encoding: wire.encoding } : {}),
    ...(wire.files && Object.keys(wire.files).length > 0 ? { files: wire.files } : {}),
  };
}

function stepData(step: ToolStepModel, writer: SchemaWriter): WiredStepData {
  const shape: Record<string, SchemaData> = {};
  for (const f of step.fields) {
    const data = writer.data(f.schema, "input", f.description);
    Object.defineProperty(shape, f.name, {
      value: f.required ? data : optional(data),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  let output: SchemaData;
  if (step.output.schema === undefined) {
    output = describe(
      { s: "looseObject", a: [{}] },
      step.output.description ? `${sentence(step.output.description)} (No body.)` : "No body.",
    );
  } else {
    const data = writer.data(step.output.schema, "output", step.output.description || undefined);
    output = step.output.wrap === "none" ? data : { s: "looseObject", a: [{ [step.output.wrap]: data }] };
  }
  const a = step.annotations;
  return {
    name: step.name,
    operationId: step.operationId,
    title: step.title,
    description: step.description,
    annotations: [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint],
    ...(step.deprecated ? { deprecated: true } : {}),
    ...(step.replacedBy ? { replacedBy: step.replacedBy } : {}),
    ...(step.check ? { check: step.check } : {}),
    input: { s: "strictObject", a: [shape] },
    output,
    outputWrap: step.output.wrap,
    wire: wire(step),
  };
}

export const emitTools: Emitter = (model, context) => {
  const names = new NameTable(MODULE_NAMES);
  const stepNames = model.toolSteps.map((step) => ident(names.claim(camel(step.name), step.name).name));
  const apiName = model.apiCall ? ident(names.claim(camel(model.apiCall.name), model.apiCall.name).name) : undefined;
  // Shared schemas are keys of the data, not module names: a table of their own.
  const writer = new SchemaWriter(model.refs, new NameTable());
  const steps = model.toolSteps.map((step) => stepData(step, writer));
  const data: WiredToolsData = { ...(Object.keys(writer.shared).length ? { schemas: writer.shared } : {}), steps };
  const apiBlock = model.apiCall
    ? [
        jsdoc(
          `${model.apiCall.config.title}: any endpoint under the connection's base address ` +
            `(${model.apiCall.config.methods.join(", ")}).`,
        ),
        constStatement(apiName!, call("defineApiCallTool", "descriptor", literal(model.apiCall.config)), {
          exported: true,
          type: "ApiCallToolDefinition",
        }),
      ].join("\n")
    : undefined;
  const all = [...stepNames, ...(apiName ? [apiName] : [])];
  const imports = [
    apiBlock ? "defineApiCallTool" : "",
    steps.length ? "defineWiredTools" : "",
    // Every export's type is written out (isolatedDeclarations): its .d.ts then needs no type-checker.
    apiBlock ? "type ApiCallToolDefinition" : "",
    steps.length ? "type OperationToolDefinition" : "",
    steps.length ? "type ToolInput" : "",
    "type ToolDefinition",
    "type Toolset",
  ];
  const body = [
    `import { ${imports.filter(Boolean).join(", ")} } from ${str(runtimeModule(context, "tools"))};`,
    `import { descriptor } from "./descriptor.js";`,
    "",
    ...(steps.length
      ? [
          jsdoc(
            `The tool steps of ${model.title} as data: names, texts, wire mappings, and ` +
              `input and output schemas as calls of ` +
              "the `s` builders. Built into zod schemas when this module is imported; written as JSON text, which a " +
              "type-checker scans as one string instead of checking every schema in every " +
              "project that compiles this module.",
          ),
          `const steps = defineWiredTools(descriptor, ${compactJsonData(data)});`,
          "",
        ]
      : []),
    ...model.toolSteps.flatMap((step, i) => [
      jsdoc(`${step.title}: \`${step.method} ${step.path}\`${step.deprecated ? " (deprecated)" : ""}.`),
      `export const ${stepNames[i]}: OperationToolDefinition<ToolInput> = steps[${i}]!;`,
      "",
    ]),
    ...(apiBlock ? [apiBlock, ""] : []),
    jsdoc(`Every tool step of ${model.title}, in spec order.`),
    constStatement("tools", arr(all), { exported: true, type: "readonly ToolDefinition[]" }),
    "",
    jsdoc(
      model.toolsetsFromTags
        ? "Named groups of these steps, one per tag (the spec declares none), for agents offered a few at a time."
        : "Named groups of these steps (x-stepforge.tools.toolsets), for agents offered a few at a time.",
    ),
    constStatement("toolsets", literal(model.toolsets), { exported: true, type: "readonly Toolset[]" }),
  ];
  return [{ path: `${model.id}/tools.ts`, content: moduleText(context.specLabel, body) }];
};

function camel(name: string): string {
  const p = pascal(name);
  return p ? p[0]!.toLowerCase() + p.slice(1) : "tool";
}
