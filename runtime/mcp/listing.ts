/**
 * What `tools/list` says about each step, kept small enough for a model's context: the step's
 * description and input schema (canonical JSON Schema: no `$ref`, no `$schema`, no defaults), its
 * behaviour hints, and no output schema. An output schema obliges the server to return matching
 * `structuredContent`, and spelled out for every record type it was 90% of the bytes (965 KB for
 * 80 steps); a model that wants the shape of a result reads it from `describe_step`.
 *
 * Two fields are added by the server, never by the spec:
 * - `connection` when the server holds several accounts of the service (which one to use);
 * - `result_fields` on steps whose result is a list of records (keep only these fields).
 */
import { canonicalSchema, fullDescription, pruneDepth } from "../tools/export.js";
import { recordsKeyOf } from "../tools/shape.js";
import type { ToolDefinition } from "../tools/types.js";

type Json = Record<string, unknown>;

export const CONNECTION_FIELD = "connection";
export const RESULT_FIELDS_FIELD = "result_fields";

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
}

/** The step's result shape, two levels deep, for describe_step. */
export function outputShape(tool: ToolDefinition): Json {
  return pruneDepth(canonicalSchema(tool.output, "output"), 2);
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
export function listedOutputSchema(tool: ToolDefinition): Json | undefined {
  const full = pruneDepth(canonicalSchema(tool.output, "output"), 1);
  if (full.type !== "object") return undefined;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (!SHAPE_KEYS.has(key)) continue;
      out[key] = key === "properties" ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, walk(v)])) : key === "additionalProperties" && value !== false ? true : walk(value);
    }
    return out;
  };
  return { ...(walk(full) as Json), additionalProperties: true };
}

export function serveTool(tool: ToolDefinition, accounts: readonly string[], options: { outputSchema?: boolean } = {}): ServedTool {
  const schema = canonicalSchema(tool.input, "input");
  const properties = { ...((schema.properties as Json | undefined) ?? {}) };
  const required = [...((schema.required as string[] | undefined) ?? [])];
  for (const added of [CONNECTION_FIELD, RESULT_FIELDS_FIELD]) {
    if (added in properties) throw new Error(`${tool.name} has an input field "${added}", which the MCP server adds itself; rename it in the spec (x-stepforge-tool.fields)`);
  }
  const recordsKey = tool.kind === "operation" ? recordsKeyOf(canonicalSchema(tool.output, "output")) : undefined;
  if (recordsKey) {
    properties[RESULT_FIELDS_FIELD] = {
      type: "array",
      items: { type: "string" },
      description: 'Only these record fields (dotted for nested), e.g. ["id","name"].',
    };
  }
  if (accounts.length > 1) {
    properties[CONNECTION_FIELD] = { type: "string", enum: [...accounts], description: `Which ${tool.descriptor.title} account to use.` };
    required.push(CONNECTION_FIELD);
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
  const outputSchema = options.outputSchema ? listedOutputSchema(tool) : undefined;
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
  };
}
