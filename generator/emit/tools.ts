/**
 * tools.ts of a service: the model's tool steps printed as `defineWiredTool` calls (input and output
 * schemas written out with the `s` builders, zod at run time; the wire mapping as data), the API
 * Call step, and the `tools` list. Everything about a step (fields, wire mapping, fixed values,
 * output wrapping) was decided by the check stage; this module only turns JSON Schemas into schema
 * code trees and prints them.
 *
 * Input objects refuse unknown keys; output objects accept them (services add fields). Components
 * are emitted once, in first-use order, as shared consts (named through this module's name table);
 * cycles are cut.
 */
import type { ToolStepModel, WireSource } from "../model.js";
import { NameTable } from "../names.js";
import { arr, call, chain, constStatement, ident, jsdoc, key, literal, obj, print, str, type Code } from "../print.js";
import { isObject, type Json, type RefResolver } from "../refs.js";
import { compilesWith } from "../pattern.js";
import { flattenAllOf, hasFlag, sentence } from "../schema.js";
import { moduleText, pascal, runtimeModule, type Emitter } from "./file.js";

type Mode = "input" | "output";

/** Names tools.ts imports or declares itself. */
const MODULE_NAMES = ["s", "descriptor", "defineWiredTool", "defineApiCallTool", "ToolDefinition", "Toolset", "tools", "toolsets", "DATE", "DATE_TIME"];

/** What a file part field takes, added to the field's own description (which replaces s.file()'s). */
const FILE_NOTE = "A file: { base64 } or { text }, with an optional filename and contentType.";

const describe = (code: Code, text: string | undefined): Code => (text ? chain(code, "describe", str(text.trim().replace(/\s+/g, " "))) : code);
const optional = (code: Code): Code => chain(code, "optional");

/** Converts JSON Schemas to zod code trees; components become shared consts. */
class SchemaWriter {
  readonly consts: string[] = [];
  readonly uses = new Set<"DATE" | "DATE_TIME">();
  private readonly done = new Map<string, string>();
  /** `mode:$ref` of every schema being written right now: meeting one again is a cycle. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly refs: RefResolver,
    private readonly names: NameTable,
  ) {}

  /** zod code for `node`; `description` (when given) replaces the schema's own. */
  code(node: unknown, mode: Mode, description?: string): Code {
    // A file part or base64 bytes of a body that is not JSON (check/tools.ts): the runtime's schemas.
    const input = isObject(node) ? node["x-stepforge-input"] : undefined;
    if (input === "file" || input === "base64") {
      const text = description ?? (typeof (node as Json).description === "string" ? ((node as Json).description as string) : undefined);
      if (input === "base64") return describe("s.base64()", text);
      return text ? describe("s.file()", `${sentence(text)} ${FILE_NOTE}`) : "s.file()";
    }
    if (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) {
      return describe(this.component(node.$ref, mode), description ?? (typeof node.description === "string" ? node.description : undefined));
    }
    // A $ref elsewhere in the document (`#/paths/…`, `#/components/responses/…`) is inlined, so a
    // cycle through one must be cut here as `component` cuts one through the named schemas.
    const ref = isObject(node) && typeof node.$ref === "string" ? `${mode}:${node.$ref}` : undefined;
    if (ref !== undefined && this.busy.has(ref)) return describe(call("s.looseObject", obj([])), "A nested value of the same shape (recursive; its fields are not listed again).");
    if (ref !== undefined) this.busy.add(ref);
    try {
      const schema = this.refs.deref(node);
      const own = typeof schema.description === "string" ? schema.description : undefined;
      const notes = this.notes(schema, mode);
      const text = description ?? own;
      return describe(this.inline(schema, mode), text !== undefined && notes ? `${sentence(text)} ${notes}` : text);
    } finally {
      if (ref !== undefined) this.busy.delete(ref);
    }
  }

  /** Examples and defaults, written into the description for a model. */
  private notes(schema: Json, mode: Mode): string {
    if (mode === "output") return "";
    const parts: string[] = [];
    const examples = Array.isArray(schema.examples) ? schema.examples : schema.example !== undefined ? [schema.example] : [];
    if (examples.length) parts.push(`Example: ${examples.slice(0, 2).map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join(" or ")}.`);
    if (schema.default !== undefined) parts.push(`Default: ${typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default)}.`);
    return parts.join(" ");
  }

