/**
 * What `tools/list` says about each step, kept small enough for a model's context: the step's
 * description and input schema (canonical JSON Schema: no `$ref`, no `$schema`, no defaults), its
 * behaviour hints, and no output schema. An output schema obliges the server to return matching
 * `structuredContent`, and spelled out for every record type it was 90% of the bytes (965 KB for
 * 80 steps); a model that wants the shape of a result reads it from `describe_step`.
 *
 * Two fields are added by the server, never by the spec, under names a spec is unlikely to use
 * (`stepforge_` first; valid property names for every provider):
 * - `stepforge_connection` when the server holds several accounts of the service (which one);
 * - `stepforge_result_fields` on steps whose result is a list of records (keep only these fields).
 * A spec may still use one of those names: the server's field then takes the next free name
 * (`stepforge_connection_2`), so no spec is refused for what its fields are called.
 */
import { fullDescription, ToolSchemas } from "../tools/export-schema.js";
import { recordsKeyOf } from "../tools/shape.js";
import type { ToolDefinition } from "../tools/types.js";
import { READ_ONLY } from "./results.js";

type Json = Record<string, unknown>;

export const CONNECTION_FIELD = "stepforge_connection";
export const RESULT_FIELDS_FIELD = "stepforge_result_fields";

/** `base`, or the first of `base_2`, `base_3`, … that is not a field of the step already. */
function freeName(base: string, taken: Json): string {
  if (!(base in taken)) return base;
  let n = 2;
  while (`${base}_${n}` in taken) n++;
  return `${base}_${n}`;
}

/** An MCP tool as listed. */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Json;
  outputSchema?: Json;
  annotations?: Json;
}

export interface ServedTool {
  definition: ToolDefinition;
  listed: ListedTool;
  /** The property of its result that holds records, when it has one. */
  recordsKey?: string | undefined;
  /** Account names when the model must choose one. */
  accounts: string[];
  /** The names of the server's own fields on this step (absent where the step does not take them). */
  fields: { connection?: string; resultFields?: string };
}

/** Levels of a step's result shape that describe_step shows. */
export const OUTPUT_SHAPE_LEVELS = 2;

/** The step's result shape, two levels deep, for describe_step. */
export function outputShape(tool: ToolDefinition, book = new ToolSchemas([tool])): Json {
  return book.output(tool, OUTPUT_SHAPE_LEVELS);
}

/** Keywords kept in a listed output schema: the shape, not the constraints. */
const SHAPE_KEYS = new Set(["type", "properties", "items", "additionalProperties", "anyOf", "oneOf"]);

/**
 * The output schema a step lists with `outputSchemas` on (MCP 2025-11-25), when its result is an
 * object: one level of fields with their types, nested objects free-form, nothing required, no
 * descriptions. A client checks `structuredContent` against it, and what the server returns may be
 * a cut result (fewer records, `result_fields`, long texts shortened, a `preview`), so the schema
 * states the shape and promises nothing a cut can break. 41 KB for the 80 steps, against 102 KB
 * with their descriptions and 256 KB two levels deep.
 */
export function listedOutputSchema(tool: ToolDefinition, book = new ToolSchemas([tool])): Json | undefined {
  const full = book.output(tool, 1);
  if (full.type !== "object") return undefined;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (!SHAPE_KEYS.has(key)) continue;
      out[key] =
        key === "properties"
          ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, walk(v)]))
          : key === "additionalProperties" && value !== false
            ? true
            : walk(value);
    }
    return out;
  };
  return { ...(walk(full) as Json), additionalProperties: true };
}

/** What a listing shows beyond the input: `outputSchema` of object results (MCP 2025-11-25). */
export interface ListingOptions {
  outputSchema?: boolean;
}

/**
 * One step as listed. Give every step of a listing the same `book` (`new ToolSchemas(steps)`):
 * converted one by one, steps that share schemas convert them again each time.
 */
export function serveTool(
  tool: ToolDefinition,
  accounts: readonly string[],
  book = new ToolSchemas([tool]),
  options: ListingOptions = {},
): ServedTool {
  const schema = book.input(tool);
  const properties = { ...((schema.properties as Json | undefined) ?? {}) };
  const required = [...((schema.required as string[] | undefined) ?? [])];
  const fields: ServedTool["fields"] = {};
  // One level shows whether a top-level property is a list of records; the rest is never built.
  const recordsKey = tool.kind === "operation" ? recordsKeyOf(book.output(tool, 1)) : undefined;
  if (recordsKey) {
    fields.resultFields = freeName(RESULT_FIELDS_FIELD, properties);
    properties[fields.resultFields] = {
      type: "array",
      items: { type: "string" },
      description: 'Only these record fields (dotted for nested), e.g. ["id","name"].',
    };
  }
  if (accounts.length > 1) {
    fields.connection = freeName(CONNECTION_FIELD, properties);
    properties[fields.connection] = {
      type: "string",
      enum: [...accounts],
      description: `Which ${tool.descriptor.title} account to use.`,
    };
    required.push(fields.connection);
  }
  const inputSchema: Json = { ...schema, type: "object", properties };
  if (required.length) inputSchema.required = required;
  else delete inputSchema.required;
  // Only hints that differ from the protocol's defaults (readOnly false, destructive true,
  // idempotent false, openWorld true): clients apply the defaults, and 80 steps save 5 KB.
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  const annotations: Json = {};
  if (readOnlyHint) annotations.readOnlyHint = true;
  else if (!destructiveHint) annotations.destructiveHint = false;
  if (idempotentHint && !readOnlyHint) annotations.idempotentHint = true;
  if (!openWorldHint) annotations.openWorldHint = false;
  const outputSchema = options.outputSchema ? listedOutputSchema(tool, book) : undefined;
  return {
    definition: tool,
    listed: {
      name: tool.name,
      title: tool.title,
      description: fullDescription(tool),
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations,
    },
    recordsKey,
    accounts: [...accounts],
    fields,
  };
}

/** Every step of a listing as listed, their schemas converted together. */
export function serveTools(
  tools: readonly ToolDefinition[],
  accountsOf: (tool: ToolDefinition) => readonly string[] = () => [],
  options: ListingOptions = {},
): ServedTool[] {
  const book = new ToolSchemas(tools);
  return tools.map((tool) => serveTool(tool, accountsOf(tool), book, options));
}

/** The tool that pages through a result cut to fit the budget. */
export const CONTINUE_TOOL = "continue_result";

export function continueTool(): ListedTool {
  return {
    name: CONTINUE_TOOL,
    title: "Continue a cut result",
    description: "Get the next records of a result that was cut to fit the context; pass the cursor its note gave.",
    inputSchema: {
      type: "object",
      properties: { cursor: { type: "string", description: "The cursor from the note of the cut result." } },
      required: ["cursor"],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  };
}

/**
 * First sentence of a description, at most 160 characters. The period of an abbreviation ("e.g.",
 * "i.e.", "etc.", "vs.", "cf.") does not end a sentence: summaries were cut at "e.g.".
 */
export function summary(text: string): string {
  const first = /^.*?(?<!\b(?:e\.g|i\.e|etc|vs|cf))[.!?](?=\s|$)/is.exec(text)?.[0] ?? text;
  return first.length > 160 ? `${first.slice(0, 157)}...` : first;
}
