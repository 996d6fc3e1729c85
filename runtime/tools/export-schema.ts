/**
 * Canonical JSON Schemas of tool steps (reference C.5, step 1): `z.toJSONSchema`, then `$ref`s
 * inlined (a cycle becomes a described free-form object), `$schema`, `$defs`, `default` and
 * `nullable` dropped (a default moves into the description), zod's ±2^53 integer bounds dropped.
 *
 * Why a book of a whole tool list (`ToolSchemas`) rather than one conversion per step: the steps of
 * a public spec share most of their schemas. Stripe's records reach ~2,800 component schemas from
 * any one response; converted per step with zod's "inline" mode each output became 14 MB of JSON
 * (2.5 s a step, 82 s for a 452-step listing). The book converts every step's schema in one zod
 * pass with shared schemas as `$ref`s (each converted once), then inlines lazily per step, only as
 * deep as the caller keeps (`levels`): the listing needs two levels of an output, not fourteen MB.
 * The work is the size of the shared schemas plus the size of what is returned.
 */
import * as z from "zod";
import type { StepSchema, ToolDefinition } from "./types.js";

type Json = Record<string, unknown>;

const SAFE_INT = 9007199254740991;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObjectType(node: Json): boolean {
  return node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
}

function resolveLocal(root: Json, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

export function appendDescription(node: Json, text: string): void {
  const current = typeof node.description === "string" ? node.description.trim() : "";
  if (current.includes(text)) return;
  node.description = current ? `${current}${/[.!?]$/.test(current) ? "" : "."} ${text}` : text;
}

/** A count of schema nodes handled, for tests and benchmarks that measure work rather than time. */
export interface SchemaWork {
  nodes: number;
}

export interface CanonicalOptions {
  /**
   * Levels of nested objects kept (as `pruneDepth` counts them); deeper objects become described
   * free-form objects. Default: all.
   */
  levels?: number | undefined;
  work?: SchemaWork | undefined;
}

/** An object schema below the kept levels: its type and description, any keys. */
function prunedObject(node: Json): Json {
  const out: Json = { type: node.type, additionalProperties: true };
  if (typeof node.description === "string") out.description = node.description;
  return out;
}

/** Would `pruneDepth` replace this (canonical or raw) node by a free-form object at its level? */
function prunable(node: Json): boolean {
  return isObjectType(node) && (isObject(node.properties) || isObject(node.additionalProperties));
}

/**
 * `anyOf: [{type: "string"}, {type: "null"}]` as `type: ["string", "null"]`, as zod spells it
 * when it inlines a union of bare types: the book converts with shared schemas as `$ref`s, which
 * zod leaves in `anyOf`; once inlined they are bare again, and this keeps the one spelling.
 */
function compactTypeUnion(node: Json): void {
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length === 0 || node.type !== undefined) return;
  const types: string[] = [];
  for (const option of options) {
    if (!isObject(option)) return;
    const keys = Object.keys(option);
    if (keys.length !== 1 || keys[0] !== "type") return;
    for (const member of Array.isArray(option.type) ? option.type : [option.type]) {
      if (typeof member !== "string") return;
      if (!types.includes(member)) types.push(member);
    }
  }
  delete node.anyOf;
  node.type = types.length === 1 ? types[0] : types;
}

/** The canonical form of `start`, resolving `$ref`s against `root`; pure (returns new objects). */
function canonicalAt(root: Json, start: unknown, options: CanonicalOptions = {}): Json {
  const levels = options.levels ?? Number.POSITIVE_INFINITY;
  const work = options.work;
  const walk = (node: unknown, stack: readonly string[], depth: number): unknown => {
    if (work) work.nodes++;
    if (Array.isArray(node)) return node.map((n) => walk(n, stack, depth));
    if (!isObject(node)) return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const { $ref: _ref, ...siblings } = node;
      if (stack.includes(ref)) {
        const said = typeof siblings.description === "string" ? `${siblings.description} ` : "";
        return {
          type: "object",
          description: `${said}(recursive structure; any object)`.trim(),
          additionalProperties: true,
        };
      }
      const target = resolveLocal(root, ref);
      const resolved = walk(isObject(target) ? target : {}, [...stack, ref], depth) as Json;
      const merged = { ...resolved, ...(walk(siblings, stack, depth) as Json) };
      return depth >= levels && prunable(merged) ? prunedObject(merged) : merged;
    }
    if (depth >= levels && prunable(node)) {
      const described: Json = typeof node.description === "string" ? { description: node.description } : {};
      if (node.default !== undefined && node.default !== null)
        appendDescription(described, `Default: ${JSON.stringify(node.default)}.`);
      return prunedObject({ type: node.type, ...described });
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema" || key === "$defs" || key === "definitions" || key === "nullable" || key === "$id")
        continue;
      if (key === "default") continue;
      if ((key === "minimum" && value === -SAFE_INT) || (key === "maximum" && value === SAFE_INT)) continue;
      if (key === "properties" && isObject(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, stack, depth + 1)]));
        continue;
      }
      const walked = walk(value, stack, key === "additionalProperties" && isObject(value) ? depth + 1 : depth);
      // Keys are strings anyway: `propertyNames: {type: "string"}` says nothing.
      if (key === "propertyNames" && isObject(walked) && walked.type === "string" && Object.keys(walked).length === 1)
        continue;
      out[key] = walked;
    }
    if (node.default !== undefined && node.default !== null)
      appendDescription(out, `Default: ${JSON.stringify(node.default)}.`);
    compactTypeUnion(out);
    return out;
  };
  return walk(start, [], 0) as Json;
}