  private component(ref: string, mode: Mode): string {
    const key_ = `${mode}:${ref}`;
    const known = this.done.get(key_);
    if (known) return known;
    const shortName = ref.split("/").pop()!;
    if (this.busy.has(key_)) return print(describe(call("s.looseObject", obj([])), `A nested ${shortName} (recursive; its fields are not listed again).`));
    this.busy.add(key_);
    const schema = this.refs.deref({ $ref: ref });
    const notes = this.notes(schema, mode);
    const text = typeof schema.description === "string" ? `${sentence(schema.description)}${notes ? ` ${notes}` : ""}` : notes;
    const code = describe(this.inline(schema, mode), text || undefined);
    this.busy.delete(key_);
    const name = this.names.claim(`${mode === "input" ? "In" : "Out"}${pascal(shortName) || "Schema"}`, ref).name;
    this.consts.push(constStatement(name, code));
    this.done.set(key_, name);
    return name;
  }

  /** zod code for a resolved schema, without its description. */
  private inline(raw: Json, mode: Mode): Code {
    // Merging `allOf` members writes their properties inline, so a member being written further up
    // (a schema whose property is `allOf: [{ $ref: itself }]`) would recurse without end: then the
    // members are written one by one, where the cycle is cut, and intersected.
    const merged = this.allOfRefs(raw, mode);
    const cycle = merged.some((ref) => this.busy.has(ref));
    const added = cycle ? [] : merged.filter((ref) => !this.busy.has(ref));
    for (const ref of added) this.busy.add(ref);
    try {
      return this.inlineMerged(cycle ? raw : flattenAllOf(this.refs, raw), mode);
    } finally {
      for (const ref of added) this.busy.delete(ref);
    }
  }

  /** `mode:$ref` of each `allOf` member reference that merging would follow, at any depth of `allOf`. */
  private allOfRefs(schema: Json, mode: Mode, depth = 0): string[] {
    if (!Array.isArray(schema.allOf) || depth > 20) return [];
    return schema.allOf.flatMap((member) => {
      const ref = isObject(member) && typeof member.$ref === "string" ? [`${mode}:${member.$ref}`] : [];
      return [...ref, ...this.allOfRefs(this.refs.deref(member), mode, depth + 1)];
    });
  }

  private inlineMerged(schema: Json, mode: Mode): Code {
    if (Array.isArray(schema.allOf)) return schema.allOf.map((m) => this.code(m, mode)).reduce((a, b) => call("s.intersection", a, b));
    const union = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
    if (union && union.length > 0) {
      const parts = union.map((m) => this.code(m, mode));
      const u = parts.length === 1 ? parts[0]! : call("s.union", arr(parts));
      return Array.isArray(schema.type) && schema.type.includes("null") ? chain(u, "nullable") : u;
    }
    if (schema.const !== undefined) return call("s.literal", literal(schema.const));
    let types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : typeof schema.type === "string" ? [schema.type] : [];
    if (types.length === 0 && isObject(schema.properties)) types = ["object"];
    if (types.length === 0 && Array.isArray(schema.enum)) types = [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
    const nullable = types.includes("null") || schema.nullable === true;
    const rest = types.filter((t) => t !== "null");
    let out: Code;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const values = schema.enum.filter((v) => v !== null);
      if (values.length === 0) return "s.null()";
      out = values.every((v) => typeof v === "string") ? call("s.enum", literal(values)) : values.length === 1 ? call("s.literal", literal(values[0])) : call("s.union", arr(values.map((v) => call("s.literal", literal(v)))));
      if (schema.enum.includes(null)) return chain(out, "nullable");
    } else if (rest.length === 0) {
      return types.includes("null") ? "s.null()" : "s.unknown()";
    } else if (rest.length > 1) {
      out = call("s.union", arr(rest.map((t) => this.inline({ ...schema, type: t, description: undefined }, mode))));
    } else {
      out = this.typed(rest[0]!, schema, mode);
    }
    return nullable ? chain(out, "nullable") : out;
  }

