/**
 * JSON Schemas of the model as tool schema data (runtime/tools/data.ts `SchemaData`): the call tree
 * of the `s` builders, which the runtime turns into zod schemas when tools.ts is imported. Input
 * objects refuse unknown keys; output objects accept them (services add fields). Components are
 * written once, in first-use order, as shared schemas named through a name table; cycles are cut.
 *
 * It walks schema nodes (runtime/spec/schema-node.ts, built by the check stage's resolver), not raw
 * keywords: whether a value may be null, what `allOf` merges to, which properties are read-only
 * and whether a pattern compiles are the node's answers, the ones the mock and the exports read.
 */
import type { ChainData, SchemaData } from "../../runtime/tools/data.js";
import type { NameTable } from "../names.js";
import type { SchemaNode } from "../../runtime/spec/schema-node.js";
import { isObject, type Json, type RefResolver } from "../refs.js";
import { sentence } from "../schema.js";
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
  /** The nodes being written right now, per mode: meeting one again is a cycle. */
  private readonly busy = { input: new Set<SchemaNode>(), output: new Set<SchemaNode>() };

  constructor(
    private readonly refs: RefResolver,
    private readonly names: NameTable,
  ) {}

  /** Schema data for the schema `raw`; `description` (when given) replaces the schema's own. */
  data(raw: unknown, mode: Mode, description?: string): SchemaData {
    // A file part or base64 bytes of a body that is not JSON (check/tools.ts): the runtime's schemas.
    const input = isObject(raw) ? raw["x-stepforge-input"] : undefined;
    if (input === "file" || input === "base64") {
      const own = (raw as Json).description;
      const text = description ?? (typeof own === "string" ? own : undefined);
      if (input === "base64") return describe("base64", text);
      return text ? describe("file", `${sentence(text)} ${FILE_NOTE}`) : "file";
    }
    return this.node(this.refs.node(raw), mode, description);
  }

  private node(node: SchemaNode, mode: Mode, description?: string): SchemaData {
    if (node.ref !== undefined) return this.reference(node, mode, description);
    if (this.busy[mode].has(node)) {
      return recursive("A nested value of the same shape (recursive; its fields are not listed again).");
    }
    this.busy[mode].add(node);
    try {
      const notes = this.notes(node, mode);
      const text = description ?? node.description;
      return describe(this.inline(node, mode), text !== undefined && notes ? `${sentence(text)} ${notes}` : text);
    } finally {
      this.busy[mode].delete(node);
    }
  }

  /**
   * A node reached through a component: the shared schema, described and made nullable where the
   * reference says more than the component (`{ $ref, description }`, `allOf: [{ $ref }], nullable`).
   */
  private reference(node: SchemaNode, mode: Mode, description?: string): SchemaData {
    const pointer = `#/components/schemas/${node.ref!.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const shared = this.refs.node({ $ref: pointer });
    const own = node.description !== shared.description ? node.description : undefined;
    const data = describe(this.component(shared, pointer, mode), description ?? own);
    return node.nullable && !shared.nullable ? chain(data, "nullable") : data;
  }

  /** Examples and defaults, written into the description for a model. */
  private notes(node: SchemaNode, mode: Mode): string {
    if (mode === "output") return "";
    const parts: string[] = [];
    const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
    if (node.examples.length) parts.push(`Example: ${node.examples.slice(0, 2).map(show).join(" or ")}.`);
    if (node.default !== undefined) parts.push(`Default: ${show(node.default)}.`);
    return parts.join(" ");
  }

  private component(node: SchemaNode, ref: string, mode: Mode): SchemaData {
    const key = `${mode}:${ref}`;
    const known = this.done.get(key);
    if (known) return { r: known };
    const shortName = node.ref!;
    if (this.busy[mode].has(node))
      return recursive(`A nested ${shortName} (recursive; its fields are not listed again).`);
    this.busy[mode].add(node);
    const notes = this.notes(node, mode);
    const text =
      typeof node.description === "string" ? `${sentence(node.description)}${notes ? ` ${notes}` : ""}` : notes;
    const data = describe(this.inline(node, mode), text || undefined);
    this.busy[mode].delete(node);
    const name = this.names.claim(`${mode === "input" ? "In" : "Out"}${pascal(shortName) || "Schema"}`, ref).name;
    this.shared[name] = data;
    this.done.set(key, name);
    return { r: name };
  }

  /** Data for a node, without its description. */
  private inline(node: SchemaNode, mode: Mode): SchemaData {
    switch (node.kind) {
      case "intersection":
        return node.members!.map((m) => this.node(m, mode)).reduce((a, b) => build("intersection", a, b));
      case "union":
        return this.union(node, mode);
      case "null":
        return "null";
      case "never":
        return "unknown";
    }
    // Before "any": `{ const: card }` and `{ enum: [...] }` need no `type` (a 3.1 discriminator's
    // branch often has none), and read as anything they let every branch match.
    if (node.const !== undefined) return build("literal", node.const.value);
    let out: SchemaData;
    if (node.kind === "any" && !(node.enum && node.enum.length > 0)) return "unknown";
    if (node.enum && node.enum.length > 0) {
      const values = node.enum;
      if (values.every((v) => typeof v === "string")) out = build("enum", values);
      else if (values.length === 1) out = build("literal", values[0]);
      else
        out = build(
          "union",
          values.map((v) => build("literal", v)),
        );
    } else out = this.typed(node, mode);
    return node.nullable ? chain(out, "nullable") : out;
  }

  /** A union: its branches (a type list's without their descriptions), then null when it admits null. */
  private union(node: SchemaNode, mode: Mode): SchemaData {
    const branches = node.branches ?? [];
    const byType = node.unionKeyword === "type";
    const parts = branches.map((b) => (byType ? this.inline(b, mode) : this.node(b, mode)));
    // A null branch is written as one (the spelling zod exports as a null branch, as the spec had it).
    if (!byType && node.nullable && !branches.some((b) => b.nullable)) parts.push("null");
    if (parts.length === 0) return node.nullable ? "null" : "unknown";
    const u = parts.length === 1 ? parts[0]! : build("union", parts);
    return byType && node.nullable ? chain(u, "nullable") : u;
  }

  private typed(node: SchemaNode, mode: Mode): SchemaData {
    const checks = mode === "input";
    const num = (value: number | undefined, method: string, data: SchemaData): SchemaData =>
      checks && value !== undefined ? chain(data, method, value) : data;
    const b = node.bounds;
    switch (node.kind) {
      case "string": {
        const format = node.format;
        if (!checks) return format ? chain("string", "meta", { format }) : "string";
        // One pattern per string (two become an allOf in JSON Schema, which strict mode refuses):
        // the spec's own when it has one, else a short one for the format. A pattern that does not
        // compile with the u flag (JSON Schema's reading, the mock's) is checked nowhere.
        const own = node.pattern?.valid ? node.pattern.source : undefined;
        let out: SchemaData = "string";
        if (format === "email" && !own) out = "email";
        else if ((format === "uri" || format === "url") && !own) out = "url";
        else if (format === "date" && !own) out = chain(chain("string", "regex", "DATE"), "meta", { format: "date" });
        else if (format === "date-time" && !own)
          out = chain(chain("string", "regex", "DATE_TIME"), "meta", { format: "date-time" });
        else if (format) out = chain("string", "meta", { format });
        if (own) out = chain(out, "regex", { p: own, f: "u" });
        out = num(b.minLength, "min", out);
        return num(b.maxLength, "max", out);
      }
      case "integer":
      case "number": {
        let out: SchemaData = node.kind === "integer" ? chain("number", "int") : "number";
        out = num(b.minimum, "min", out);
        out = num(b.maximum, "max", out);
        out = num(b.exclusiveMinimum, "gt", out);
        return num(b.exclusiveMaximum, "lt", out);
      }
      case "boolean":
        return "boolean";
      case "array": {
        const out = build("array", node.items === undefined ? "unknown" : this.node(node.items, mode));
        return num(b.maxItems, "max", num(b.minItems, "min", out));
      }
      case "object":
        return this.object(node, mode);
      default:
        return "unknown";
    }
  }

  private object(node: SchemaNode, mode: Mode): SchemaData {
    const shape: Record<string, SchemaData> = {};
    for (const { name, node: value, required } of node.properties) {
      if (mode === "input" && value.readOnly) continue;
      if (mode === "output" && value.writeOnly) continue;
      const data = this.node(value, mode);
      // Own keys: a property named "__proto__" is a key like any other.
      Object.defineProperty(shape, name, {
        value: required ? data : optional(data),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const ap = node.additionalProperties;
    const empty = Object.keys(shape).length === 0;
    const apNode = typeof ap === "object" ? ap : undefined;
    if (empty && (ap === undefined || ap === true || apNode))
      return build("record", "string", apNode ? this.node(apNode, mode) : "unknown");
    if (apNode) return build("catchall", shape, this.node(apNode, mode));
    return build(mode === "output" || ap === true ? "looseObject" : "strictObject", shape);
  }
}
