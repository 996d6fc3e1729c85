/**
 * tools.ts of a service: one agent tool step per operation (named `<service>_<snake_case(id)>`
 * unless `x-stepforge-tool` says otherwise), the composite/legacy steps and the API Call step of
 * `x-stepforge.tools`, each with zod input and output schemas written out as code from the
 * OpenAPI parameters, request body and success response, a handler on the service client, a title,
 * a description for a model and behaviour hints.
 *
 * The input is one flat object: path parameters, query parameters and body properties side by side
 * (kebab or bracketed wire names become snake_case; a name taken twice gets a `query_`/`body_`
 * prefix). Input objects refuse unknown keys; output objects accept them (services add fields).
 * Output is deterministic: components are emitted once, in first-use order, cycles cut.
 */
import { SpecError, type Diagnostic } from "../diagnostics.js";
import type { OperationModel, ServiceModel } from "../model.js";
import type { CompositeTool, OperationTool, ToolField } from "../../runtime/tools/model.js";
import { TOOL_NAME } from "../../runtime/tools/model.js";
import { codeHeader, pascal, runtimeModule, type Emitter } from "./file.js";

type Json = Record<string, unknown>;
type Mode = "input" | "output";

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** createCard → create_card; getLeadsByIDs → get_leads_by_ids. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
}

/** A wire name as an input field name: `source-countries` → `source_countries`, `q_by[]` → `q_by`. */
export function fieldNameOf(wire: string): string {
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(wire)) return wire;
  const name = wire
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return /^[A-Za-z]/.test(name) ? name : `f_${name}`;
}

/**
 * `<service>_<snake_case(operationId)>`, cut to 64 characters (with a short digest so cut names
 * stay distinct) and numbered when a name is already taken. Names written in the spec are never
 * changed; only derived ones.
 */
export function derivedName(service: string, operationId: string, taken: (name: string) => boolean): string {
  let name = `${service}_${snakeCase(operationId) || "operation"}`;
  if (name.length > 64) {
    let hash = 0;
    for (const c of operationId) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    name = `${name.slice(0, 57).replace(/_+$/, "")}_${hash.toString(36).slice(0, 6)}`;
  }
  let candidate = name;
  for (let i = 2; taken(candidate); i++) candidate = `${name.slice(0, 64 - String(i).length - 1)}_${i}`;
  return candidate;
}

function camel(name: string): string {
  const p = pascal(name);
  return p[0]!.toLowerCase() + p.slice(1);
}

const q = (value: unknown) => JSON.stringify(value);

function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  if (!t) return "";
  return /[.!?)]$/.test(t) ? t : `${t}.`;
}

/** Converts OpenAPI 3.1 schemas to zod source code; components become shared consts. */
class SchemaWriter {
  readonly consts: string[] = [];
  private readonly done = new Map<string, string>();
  private readonly busy = new Set<string>();

  constructor(private readonly doc: Json) {}

  resolve(node: unknown, depth = 0): Json {
    if (isObject(node) && typeof node.$ref === "string" && depth < 20) {
      const target = this.pointer(node.$ref);
      const { $ref: _ref, ...siblings } = node;
      return { ...this.resolve(target, depth + 1), ...siblings };
    }
    return isObject(node) ? node : {};
  }