  private typed(type: string, schema: Json, mode: Mode): Code {
    const checks = mode === "input";
    const num = (value: unknown, method: string, code: Code): Code => (checks && typeof value === "number" && Number.isFinite(value) ? chain(code, method, String(value)) : code);
    switch (type) {
      case "string": {
        const format = typeof schema.format === "string" ? schema.format : undefined;
        if (!checks) return format ? chain("s.string()", "meta", obj([["format", str(format)]])) : "s.string()";
        // One pattern per string (two become an allOf in JSON Schema, which strict mode refuses):
        // the spec's own when it has one, else a short one for the format. The check stage left only
        // patterns that compile with the u flag (JSON Schema's reading, the mock's): read the same here.
        const own = typeof schema.pattern === "string" && compilesWith(schema.pattern, "u") ? schema.pattern : undefined;
        let out: Code = "s.string()";
        if (format === "email" && !own) out = "s.email()";
        else if ((format === "uri" || format === "url") && !own) out = "s.url()";
        else if (format === "date" && !own) out = this.format("DATE", "date");
        else if (format === "date-time" && !own) out = this.format("DATE_TIME", "date-time");
        else if (format) out = chain("s.string()", "meta", obj([["format", str(format)]]));
        if (own) out = chain(out, "regex", call("new RegExp", str(own), str("u")));
        out = num(schema.minLength, "min", out);
        return num(schema.maxLength, "max", out);
      }
      case "integer":
      case "number": {
        let out: Code = type === "integer" ? "s.number().int()" : "s.number()";
        out = num(schema.minimum, "min", out);
        out = num(schema.maximum, "max", out);
        out = num(schema.exclusiveMinimum, "gt", out);
        return num(schema.exclusiveMaximum, "lt", out);
      }
      case "boolean":
        return "s.boolean()";
      case "array": {
        const out = call("s.array", schema.items === undefined ? "s.unknown()" : this.code(schema.items, mode));
        return num(schema.maxItems, "max", num(schema.minItems, "min", out));
      }
      case "object":
        return this.object(schema, mode);
      default:
        return "s.unknown()";
    }
  }

  private format(constant: "DATE" | "DATE_TIME", format: string): Code {
    this.uses.add(constant);
    return chain(chain("s.string()", "regex", constant), "meta", obj([["format", str(format)]]));
  }

  private object(schema: Json, mode: Mode): Code {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const entries: Array<[string, Code]> = [];
    for (const [name, value] of Object.entries(props)) {
      if (mode === "input" && hasFlag(this.refs, value, "readOnly")) continue;
      if (mode === "output" && hasFlag(this.refs, value, "writeOnly")) continue;
      const code = this.code(value, mode);
      entries.push([key(name), required.has(name) ? code : optional(code)]);
    }
    const ap = schema.additionalProperties;
    if (entries.length === 0 && (ap === undefined || ap === true || isObject(ap))) return call("s.record", "s.string()", isObject(ap) ? this.code(ap, mode) : "s.unknown()");
    if (isObject(ap)) return call("s.catchall", obj(entries), this.code(ap, mode));
    return call(mode === "output" || ap === true ? "s.looseObject" : "s.strictObject", obj(entries));
  }
}

function wireValue(source: WireSource): Code {
  return source.from === "fixed" ? obj([["fixed", literal(source.value)]]) : str(source.field);
}

/** The step's wire mapping as data (runtime/tools/define.ts `StepWire`): per place, wire name → input field or fixed value. */
function wire(step: ToolStepModel): Code {
  const { wire } = step;
  const place = (list: Array<[string, WireSource]>) => obj(list.map(([name, source]) => [key(name), wireValue(source)]));
  const places: Array<[string, Code]> = [];
  if (wire.path.length) places.push(["path", place(wire.path)]);
  if (wire.query.length) places.push(["query", place(wire.query)]);
  if (wire.header.length) places.push(["header", place(wire.header)]);
  if (wire.bodyWhole !== undefined) places.push(["bodyWhole", wireValue(wire.bodyWhole)]);
  else if (wire.bodyObject) places.push(["body", place(wire.body)]);
  if (wire.encoding) places.push(["encoding", str(wire.encoding)]);
  if (wire.files && Object.keys(wire.files).length > 0) places.push(["files", literal(wire.files)]);
  return obj(places);
}