/** Inlines refs, drops keys some providers refuse; pure (returns a new object). */
export function canonicalize(schema: Json, options?: CanonicalOptions): Json {
  return canonicalAt(schema, schema, options);
}

type Io = "input" | "output";

/** Every step schema is a zod one at run time (define.ts refuses anything else). */
function toJsonSchema(schema: StepSchema | z.ZodType, io: Io, reused: "inline" | "ref"): Json {
  return z.toJSONSchema(schema as z.ZodType, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    cycles: "ref",
    reused,
  }) as Json;
}

/** The JSON Schema of a step's schema, canonicalised (one schema alone; for a tool list see ToolSchemas). */
export function canonicalSchema(schema: StepSchema, io: Io, options?: CanonicalOptions): Json {
  return canonicalize(toJsonSchema(schema, io, "ref"), options);
}

function countNodes(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + countNodes(v), 0);
  if (!isObject(value)) return 1;
  let n = 1;
  for (const v of Object.values(value)) n += countNodes(v);
  return n;
}

/**
 * The canonical input and output schemas of a list of steps, converted together (see the file's
 * comment) and kept. Results are shared between callers: copy before changing one.
 */
export class ToolSchemas {
  private readonly keys: Map<ToolDefinition, string>;
  private readonly raw: Partial<Record<Io, Json>> = {};
  private readonly inputs = new Map<ToolDefinition, Json>();
  private readonly outputs = new Map<number, Map<ToolDefinition, Json>>();

  constructor(
    private readonly tools: readonly ToolDefinition[],
    private readonly work?: SchemaWork,
  ) {
    this.keys = new Map(tools.map((t, i) => [t, `t${i}`]));
  }

  /** The step's whole input schema (what a model must send: nothing pruned). */
  input(tool: ToolDefinition): Json {
    let found = this.inputs.get(tool);
    if (!found) {
      found = this.convert(tool, "input", undefined);
      this.inputs.set(tool, found);
    }
    return found;
  }

  /** The step's output schema, `levels` of nested objects deep (default: all). */
  output(tool: ToolDefinition, levels = Number.POSITIVE_INFINITY): Json {
    let byTool = this.outputs.get(levels);
    if (!byTool) this.outputs.set(levels, (byTool = new Map()));
    let found = byTool.get(tool);
    if (!found) {
      found = this.convert(tool, "output", levels);
      byTool.set(tool, found);
    }
    return found;
  }

  private convert(tool: ToolDefinition, io: Io, levels: number | undefined): Json {
    const key = this.keys.get(tool);
    if (key === undefined)
      return canonicalSchema(io === "input" ? tool.input : tool.output, io, { levels, work: this.work });
    let root = this.raw[io];
    if (!root) {
      const shape = Object.fromEntries(
        this.tools.map((t) => [this.keys.get(t)!, (io === "input" ? t.input : t.output) as z.ZodType]),
      );
      root = toJsonSchema(z.object(shape), io, "ref");
      this.raw[io] = root;
      if (this.work) this.work.nodes += countNodes(root);
    }
    return canonicalAt(root, (root.properties as Json)[key], { levels, work: this.work });
  }
}

/**
 * Cuts a canonical schema below `levels` of nested objects: deeper objects become described
 * free-form objects. Output schemas describe, they do not constrain what a model sends, and a
 * record such as a Trello card with every nested list, action and checklist spelled out would make
 * `tools/list` megabytes long. (`ToolSchemas.output(tool, levels)` gives the same without
 * building the whole schema first.)
 */
export function pruneDepth(schema: Json, levels: number): Json {
  const walk = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, depth));
    if (!isObject(node)) return node;
    if (depth >= levels && prunable(node)) return prunedObject(node);
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && isObject(value))
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, depth + 1)]));
      else if (key === "items" || key === "anyOf" || key === "oneOf" || key === "allOf") out[key] = walk(value, depth);
      else if (key === "additionalProperties" && isObject(value)) out[key] = walk(value, depth + 1);
      else out[key] = value;
    }
    return out;
  };
  return walk(schema, 0) as Json;
}

/** The description a model sees: the step's text, and what replaces it when it is deprecated. */
export function fullDescription(tool: ToolDefinition): string {
  const deprecated = tool.deprecated ? ` Deprecated${tool.replacedBy ? `: use ${tool.replacedBy} instead` : ""}.` : "";
  return `${tool.description}${deprecated}`.trim();
}