  private pointer(ref: string): unknown {
    let node: unknown = this.doc;
    for (const raw of ref.replace(/^#\//, "").split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObject(node) ? node[key] : undefined;
    }
    return node;
  }

  /** Merges `allOf` members that are all objects into one object schema. */
  flatten(schema: Json): Json {
    if (!Array.isArray(schema.allOf)) return schema;
    const members = schema.allOf.map((m) => this.flatten(this.resolve(m)));
    if (!members.every((m) => m.type === "object" || isObject(m.properties))) return schema;
    const { allOf: _allOf, ...rest } = schema;
    const properties: Json = {};
    const required = new Set<string>();
    let additional: unknown;
    for (const m of [...members, rest]) {
      Object.assign(properties, isObject(m.properties) ? m.properties : {});
      for (const r of Array.isArray(m.required) ? m.required : []) required.add(String(r));
      if (m.additionalProperties !== undefined) additional = m.additionalProperties;
    }
    const description = rest.description ?? members.map((m) => m.description).find((d) => typeof d === "string");
    return {
      type: "object",
      ...(description !== undefined ? { description } : {}),
      properties,
      ...(required.size ? { required: [...required] } : {}),
      ...(additional !== undefined ? { additionalProperties: additional } : {}),
    };
  }

  /** The kind of value a schema describes, after refs and allOf. */
  kindOf(schema: unknown): "object" | "array" | "other" {
    const s = this.flatten(this.resolve(schema));
    const type = Array.isArray(s.type) ? s.type.filter((t) => t !== "null") : [s.type];
    if (type.length === 1 && type[0] === "object") return "object";
    if (type.length === 1 && type[0] === "array") return "array";
    if (type[0] === undefined && isObject(s.properties)) return "object";
    return "other";
  }

  /** zod code for `node`; `description` (when given) replaces the schema's own. */
  code(node: unknown, mode: Mode, description?: string): string {
    let base: string;
    let own: string | undefined;
    if (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) {
      base = this.component(node.$ref, mode);
      own = typeof node.description === "string" ? node.description : undefined;
    } else {
      const schema = this.resolve(node);
      base = this.inline(schema, mode);
      own = typeof schema.description === "string" ? schema.description : undefined;
      const extra = this.notes(schema, mode);
      if (description === undefined && own !== undefined && extra) own = `${sentence(own)} ${extra}`;
      else if (description !== undefined && extra) description = `${sentence(description)} ${extra}`;
    }
    const text = description ?? own;
    return text ? `${base}.describe(${q(text.trim().replace(/\s+/g, " "))})` : base;
  }

  /** Examples and defaults, written into the description for a model. */
  notes(schema: Json, mode: Mode): string {
    if (mode === "output") return "";
    const parts: string[] = [];
    const examples = Array.isArray(schema.examples) ? schema.examples : schema.example !== undefined ? [schema.example] : [];
    if (examples.length) parts.push(`Example: ${examples.slice(0, 2).map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join(" or ")}.`);
    if (schema.default !== undefined) parts.push(`Default: ${typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default)}.`);
    return parts.join(" ");
  }

  private component(ref: string, mode: Mode): string {
    const name = `${mode === "input" ? "In" : "Out"}${pascal(ref.split("/").pop()!)}`;
    const key = `${mode}:${ref}`;
    const known = this.done.get(key);
    if (known) return known;
    if (this.busy.has(key)) return `z.looseObject({}).describe(${q(`A nested ${ref.split("/").pop()} (recursive; its fields are not listed again).`)})`;
    this.busy.add(key);
    const schema = this.resolve({ $ref: ref });
    let body = this.inline(schema, mode);
    const notes = this.notes(schema, mode);
    const description = typeof schema.description === "string" ? `${sentence(schema.description)}${notes ? ` ${notes}` : ""}` : notes;
    if (description) body = `${body}.describe(${q(description.trim().replace(/\s+/g, " "))})`;
    this.busy.delete(key);
    this.consts.push(`const ${name} = ${body};`);
    this.done.set(key, name);
    return name;
  }

  /** zod code for a resolved schema, without its description. */
  inline(raw: Json, mode: Mode): string {
    const schema = this.flatten(raw);
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((m) => this.code(m, mode));
      return parts.reduce((a, b) => `z.intersection(${a}, ${b})`);
    }
    const union = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
    if (union) {
      const parts = union.map((m) => this.code(m, mode));
      const nullable = Array.isArray(schema.type) && schema.type.includes("null");
      const u = parts.length === 1 ? parts[0]! : `z.union([${parts.join(", ")}])`;
      return nullable ? `${u}.nullable()` : u;
    }
    if (schema.const !== undefined) return `z.literal(${q(schema.const)})`;
    let types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
    if (types.length === 0 && isObject(schema.properties)) types = ["object"];
    if (types.length === 0 && Array.isArray(schema.enum)) types = [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
    const nullable = types.includes("null") || schema.nullable === true;
    const rest = types.filter((t) => t !== "null");
    let out: string;
    if (Array.isArray(schema.enum)) {
      const values = schema.enum.filter((v) => v !== null);
      out = values.every((v) => typeof v === "string") ? `z.enum(${q(values)})` : values.length === 1 ? `z.literal(${q(values[0])})` : `z.union([${values.map((v) => `z.literal(${q(v)})`).join(", ")}])`;
      if (schema.enum.includes(null)) return `${out}.nullable()`;
    } else if (rest.length === 0) {
      out = types.includes("null") ? "z.null()" : "z.unknown()";
      return out;
    } else if (rest.length > 1) {
      out = `z.union([${rest.map((t) => this.inline({ ...schema, type: t, description: undefined }, mode)).join(", ")}])`;
    } else {
      out = this.typed(rest[0]!, schema, mode);
    }
    return nullable ? `${out}.nullable()` : out;
  }

  private typed(type: string, schema: Json, mode: Mode): string {
    const strictChecks = mode === "input";
    switch (type) {
      case "string": {
        const format = typeof schema.format === "string" ? schema.format : undefined;
        let out = "z.string()";
        if (strictChecks) {
          // One pattern per string (two become an allOf in JSON Schema, which strict mode refuses):
          // the spec's own when it has one, else a short one for the format.
          const own = typeof schema.pattern === "string" ? schema.pattern : undefined;
          if (format === "email" && !own) out = "z.email()";
          else if ((format === "uri" || format === "url") && !own) out = "z.url()";
          else if (format === "date" && !own) out = `z.string().regex(DATE).meta({ format: "date" })`;
          else if (format === "date-time" && !own) out = `z.string().regex(DATE_TIME).meta({ format: "date-time" })`;
          else if (format) out = `z.string().meta({ format: ${q(format)} })`;
          if (own) out += `.regex(new RegExp(${q(own)}))`;
          if (typeof schema.minLength === "number") out += `.min(${schema.minLength})`;
          if (typeof schema.maxLength === "number") out += `.max(${schema.maxLength})`;
        } else if (format) {
          out += `.meta({ format: ${q(format)} })`;
        }
        return out;
      }
      case "integer":
      case "number": {
        let out = type === "integer" ? "z.number().int()" : "z.number()";
        if (strictChecks) {
          if (typeof schema.minimum === "number") out += `.min(${schema.minimum})`;
          if (typeof schema.maximum === "number") out += `.max(${schema.maximum})`;
          if (typeof schema.exclusiveMinimum === "number") out += `.gt(${schema.exclusiveMinimum})`;
          if (typeof schema.exclusiveMaximum === "number") out += `.lt(${schema.exclusiveMaximum})`;
        }
        return out;
      }
      case "boolean":
        return "z.boolean()";
      case "array": {
        let out = `z.array(${schema.items === undefined ? "z.unknown()" : this.code(schema.items, mode)})`;
        if (strictChecks) {
          if (typeof schema.minItems === "number") out += `.min(${schema.minItems})`;
          if (typeof schema.maxItems === "number") out += `.max(${schema.maxItems})`;
        }
        return out;
      }
      case "object":
        return this.object(schema, mode);
      default:
        return "z.unknown()";
    }
  }

  private object(schema: Json, mode: Mode): string {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const entries: string[] = [];
    for (const [key, value] of Object.entries(props)) {
      const resolved = this.resolve(value);
      if (mode === "input" && resolved.readOnly === true) continue;
      if (mode === "output" && resolved.writeOnly === true) continue;
      const code = this.code(value, mode);
      entries.push(`${q(key)}: ${required.has(key) ? code : optional(code)}`);
    }
    const shape = `{ ${entries.join(", ")} }`;
    const ap = schema.additionalProperties;
    if (entries.length === 0 && (ap === undefined || ap === true || isObject(ap))) {
      const value = isObject(ap) ? this.code(ap, mode) : "z.unknown()";
      return `z.record(z.string(), ${value})`;
    }
    if (isObject(ap)) return `z.object(${shape}).catchall(${this.code(ap, mode)})`;
    if (mode === "output" || ap === true) return `z.looseObject(${shape})`;
    return `z.strictObject(${shape})`;
  }
}

/** `.optional()` placed before a trailing `.describe(...)` keeps the description on the outer schema. */
function optional(code: string): string {
  return `${code}.optional()`;
}

interface FlatField {
  /** Name in the flattened input. */
  name: string;
  in: "path" | "query" | "body" | "bodyWhole";
  /** Name on the wire. */
  wire: string;
  required: boolean;
  schema: unknown;
  description: string;
}

interface Step {
  name: string;
  ident: string;
  title: string;
  description: string;
  op: OperationModel;
  overrides: OperationTool | CompositeTool;
  deprecated?: boolean | undefined;
  replacedBy?: string | undefined;
}

function paramDescription(param: Json, schema: Json): string {
  const text = typeof param.description === "string" ? param.description : typeof schema.description === "string" ? schema.description : "";
  const example = param.example !== undefined ? param.example : undefined;
  return example !== undefined ? `${sentence(text)} Example: ${typeof example === "string" ? example : JSON.stringify(example)}.` : text;
}

function flatFields(model: ServiceModel, writer: SchemaWriter, op: OperationModel): FlatField[] {
  const doc = model.spec.data as Json;
  const item = writer.resolve((doc.paths as Json)[op.path]);
  const raw = writer.resolve(item[op.method.toLowerCase()]);
  const params = new Map<string, Json>();
  for (const p of [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(raw.parameters) ? raw.parameters : [])]) {
    const r = writer.resolve(p);
    if (typeof r.name === "string" && typeof r.in === "string") params.set(`${r.in}:${r.name}`, r);
  }
  const fields: FlatField[] = [];
  const taken = new Set<string>();
  const add = (field: FlatField, prefix: string) => {
    let name = field.name;
    if (taken.has(name)) name = `${prefix}_${name}`;
    taken.add(name);
    fields.push({ ...field, name });
  };
  for (const where of ["path", "query"] as const) {
    for (const p of op.parameters.filter((x) => x.in === where)) {
      const rawParam = params.get(`${where}:${p.name}`) ?? {};
      const schema = rawParam.schema ?? { type: "string" };
      // Arrays stay arrays: the runtime serialises `explode: false` ones from the descriptor.
      add({ name: fieldNameOf(p.name), in: where, wire: p.name, required: p.required, schema, description: paramDescription(rawParam, writer.resolve(schema)) }, where);
    }
  }
  const body = writer.resolve(raw.requestBody);
  const content = isObject(body.content) ? body.content : {};
  const mediaType = Object.keys(content).find((c) => /json/i.test(c));
  if (mediaType) {
    const schemaNode = (content[mediaType] as Json).schema;
    const schema = writer.flatten(writer.resolve(schemaNode));
    const props = isObject(schema.properties) ? schema.properties : undefined;
    if (writer.kindOf(schemaNode) === "object" && props && Object.keys(props).length > 0) {
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      for (const [key, value] of Object.entries(props)) {
        const resolved = writer.resolve(value);
        if (resolved.readOnly === true) continue;
        add({ name: fieldNameOf(key), in: "body", wire: key, required: op.bodyRequired && required.has(key), schema: value, description: "" }, "body");
      }
    } else {
      add({ name: "body", in: "bodyWhole", wire: "", required: op.bodyRequired, schema: schemaNode, description: typeof body.description === "string" ? body.description : "The request body." }, "body");
    }
  }
  return fields;
}

