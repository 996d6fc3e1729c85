/**
 * JSON Schemas of the model as tool schema data (runtime/tools/data.ts `SchemaData`): the call tree
 * of the `s` builders, which the runtime turns into zod schemas when tools.ts is imported. Input
 * objects refuse unknown keys; output objects accept them (services add fields). Components are
 * written once, in first-use order, as shared schemas named through a name table; cycles are cut.
 */
import type { ChainData, SchemaData } from "../../runtime/tools/data.js";
import type { NameTable } from "../names.js";
import { compilesWith } from "../pattern.js";
import { isObject, type Json, type RefResolver } from "../refs.js";
import { flattenAllOf, hasFlag, sentence } from "../schema.js";
import { pascal } from "./file.js";

export type Mode = "input" | "output";

/** What a file part field takes, added to the field's own description (which replaces s.file()'s). */
const FILE_NOTE = "A file: { base64 } or { text }, with an optional filename and contentType.";

/** `data` with `method(...args)` chained after it (a new node; shared nodes are never changed). */
export function chain(data: SchemaData, method: string, ...args: unknown[]): SchemaData {
  const call: ChainData = [method, ...args];
  if (typeof data === "string") return { s: data, c: [call] };
  return { ...data, c: [...(data.c ?? []), call] };
}

export const describe = (data: SchemaData, text: string | undefined): SchemaData =>
  text ? chain(data, "describe", text.trim().replace(/\s+/g, " ")) : data;
export const optional = (data: SchemaData): SchemaData => chain(data, "optional");
const build = (name: string, ...args: unknown[]): SchemaData => ({ s: name, a: args });
const recursive = (text: string): SchemaData => describe(build("looseObject", {}), text);

export class SchemaWriter {
  /** The shared schemas in the order they were written (each after those it uses). */
  readonly shared: Record<string, SchemaData> = {};
  private readonly done = new Map<string, string>();
  /** `mode:$ref` of every schema being written right now: meeting one again is a cycle. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly refs: RefResolver,
    private readonly names: NameTable,
  ) {}

  /** Schema data for `node`; `description` (when given) replaces the schema's own. */
  data(node: unknown, mode: Mode, description?: string): SchemaData {
    // A file part or base64 bytes of a body that is not JSON (check/tools.ts): the runtime's schemas.
    const input = isObject(node) ? node["x-stepforge-input"] : undefined;
    if (input === "file" || input === "base64") {
      const own = (node as Json).description;
      const text = description ?? (typeof own === "string" ? own : undefined);
      if (input === "base64") return describe("base64", text);
      return text ? describe("file", `${sentence(text)} ${FILE_NOTE}`) : "file";
    }
    if (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) {
      const own = typeof node.description === "string" ? node.description : undefined;
      return describe(this.component(node.$ref, mode), description ?? own);
    }
    // A $ref elsewhere in the document (`#/paths/…`, `#/components/responses/…`) is inlined, so a
    // cycle through one must be cut here as `component` cuts one through the named schemas.
    const ref = isObject(node) && typeof node.$ref === "string" ? `${mode}:${node.$ref}` : undefined;
    if (ref !== undefined && this.busy.has(ref)) {
      return recursive("A nested value of the same shape (recursive; its fields are not listed again).");
    }
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
    const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
    const examples = Array.isArray(schema.examples)
      ? schema.examples
      : schema.example !== undefined
        ? [schema.example]
        : [];
    if (examples.length) parts.push(`Example: ${examples.slice(0, 2).map(show).join(" or ")}.`);
    if (schema.default !== undefined) parts.push(`Default: ${show(schema.default)}.`);
    return parts.join(" ");
  }

  private component(ref: string, mode: Mode): SchemaData {
    const key = `${mode}:${ref}`;
    const known = this.done.get(key);
    if (known) return { r: known };
    const shortName = ref.split("/").pop()!;
    if (this.busy.has(key)) return recursive(`A nested ${shortName} (recursive; its fields are not listed again).`);
    this.busy.add(key);
    const schema = this.refs.deref({ $ref: ref });
    const notes = this.notes(schema, mode);
    const text =
      typeof schema.description === "string" ? `${sentence(schema.description)}${notes ? ` ${notes}` : ""}` : notes;
    const data = describe(this.inline(schema, mode), text || undefined);
    this.busy.delete(key);
    const name = this.names.claim(`${mode === "input" ? "In" : "Out"}${pascal(shortName) || "Schema"}`, ref).name;
    this.shared[name] = data;
    this.done.set(key, name);
    return { r: name };
  }

