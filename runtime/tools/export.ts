/**
 * JSON Schema exports of tool steps for each provider, derived from the zod schemas by pure
 * functions (see reference C.5):
 *
 * 1. `canonicalSchema` (export-schema.ts): z.toJSONSchema, then `$ref`s inlined, keys some
 *    providers refuse dropped; `ToolSchemas` does it for a whole list of steps in one pass.
 * 2. `openaiStrictSchema`: every object `additionalProperties: false` and every property required,
 *    optional ones as a union with null; `oneOf` → `anyOf`; only keywords strict mode documents are
 *    kept (others move into the description). When a free-form map is unavoidable (an API Call
 *    body, custom fields) the tool is exported with `strict: false` and the reasons are reported.
 * 3. Anthropic: `{ name, description, input_schema }`; MCP: `{ name, title, description,
 *    inputSchema, outputSchema (object root), annotations }`.
 *
 * The rule checkers (`openaiStrictViolations`, `anthropicViolations`, `mcpViolations`) are real
 * functions so tests can run them on every export and on known-bad schemas.
 */
import type { ToolDefinition } from "./types.js";
import { nullRemovesField } from "./bodies.js";
import { fullDescription, ToolSchemas } from "./export-schema.js";
import { openaiStrictSchema, type RuleViolation } from "./export-strict.js";
import { toGemini, type GeminiTool } from "./gemini.js";

export {
  appendDescription,
  canonicalize,
  canonicalSchema,
  fullDescription,
  pruneDepth,
  ToolSchemas,
} from "./export-schema.js";
export type { CanonicalOptions, SchemaWork } from "./export-schema.js";
export { openaiStrictSchema, openaiStrictViolations, OPENAI_STRICT_LIMITS } from "./export-strict.js";
export type { RuleViolation, StrictResult } from "./export-strict.js";

type Json = Record<string, unknown>;
export type JsonSchema = Json;

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function commonViolations(name: unknown, schema: unknown, label: string): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (typeof name !== "string" || !PROVIDER_NAME.test(name))
    out.push({ path: "name", rule: `name must match ${PROVIDER_NAME}` });
  if (!isObject(schema) || schema.type !== "object") out.push({ path: label, rule: 'must be { type: "object" }' });
  if (isObject(schema))
    for (const k of ["anyOf", "oneOf", "allOf"])
      if (k in schema) out.push({ path: label, rule: `no ${k} at the top level` });
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
    if (!isObject(node)) return;
    for (const key of ["$ref", "$schema", "$defs", "default", "nullable"])
      if (key in node) out.push({ path: at, rule: `"${key}" is not portable (Anthropic custom tools, Gemini, Zed)` });
    if (isObject(node.properties)) {
      for (const [k, v] of Object.entries(node.properties)) {
        if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(k))
          out.push({ path: `${at}.${k}`, rule: "property names must be 1-64 letters, digits, _ . -" });
        walk(v, `${at}.${k}`);
      }
    }
    for (const key of ["items", "anyOf", "oneOf", "allOf", "additionalProperties"])
      if (node[key] !== undefined) walk(node[key], `${at}.${key}`);
  };
  walk(schema, label);
  return out;
}

export function anthropicViolations(tool: unknown): RuleViolation[] {
  const t = isObject(tool) ? tool : {};
  const out = commonViolations(t.name, t.input_schema, "input_schema");
  if (typeof t.description !== "string" || t.description.length === 0)
    out.push({ path: "description", rule: "a description is required" });
  for (const key of Object.keys(t))
    if (!["name", "description", "input_schema"].includes(key)) out.push({ path: key, rule: "unknown key" });
  return out;
}

export function mcpViolations(tool: unknown): RuleViolation[] {
  const t = isObject(tool) ? tool : {};
  const out = commonViolations(t.name, t.inputSchema, "inputSchema");
  if (t.outputSchema !== undefined && (!isObject(t.outputSchema) || t.outputSchema.type !== "object"))
    out.push({ path: "outputSchema", rule: 'the outputSchema root must be { type: "object" }' });
  const a = t.annotations;
  if (!isObject(a)) out.push({ path: "annotations", rule: "annotations are required here" });
  else
    for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
      if (typeof a[k] !== "boolean") out.push({ path: `annotations.${k}`, rule: "must be a boolean" });
  if (typeof t.title !== "string") out.push({ path: "title", rule: "a title is required here" });
  return out;
}

// ------------------------------------------------------------------ exports

export type ExportFormat = "openai" | "anthropic" | "mcp" | "gemini";

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Json; strict: boolean };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Json;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Json;
  outputSchema: Json;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/** A book of one step, for the single-step exports called without one. */
const bookOf = (tool: ToolDefinition): ToolSchemas => new ToolSchemas([tool]);

export function toOpenAI(tool: ToolDefinition, book = bookOf(tool)): { tool: OpenAITool; reasons: string[] } {
  const canonical = book.input(tool);
  const strict = openaiStrictSchema(canonical);
  if (nullRemovesField(tool)) {
    strict.strict = false;
    strict.reasons.unshift(
      "its body is a JSON merge patch, where null removes a field: strict mode would send " +
        "null for every field left out",
    );
  }
  const parameters = strict.strict ? strict.schema : canonical;
  return {
    tool: {
      type: "function",
      function: { name: tool.name, description: fullDescription(tool), parameters, strict: strict.strict },
    },
    reasons: strict.reasons,
  };
}

export function toAnthropic(tool: ToolDefinition, book = bookOf(tool)): AnthropicTool {
  return { name: tool.name, description: fullDescription(tool), input_schema: book.input(tool) };
}

/** Nesting kept in MCP output schemas (the record, its parts, and their parts). */
export const OUTPUT_SCHEMA_LEVELS = 3;

export function toMcp(tool: ToolDefinition, book = bookOf(tool)): McpTool {
  let outputSchema = book.output(tool, OUTPUT_SCHEMA_LEVELS);
  if (outputSchema.type !== "object")
    outputSchema = { type: "object", description: "The step's result.", additionalProperties: true };
  return {
    name: tool.name,
    title: tool.title,
    description: fullDescription(tool),
    inputSchema: book.input(tool),
    outputSchema,
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export interface ExportResult {
  tools: Array<OpenAITool | AnthropicTool | McpTool | GeminiTool>;
  /** Tools exported with `strict: false` (OpenAI), or with `parametersJsonSchema` (Gemini), and why. */
  nonStrict: Array<{ name: string; reasons: string[] }>;
}

export function exportTools(tools: readonly ToolDefinition[], format: ExportFormat): ExportResult {
  const nonStrict: ExportResult["nonStrict"] = [];
  // One conversion for the whole list: the steps of a spec share most of their schemas.
  const book = new ToolSchemas(tools);
  const out = tools.map((tool) => {
    if (format === "anthropic") return toAnthropic(tool, book);
    if (format === "mcp") return toMcp(tool, book);
    if (format === "gemini") {
      const { tool: exported, freeForm } = toGemini(tool, book);
      if (freeForm.length)
        nonStrict.push({
          name: tool.name,
          reasons: freeForm.map((p) => `${p} is a free-form object (any keys); exported as parametersJsonSchema`),
        });
      return exported;
    }
    const { tool: exported, reasons } = toOpenAI(tool, book);
    if (!exported.function.strict) nonStrict.push({ name: tool.name, reasons });
    return exported;
  });
  return { tools: out, nonStrict };
}