function successResponse(writer: SchemaWriter, model: ServiceModel, op: OperationModel): { schema?: unknown; description: string } {
  const doc = model.spec.data as Json;
  const raw = writer.resolve(writer.resolve((doc.paths as Json)[op.path])[op.method.toLowerCase()]);
  const responses = isObject(raw.responses) ? raw.responses : {};
  const code = Object.keys(responses).sort().find((c) => /^2\d\d$/.test(c));
  if (!code) return { description: "" };
  const response = writer.resolve(responses[code]);
  const content = isObject(response.content) ? response.content : {};
  const mediaType = Object.keys(content).find((c) => /json/i.test(c));
  const description = typeof response.description === "string" ? response.description : "";
  return mediaType ? { schema: (content[mediaType] as Json).schema, description } : { description };
}

function literal(value: unknown): string {
  return q(value);
}

export const emitTools: Emitter = (model, context) => {
  const diagnostics: Diagnostic[] = [];
  const report = (path: Array<string | number>, message: string) => diagnostics.push(model.spec.diagnostic("SF301", path, message));
  const writer = new SchemaWriter(model.spec.data as Json);
  const id = model.id;
  const steps: Step[] = [];
  const byId = new Map(model.operations.map((op) => [op.operationId, op]));

  const declaredNames = new Set([...model.operations.flatMap((op) => (op.tool?.name ? [op.tool.name] : [])), ...(model.tools?.steps ?? []).map((s) => s.name), ...(model.tools?.apiCall ? [model.tools.apiCall.name ?? `${id}_api_call`] : [])]);
  const derivedNames = new Set<string>();
  for (const op of model.operations) {
    const tool = op.tool ?? {};
    if ("skip" in tool && tool.skip) continue;
    const name = tool.name ?? derivedName(id, op.operationId, (n) => declaredNames.has(n) || derivedNames.has(n));
    if (!tool.name) derivedNames.add(name);
    steps.push(stepOf(name, op, tool));
  }
  model.tools?.steps.forEach((composite, i) => {
    const op = byId.get(composite.operation);
    if (!op) {
      report(["x-stepforge", "tools", "steps", i, "operation"], `step "${composite.name}" is built on operation "${composite.operation}", which the spec does not have`);
      return;
    }
    steps.push(stepOf(composite.name, op, composite));
  });
  const apiCall = model.tools?.apiCall;
  const apiCallName = apiCall ? (apiCall.name ?? `${id}_api_call`) : undefined;

  const seen = new Map<string, string>();
  for (const step of [...steps.map((s) => s.name), ...(apiCallName ? [apiCallName] : [])]) {
    if (!TOOL_NAME.test(step) || !step.startsWith(`${id}_`)) report(["x-stepforge", "id"], `tool name "${step}" must match ${TOOL_NAME} and start with "${id}_"; name it in x-stepforge-tool`);
    if (seen.has(step)) report(["x-stepforge", "id"], `tool name "${step}" is used twice; give one of them another name with x-stepforge-tool.name`);
    seen.set(step, step);
  }
  // issue 14: a step's `check` and every toolset name steps of this service.
  const known = (name: string) => seen.has(name);
  model.tools?.toolsets.forEach((set, i) => set.steps.forEach((name, j) => known(name) || report(["x-stepforge", "tools", "toolsets", i, "steps", j], `toolset "${set.name}" names step "${name}", which this spec does not have`)));
  for (const { overrides, op, name } of steps) {
    const at = "operation" in overrides ? ["x-stepforge", "tools", "steps", model.tools!.steps.indexOf(overrides as CompositeTool)] : ["paths", op.path, op.method.toLowerCase(), "x-stepforge-tool"];
    if (overrides.check && !known(overrides.check.step)) report([...at, "check", "step"], `step "${name}" is checked with "${overrides.check.step}", which this spec does not have`);
  }

  function stepOf(name: string, op: OperationModel, overrides: OperationTool | CompositeTool): Step {
    const title = overrides.title ?? op.seed?.name ?? op.summary;
    const response = successResponse(writer, model, op);
    const parts = [overrides.description ? sentence(overrides.description) : sentence(op.summary)];
    if (op.description) parts.push(sentence(op.description.split(/\n\s*\n/)[0]!));
    if (response.description) parts.push(`Returns: ${sentence(response.description).replace(/^./, (c) => c.toLowerCase())}`);
    return {
      name,
      ident: camel(name),
      title,
      description: parts.filter(Boolean).join(" "),
      op,
      overrides,
      deprecated: overrides.deprecated,
      replacedBy: overrides.replacedBy,
    };
  }

  const blocks: string[] = [];
  const names: string[] = [];
  for (const step of steps) {
    const block = emitStep(step);
    if (block) {
      blocks.push(block);
      names.push(step.ident);
    }
  }

  function emitStep(step: Step): string | undefined {
    const { op, overrides } = step;
    const at: Array<string | number> = "operation" in overrides ? ["x-stepforge", "tools", "steps", model.tools!.steps.indexOf(overrides as CompositeTool)] : ["paths", op.path, op.method.toLowerCase(), "x-stepforge-tool"];
    const flat = flatFields(model, writer, op);
    const byName = new Map(flat.map((f) => [f.name, f]));
    const fixed = overrides.fixed ?? {};
    for (const key of Object.keys(fixed)) if (!byName.has(key)) report([...at, "fixed", key], `"${key}" is not a field of ${op.operationId} (fields: ${[...byName.keys()].join(", ")})`);
    for (const key of overrides.omit ?? []) {
      const f = byName.get(key);
      if (!f) report([...at, "omit"], `"${key}" is not a field of ${op.operationId}`);
      else if (f.required) report([...at, "omit"], `"${key}" is required by ${op.operationId}; give it a value under fixed instead of omitting it`);
    }
    // Model-facing fields: each source field once, under its (possibly new) name.
    interface Facing {
      name: string;
      source?: FlatField;
      required: boolean;
      description?: string | undefined;
      ignoredSchema?: unknown;
    }
    const declared: Record<string, ToolField> = overrides.fields ?? {};
    const renamedFrom = new Map<string, string>();
    for (const [facing, spec] of Object.entries(declared)) {
      if (spec.ignored) continue;
      const from = spec.from ?? facing;
      if (!byName.has(from)) report([...at, "fields", facing, "from"], `"${from}" is not a field of ${op.operationId} (fields: ${[...byName.keys()].join(", ")})`);
      else renamedFrom.set(from, facing);
    }
    const facing: Facing[] = [];
    for (const f of flat) {
      if (f.name in fixed || (overrides.omit ?? []).includes(f.name)) continue;
      const name = renamedFrom.get(f.name) ?? f.name;
      const spec = declared[name];
      facing.push({ name, source: f, required: f.required || spec?.required === true, description: spec?.description });
    }
    for (const [name, spec] of Object.entries(declared)) {
      if (spec.ignored) facing.push({ name, required: false, description: spec.description, ignoredSchema: spec.schema ?? { type: "string" } });
    }
    let offered = facing;
    if (overrides.only) {
      for (const f of facing) {
        if (!overrides.only.includes(f.name) && f.required) report([...at, "only"], `"${f.name}" is required by ${op.operationId}; list it under only or give it under fixed`);
      }
      offered = facing.filter((f) => overrides.only!.includes(f.name));
    }
    const names = new Set<string>();
    for (const f of offered) {
      if (names.has(f.name)) report([...at, "fields"], `two fields are named "${f.name}"; rename one`);
      names.add(f.name);
    }
    if (diagnostics.length) return undefined;

    const inputLines = offered.map((f) => {
      const description = f.description ?? (f.source ? f.source.description || undefined : undefined);
      const code = f.source ? writer.code(f.source.schema, "input", description) : writer.code(f.ignoredSchema, "input", `${description ?? "Accepted for compatibility"} (not sent).`);
      return `    ${q(f.name)}: ${f.required ? code : optional(code)},`;
    });

    // The handler: each wire field from the input or a fixed value.
    const valueOf = (f: FlatField): string | undefined => {
      if (f.name in fixed) return literal(fixed[f.name]);
      const m = offered.find((x) => x.source === f);
      return m ? `input[${q(m.name)}]` : undefined;
    };
    const pathParts: string[] = [];
    const queryParts: string[] = [];
    const bodyParts: string[] = [];
    let bodyWhole: string | undefined;
    for (const f of flat) {
      const value = valueOf(f);
      if (value === undefined) continue;
      if (f.in === "path") pathParts.push(`${q(f.wire)}: ${value}`);
      else if (f.in === "query") queryParts.push(`${q(f.wire)}: ${value}`);
      else if (f.in === "body") bodyParts.push(`${q(f.wire)}: ${value}`);
      else bodyWhole = value;
    }
    const initParts: string[] = [];
    const params: string[] = [];
    if (pathParts.length) params.push(`path: { ${pathParts.join(", ")} }`);
    if (queryParts.length) params.push(`query: { ${queryParts.join(", ")} }`);
    if (params.length) initParts.push(`params: { ${params.join(", ")} }`);
    if (bodyWhole !== undefined) initParts.push(`body: ${bodyWhole}`);
    else if (bodyParts.length || flat.some((f) => f.in === "body")) initParts.push(`body: { ${bodyParts.join(", ")} }`);

    // Output: always an object.
    const response = successResponse(writer, model, op);
    let output: string;
    let wrap: "none" | "items" | "value" = "none";
    if (response.schema === undefined) {
      output = `z.looseObject({}).describe(${q(response.description ? `${sentence(response.description)} (No body.)` : "No body.")})`;
    } else {
      const kind = writer.kindOf(response.schema);
      const code = writer.code(response.schema, "output", response.description || undefined);
      if (kind === "object") output = code;
      else if (kind === "array") {
        wrap = "items";
        output = `z.looseObject({ items: ${code} })`;
      } else {
        wrap = "value";
        output = `z.looseObject({ value: ${code} })`;
      }
    }

    const hints = overrides.hints ?? {};
    const readOnly = hints.readOnly ?? (op.method === "GET" || op.method === "HEAD");
    const destructive = readOnly ? false : (hints.destructive ?? op.method === "DELETE");
    const idempotent = hints.idempotent ?? (readOnly || op.idempotent);
    const openWorld = hints.openWorld ?? true;
    const title = step.title;
    const lines = [
      `/** ${step.title}: \`${op.method} ${op.path}\`${step.deprecated ? " (deprecated)" : ""}. */`,
      `export const ${step.ident} = defineOperationTool({`,
      `  name: ${q(step.name)},`,
      `  service: ${q(id)},`,
      `  operationId: ${q(op.operationId)},`,
      `  title: ${q(title)},`,
      `  description: ${q(step.description)},`,
      `  annotations: { readOnlyHint: ${readOnly}, destructiveHint: ${destructive}, idempotentHint: ${idempotent}, openWorldHint: ${openWorld} },`,
      ...(step.deprecated ? [`  deprecated: true,`] : []),
      ...(step.replacedBy ? [`  replacedBy: ${q(step.replacedBy)},`] : []),
      ...(overrides.check ? [`  check: ${JSON.stringify(overrides.check)},`] : []),
      `  descriptor,`,
      `  input: z.strictObject({`,
      ...inputLines,
      `  }),`,
      `  output: ${output},`,
      `  outputWrap: ${q(wrap)},`,
      initParts.length
        ? `  handler: (client, input) => client.call(${q(op.operationId)}, { ${initParts.join(", ")} }),`
        : `  handler: (client) => client.call(${q(op.operationId)}, {}),`,
      `});`,
    ];
    if (offered.length === 0) lines.splice(lines.indexOf("  input: z.strictObject({"), 2, "  input: z.strictObject({}),");
    return lines.join("\n");
  }

  if (diagnostics.length) throw new SpecError(diagnostics);

  const toolsImport = runtimeModule(context, "tools");
  const apiBlock = apiCall
    ? [`/** ${apiCall.title}: any endpoint under the connection's base address (${apiCall.methods.join(", ")}). */`, `export const ${camel(apiCallName!)} = defineApiCallTool(descriptor, ${JSON.stringify(apiCall)});`].join("\n")
    : undefined;
  if (apiBlock) names.push(camel(apiCallName!));
  const uses = (name: string) => writer.consts.some((c) => c.includes(name)) || blocks.some((b) => b.includes(name));
  const text = [
    codeHeader(context.specLabel),
    `import { ${apiBlock ? "defineApiCallTool, " : ""}defineOperationTool, type ToolDefinition, type Toolset } from ${q(toolsImport)};`,
    `import * as z from ${q(runtimeModule(context, "zod"))};`,
    `import { descriptor } from "./descriptor.js";`,
    "",
    ...(uses("DATE_TIME") ? ["/** ISO-8601 date-time: 2024-06-14T16:00:00Z, with optional seconds, fraction and offset. */", "const DATE_TIME = /^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?$/;", ""] : []),
    ...(uses("DATE)") ? ["/** A calendar date: YYYY-MM-DD. */", "const DATE = /^\\d{4}-\\d{2}-\\d{2}$/;", ""] : []),
    ...(writer.consts.length ? ["// Schemas of the spec's components, shared by the steps below.", ...writer.consts, ""] : []),
    ...blocks.flatMap((b) => [b, ""]),
    ...(apiBlock ? [apiBlock, ""] : []),
    `/** Every tool step of ${model.title}, in spec order. */`,
    `export const tools: readonly ToolDefinition[] = [${names.join(", ")}];`,
    "",
    `/** Named groups of these steps (x-stepforge.tools.toolsets), for agents offered a few at a time. */`,
    `export const toolsets: readonly Toolset[] = ${JSON.stringify(model.tools?.toolsets ?? [])};`,
    "",
  ].join("\n");
  return [{ path: `${id}/tools.ts`, content: text }];
};