  /** Data for a resolved schema, without its description. */
  private inline(raw: Json, mode: Mode): SchemaData {
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

  private inlineMerged(schema: Json, mode: Mode): SchemaData {
    if (Array.isArray(schema.allOf)) {
      return schema.allOf.map((m) => this.data(m, mode)).reduce((a, b) => build("intersection", a, b));
    }
    const union = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
    if (union && union.length > 0) {
      const parts = union.map((m) => this.data(m, mode));
      const u = parts.length === 1 ? parts[0]! : build("union", parts);
      return Array.isArray(schema.type) && schema.type.includes("null") ? chain(u, "nullable") : u;
    }
    if (schema.const !== undefined) return build("literal", schema.const);
    let types = Array.isArray(schema.type)
      ? schema.type.filter((t): t is string => typeof t === "string")
      : typeof schema.type === "string"
        ? [schema.type]
        : [];
    if (types.length === 0 && isObject(schema.properties)) types = ["object"];
    if (types.length === 0 && Array.isArray(schema.enum)) {
      types = [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
    }
    const nullable = types.includes("null") || schema.nullable === true;
    const rest = types.filter((t) => t !== "null");
    let out: SchemaData;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const values = schema.enum.filter((v) => v !== null);
      if (values.length === 0) return "null";
      if (values.every((v) => typeof v === "string")) out = build("enum", values);
      else if (values.length === 1) out = build("literal", values[0]);
      else
        out = build(
          "union",
          values.map((v) => build("literal", v)),
        );
      if (schema.enum.includes(null)) return chain(out, "nullable");
    } else if (rest.length === 0) {
      return types.includes("null") ? "null" : "unknown";
    } else if (rest.length > 1) {
      out = build(
        "union",
        rest.map((t) => this.inline({ ...schema, type: t, description: undefined }, mode)),
      );
    } else {
      out = this.typed(rest[0]!, schema, mode);
    }
    return nullable ? chain(out, "nullable") : out;
  }

  private typed(type: string, schema: Json, mode: Mode): SchemaData {
    const checks = mode === "input";
    const num = (value: unknown, method: string, data: SchemaData): SchemaData =>
      checks && typeof value === "number" && Number.isFinite(value) ? chain(data, method, value) : data;
    switch (type) {
      case "string": {
        const format = typeof schema.format === "string" ? schema.format : undefined;
        if (!checks) return format ? chain("string", "meta", { format }) : "string";
        // One pattern per string (two become an allOf in JSON Schema, which strict mode refuses):
        // the spec's own when it has one, else a short one for the format. The check stage left only
        // patterns that compile with the u flag (JSON Schema's reading, the mock's): read the same here.
        const own =
          typeof schema.pattern === "string" && compilesWith(schema.pattern, "u") ? schema.pattern : undefined;
        let out: SchemaData = "string";
        if (format === "email" && !own) out = "email";
        else if ((format === "uri" || format === "url") && !own) out = "url";
        else if (format === "date" && !own) out = chain(chain("string", "regex", "DATE"), "meta", { format: "date" });
        else if (format === "date-time" && !own)
          out = chain(chain("string", "regex", "DATE_TIME"), "meta", { format: "date-time" });
        else if (format) out = chain("string", "meta", { format });
        if (own) out = chain(out, "regex", { p: own, f: "u" });
        out = num(schema.minLength, "min", out);
        return num(schema.maxLength, "max", out);
      }
      case "integer":
      case "number": {
        let out: SchemaData = type === "integer" ? chain("number", "int") : "number";
        out = num(schema.minimum, "min", out);
        out = num(schema.maximum, "max", out);
        out = num(schema.exclusiveMinimum, "gt", out);
        return num(schema.exclusiveMaximum, "lt", out);
      }
      case "boolean":
        return "boolean";
      case "array": {
        const out = build("array", schema.items === undefined ? "unknown" : this.data(schema.items, mode));
        return num(schema.maxItems, "max", num(schema.minItems, "min", out));
      }
      case "object":
        return this.object(schema, mode);
      default:
        return "unknown";
    }
  }

  private object(schema: Json, mode: Mode): SchemaData {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const shape: Record<string, SchemaData> = {};
    for (const [name, value] of Object.entries(props)) {
      if (mode === "input" && hasFlag(this.refs, value, "readOnly")) continue;
      if (mode === "output" && hasFlag(this.refs, value, "writeOnly")) continue;
      const data = this.data(value, mode);
      // Own keys: a property named "__proto__" is a key like any other.
      Object.defineProperty(shape, name, {
        value: required.has(name) ? data : optional(data),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const ap = schema.additionalProperties;
    const empty = Object.keys(shape).length === 0;
    if (empty && (ap === undefined || ap === true || isObject(ap)))
      return build("record", "string", isObject(ap) ? this.data(ap, mode) : "unknown");
    if (isObject(ap)) return build("catchall", shape, this.data(ap, mode));
    return build(mode === "output" || ap === true ? "looseObject" : "strictObject", shape);
  }
}
