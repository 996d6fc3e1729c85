/**
 * Generated tool steps as data. A generated `tools.ts` hands `defineWiredTools` one JSON value: the
 * spec's shared schemas and, per step, its name, texts, annotations, wire mapping and input and
 * output schemas. Each schema is the call tree of the `s` builders (runtime/tools/schema.ts) the
 * module would otherwise spell as code: `{ "s": "string", "c": [["min", 1], ["describe", "…"]] }`
 * is `s.string().min(1).describe("…")`. This module makes those calls, so the zod schemas (and the
 * JSON Schemas exported from them) are the ones the code would have built.
 *
 * Why data: a consumer's type-checker checks every call, chain and object literal of a code tree,
 * in every project that compiles the module; a JSON string it scans once. On a 167-operation spec
 * tools.ts was the largest share of the generated code's check time.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { setOwn } from "../internal/values.js";
import { defineWiredTool, type StepWire, type ToolInput } from "./define.js";
import type { ToolCheck } from "./extension-types.js";
import { s, type Schema } from "./schema.js";
import type { OperationToolDefinition } from "./types.js";

/**
 * A schema as data: a builder name with no arguments (`"string"`), a builder call with arguments
 * and chained methods, or a shared schema by name (`{ "r": "InCard" }`), which may be chained too.
 */
export type SchemaData = string | { s: string; a?: unknown[]; c?: ChainData[] } | { r: string; c?: ChainData[] };

/** A method call on a schema: its name and arguments (`["max", 5]`, `["regex", { "p": "^x", "f": "u" }]`). */
export type ChainData = [string, ...unknown[]];

export interface WiredStepData {
  name: string;
  operationId: string;
  title: string;
  description: string;
  /** readOnlyHint, destructiveHint, idempotentHint, openWorldHint. */
  annotations: [boolean, boolean, boolean, boolean];
  deprecated?: boolean;
  replacedBy?: string;
  check?: ToolCheck;
  input: SchemaData;
  output: SchemaData;
  outputWrap: "none" | "items" | "value";
  wire: StepWire;
}

export interface WiredToolsData {
  /** Schemas of the spec's components, shared by the steps, each after those it uses. */
  schemas?: Record<string, SchemaData>;
  steps: WiredStepData[];
}

/** Patterns the generator names instead of writing out (the formats it checks with a short pattern). */
const NAMED_PATTERNS: Record<string, RegExp> = {
  /** ISO-8601 date-time: 2024-06-14T16:00:00Z, with optional seconds, fraction and offset. */
  DATE_TIME: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/,
  /** A calendar date: YYYY-MM-DD. */
  DATE: /^\d{4}-\d{2}-\d{2}$/,
};

type Builders = Record<string, (...args: unknown[]) => Schema>;

class SchemaBuilder {
  private readonly shared = new Map<string, Schema>();

  constructor(schemas: Record<string, SchemaData> = {}) {
    for (const [name, data] of Object.entries(schemas)) this.shared.set(name, this.build(data));
  }

  build(data: SchemaData): Schema {
    if (typeof data === "string") return this.call(data, []);
    let schema: Schema;
    if ("r" in data) {
      const shared = this.shared.get(data.r);
      if (!shared) throw new Error(`tool schema data refers to "${data.r}", which is not defined before it`);
      schema = shared;
    } else schema = this.call(data.s, data.a ?? []);
    for (const [method, ...args] of data.c ?? []) schema = this.chain(schema, method, args);
    return schema;
  }

  /** A builder call; the arguments that are schemas (shapes, items, members) are built first. */
  private call(name: string, args: unknown[]): Schema {
    const builders = s as unknown as Builders;
    if (!Object.hasOwn(builders, name)) throw new Error(`tool schema data names an unknown builder "${name}"`);
    const one = (i: number) => this.build(args[i] as SchemaData);
    switch (name) {
      case "strictObject":
      case "looseObject":
        return builders[name]!(this.shape(args[0]));
      case "catchall":
        return s.catchall(this.shape(args[0]), one(1));
      case "record":
      case "intersection":
        return builders[name]!(one(0), one(1));
      case "array":
        return s.array(one(0));
      case "union":
        return s.union((args[0] as SchemaData[]).map((member) => this.build(member)));
      default:
        // enum (its values), literal (its value), and the scalars (no arguments)
        return builders[name]!(...args);
    }
  }

  private shape(data: unknown): Record<string, Schema> {
    const shape: Record<string, Schema> = {};
    // Own keys, "__proto__" included: JSON.parse makes it an own key, and so does setOwn.
    for (const [key, value] of Object.entries(data as Record<string, SchemaData>))
      setOwn(shape, key, this.build(value));
    return shape;
  }

  private chain(schema: Schema, method: string, args: unknown[]): Schema {
    if (method === "regex") {
      const pattern = args[0];
      const re =
        typeof pattern === "string"
          ? NAMED_PATTERNS[pattern]
          : new RegExp((pattern as { p: string }).p, (pattern as { f?: string }).f);
      if (!re) throw new Error(`tool schema data names an unknown pattern "${String(pattern)}"`);
      return schema.regex(re);
    }
    const fn = (schema as unknown as Record<string, unknown>)[method];
    if (!CHAIN_METHODS.has(method) || typeof fn !== "function")
      throw new Error(`tool schema data calls an unknown method "${method}"`);
    return (fn as (...a: unknown[]) => Schema).apply(schema, args);
  }
}

/** The methods of `Schema` data may call (runtime/tools/schema.ts); nothing else on a zod object. */
const CHAIN_METHODS = new Set(["describe", "optional", "nullable", "min", "max", "meta", "gt", "lt", "int"]);

/** Every step of `data`, built as `defineWiredTool` builds one, in order. */
export function defineWiredTools(
  descriptor: ServiceDescriptor,
  data: WiredToolsData,
): Array<OperationToolDefinition<ToolInput>> {
  const builder = new SchemaBuilder(data.schemas);
  return data.steps.map((step) => {
    const [readOnlyHint, destructiveHint, idempotentHint, openWorldHint] = step.annotations;
    return defineWiredTool({
      name: step.name,
      operationId: step.operationId,
      title: step.title,
      description: step.description,
      annotations: { readOnlyHint, destructiveHint, idempotentHint, openWorldHint },
      ...(step.deprecated ? { deprecated: true } : {}),
      ...(step.replacedBy !== undefined ? { replacedBy: step.replacedBy } : {}),
      ...(step.check !== undefined ? { check: step.check } : {}),
      descriptor,
      input: builder.build(step.input),
      output: builder.build(step.output),
      outputWrap: step.outputWrap,
      wire: step.wire,
    });
  });
}