function stepStatement(step: ToolStepModel, name: string, writer: SchemaWriter): string {
  const input = call("s.strictObject", obj(step.fields.map((f) => {
    const code = writer.code(f.schema, "input", f.description);
    return [key(f.name), f.required ? code : optional(code)];
  })));
  let output: Code;
  if (step.output.schema === undefined) {
    output = describe(call("s.looseObject", obj([])), step.output.description ? `${sentence(step.output.description)} (No body.)` : "No body.");
  } else {
    const code = writer.code(step.output.schema, "output", step.output.description || undefined);
    output = step.output.wrap === "none" ? code : call("s.looseObject", obj([[step.output.wrap, code]]));
  }
  const a = step.annotations;
  const definition = obj([
    ["name", str(step.name)],
    ["operationId", str(step.operationId)],
    ["title", str(step.title)],
    ["description", str(step.description)],
    ["annotations", `{ readOnlyHint: ${a.readOnlyHint}, destructiveHint: ${a.destructiveHint}, idempotentHint: ${a.idempotentHint}, openWorldHint: ${a.openWorldHint} }`],
    ...(step.deprecated ? ([["deprecated", "true"]] as Array<[string, Code]>) : []),
    ...(step.replacedBy ? ([["replacedBy", str(step.replacedBy)]] as Array<[string, Code]>) : []),
    ...(step.check ? ([["check", literal(step.check)]] as Array<[string, Code]>) : []),
    ["descriptor"],
    ["input", input],
    ["output", output],
    ["outputWrap", str(step.output.wrap)],
    ["wire", wire(step)],
  ]);
  return [jsdoc(`${step.title}: \`${step.method} ${step.path}\`${step.deprecated ? " (deprecated)" : ""}.`), constStatement(name, call("defineWiredTool", definition), { exported: true })].join("\n");
}

export const emitTools: Emitter = (model, context) => {
  const names = new NameTable(MODULE_NAMES);
  // Step names first, so a component const can never take a step's export name.
  const stepNames = model.toolSteps.map((step) => ident(names.claim(camel(step.name), step.name).name));
  const apiName = model.apiCall ? ident(names.claim(camel(model.apiCall.name), model.apiCall.name).name) : undefined;
  const writer = new SchemaWriter(model.refs, names);
  const blocks = model.toolSteps.map((step, i) => stepStatement(step, stepNames[i]!, writer));
  const apiBlock = model.apiCall
    ? [
        jsdoc(`${model.apiCall.config.title}: any endpoint under the connection's base address (${model.apiCall.config.methods.join(", ")}).`),
        constStatement(apiName!, call("defineApiCallTool", "descriptor", literal(model.apiCall.config)), { exported: true }),
      ].join("\n")
    : undefined;
  const all = [...stepNames, ...(apiName ? [apiName] : [])];
  const body = [
    `import { ${apiBlock ? "defineApiCallTool, " : ""}defineWiredTool, s, type ToolDefinition, type Toolset } from ${str(runtimeModule(context, "tools"))};`,
    `import { descriptor } from "./descriptor.js";`,
    "",
    ...(writer.uses.has("DATE_TIME")
      ? [jsdoc("ISO-8601 date-time: 2024-06-14T16:00:00Z, with optional seconds, fraction and offset."), "const DATE_TIME = /^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?$/;", ""]
      : []),
    ...(writer.uses.has("DATE") ? [jsdoc("A calendar date: YYYY-MM-DD."), "const DATE = /^\\d{4}-\\d{2}-\\d{2}$/;", ""] : []),
    ...(writer.consts.length ? ["// Schemas of the spec's components, shared by the steps below.", ...writer.consts.flatMap((c) => [c, ""])] : []),
    ...blocks.flatMap((b) => [b, ""]),
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
