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
import { appendDescription, ToolSchemas } from "./export-schema.js";
import { toGemini, type GeminiTool } from "./gemini.js";

export { appendDescription, canonicalize, canonicalSchema, pruneDepth, ToolSchemas } from "./export-schema.js";
export type { CanonicalOptions, SchemaWork } from "./export-schema.js";

type Json = Record<string, unknown>;
export type JsonSchema = Json;

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ------------------------------------------------------------------ OpenAI strict

const STRICT_KEYS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const FORBIDDEN_STRICT = ["allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "oneOf", "$ref", "patternProperties", "propertyNames"];

function isFreeForm(node: Json): boolean {
  const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
  if (!isObjectType) return false;
  const ap = node.additionalProperties;
  if (ap === undefined) return !isObject(node.properties) || Object.keys(node.properties as Json).length === 0;
  return ap !== false;
}

function withNull(node: Json): Json {
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf as Json[];
    if (branches.some((b) => b.type === "null")) return node;
    return { ...node, anyOf: [...branches, { type: "null" }] };
  }
  if (typeof node.type === "string" && node.type !== "null") {
    const out: Json = { ...node, type: [node.type, "null"] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.type)) return node.type.includes("null") ? node : { ...node, type: [...node.type, "null"] };
  const { description, ...rest } = node;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: "null" }] };
}

export interface StrictResult {
  schema: Json;
  /** False when the schema needs a free-form map; the export then uses `strict: false`. */
  strict: boolean;
  reasons: string[];
}

/** The OpenAI strict-mode variant of a canonical schema, or the reasons it cannot be strict. */
export function openaiStrictSchema(canonical: Json): StrictResult {
  const reasons: string[] = [];
  const walk = (node: unknown, at: string): unknown => {
    if (Array.isArray(node)) return node.map((n, i) => walk(n, `${at}[${i}]`));
    if (!isObject(node)) return node;
    if (isFreeForm(node)) reasons.push(`${at || "(root)"} is a free-form object (any keys)`);
    let source: Json = node;
    if (Array.isArray(source.oneOf)) {
      const { oneOf, ...rest } = source;
      source = { ...rest, anyOf: oneOf };
    }
    if (Array.isArray(source.allOf) && source.allOf.length === 1 && isObject(source.allOf[0])) {
      const { allOf, ...rest } = source;
      source = { ...(allOf as Json[])[0], ...rest };
    }
    const out: Json = {};
    const notes: string[] = [];
    for (const [key, value] of Object.entries(source)) {
      if (key === "properties" && isObject(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, at ? `${at}.${k}` : k)]));
      } else if (key === "items" || key === "anyOf") {
        out[key] = walk(value, `${at}${key === "items" ? "[]" : ""}`);
      } else if (key === "additionalProperties") {
        out.additionalProperties = isObject(value) || value === true ? walk(value, `${at}{}`) : value;
      } else if (key === "format") {
        if (typeof value === "string" && STRICT_FORMATS.has(value)) out.format = value;
        else notes.push(`Format: ${String(value)}.`);
      } else if (STRICT_KEYS.has(key)) {
        out[key] = value;
      } else if (FORBIDDEN_STRICT.includes(key)) {
        reasons.push(`${at || "(root)"} uses ${key}`);
        out[key] = value;
      } else if (key === "minLength" || key === "maxLength") {
        notes.push(`${key === "minLength" ? "At least" : "At most"} ${String(value)} characters.`);
      } else if (key === "examples" && Array.isArray(value)) {
        notes.push(`Example: ${value.slice(0, 2).map((v) => JSON.stringify(v)).join(", ")}.`);
      }
      // Other keywords (readOnly, deprecated, contentEncoding, ...) carry nothing a model needs.
    }
    for (const note of notes) appendDescription(out, note);
    const isObjectType = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"));
    if (isObjectType && isObject(out.properties)) {
      const props = out.properties as Record<string, Json>;
      const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
      for (const [key, prop] of Object.entries(props)) if (!required.has(key)) props[key] = withNull(prop);
      out.required = Object.keys(props);
      if (out.additionalProperties === undefined || out.additionalProperties === false) out.additionalProperties = false;
    } else if (isObjectType && out.additionalProperties === undefined) {
      out.additionalProperties = false;
      if (!out.properties) out.properties = {};
      out.required = Object.keys(out.properties as Json);
    }
    return out;
  };
  const schema = walk(canonical, "") as Json;
  return { schema, strict: reasons.length === 0, reasons: [...new Set(reasons)] };
}

export interface RuleViolation {
  path: string;
  rule: string;
}

/** Everything that would make OpenAI refuse `schema` with `strict: true`. */
export function openaiStrictViolations(schema: unknown): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (!isObject(schema) || schema.type !== "object") out.push({ path: "(root)", rule: 'the root must be { type: "object" }' });
  if (isObject(schema)) for (const k of ["anyOf", "oneOf", "allOf"]) if (k in schema) out.push({ path: "(root)", rule: `no ${k} at the root` });
  let depth = 0;
  const walk = (node: unknown, at: string, level: number): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`, level));
    if (!isObject(node)) return;
    depth = Math.max(depth, level);
    for (const key of Object.keys(node)) {
      if (!STRICT_KEYS.has(key)) out.push({ path: at || "(root)", rule: `keyword "${key}" is not allowed in strict mode` });
    }
    if (typeof node.format === "string" && !STRICT_FORMATS.has(node.format)) out.push({ path: at, rule: `format "${node.format}" is not supported` });
    const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
    if (isObjectType) {
      if (node.additionalProperties !== false) out.push({ path: at || "(root)", rule: "objects need additionalProperties: false" });
      const props = isObject(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      for (const p of props) if (!required.includes(p)) out.push({ path: at ? `${at}.${p}` : p, rule: "every property must be in required (use a null union for optional)" });
      if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, at ? `${at}.${k}` : k, level + 1);
    }
    if (node.items !== undefined) walk(node.items, `${at}[]`, level + 1);
    if (Array.isArray(node.anyOf)) walk(node.anyOf, at, level);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${at}{}`, level + 1);
  };
  walk(schema, "", 0);
  if (depth > 10) out.push({ path: "(root)", rule: "at most 10 levels of nesting" });
  return out;
}

function commonViolations(name: unknown, schema: unknown, label: string): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (typeof name !== "string" || !PROVIDER_NAME.test(name)) out.push({ path: "name", rule: `name must match ${PROVIDER_NAME}` });
  if (!isObject(schema) || schema.type !== "object") out.push({ path: label, rule: 'must be { type: "object" }' });
  if (isObject(schema)) for (const k of ["anyOf", "oneOf", "allOf"]) if (k in schema) out.push({ path: label, rule: `no ${k} at the top level` });
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
    if (!isObject(node)) return;
    for (const key of ["$ref", "$schema", "$defs", "default", "nullable"]) if (key in node) out.push({ path: at, rule: `"${key}" is not portable (Anthropic custom tools, Gemini, Zed)` });
    if (isObject(node.properties)) {
      for (const [k, v] of Object.entries(node.properties)) {
        if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(k)) out.push({ path: `${at}.${k}`, rule: "property names must be 1-64 letters, digits, _ . -" });
        walk(v, `${at}.${k}`);
      }
    }
    for (const key of ["items", "anyOf", "oneOf", "allOf", "additionalProperties"]) if (node[key] !== undefined) walk(node[key], `${at}.${key}`);
  };
  walk(schema, label);
  return out;
}

export function anthropicViolations(tool: unknown): RuleViolation[] {
  const t = isObject(tool) ? tool : {};
  const out = commonViolations(t.name, t.input_schema, "input_schema");
  if (typeof t.description !== "string" || t.description.length === 0) out.push({ path: "description", rule: "a description is required" });
  for (const key of Object.keys(t)) if (!["name", "description", "input_schema"].includes(key)) out.push({ path: key, rule: "unknown key" });
  return out;
}

export function mcpViolations(tool: unknown): RuleViolation[] {
  const t = isObject(tool) ? tool : {};
  const out = commonViolations(t.name, t.inputSchema, "inputSchema");
  if (t.outputSchema !== undefined && (!isObject(t.outputSchema) || t.outputSchema.type !== "object")) out.push({ path: "outputSchema", rule: 'the outputSchema root must be { type: "object" }' });
  const a = t.annotations;
  if (!isObject(a)) out.push({ path: "annotations", rule: "annotations are required here" });
  else for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) if (typeof a[k] !== "boolean") out.push({ path: `annotations.${k}`, rule: "must be a boolean" });
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
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The description a model sees: the step's text, and what replaces it when it is deprecated. */
export function fullDescription(tool: ToolDefinition): string {
  const deprecated = tool.deprecated ? ` Deprecated${tool.replacedBy ? `: use ${tool.replacedBy} instead` : ""}.` : "";
  return `${tool.description}${deprecated}`.trim();
}

/** A book of one step, for the single-step exports called without one. */
const bookOf = (tool: ToolDefinition): ToolSchemas => new ToolSchemas([tool]);

export function toOpenAI(tool: ToolDefinition, book = bookOf(tool)): { tool: OpenAITool; reasons: string[] } {
  const canonical = book.input(tool);
  const strict = openaiStrictSchema(canonical);
  const parameters = strict.strict ? strict.schema : canonical;
  return { tool: { type: "function", function: { name: tool.name, description: fullDescription(tool), parameters, strict: strict.strict } }, reasons: strict.reasons };
}

export function toAnthropic(tool: ToolDefinition, book = bookOf(tool)): AnthropicTool {
  return { name: tool.name, description: fullDescription(tool), input_schema: book.input(tool) };
}

/** Nesting kept in MCP output schemas (the record, its parts, and their parts). */
export const OUTPUT_SCHEMA_LEVELS = 3;

export function toMcp(tool: ToolDefinition, book = bookOf(tool)): McpTool {
  let outputSchema = book.output(tool, OUTPUT_SCHEMA_LEVELS);
  if (outputSchema.type !== "object") outputSchema = { type: "object", description: "The step's result.", additionalProperties: true };
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
      if (freeForm.length) nonStrict.push({ name: tool.name, reasons: freeForm.map((p) => `${p} is a free-form object (any keys); exported as parametersJsonSchema`) });
      return exported;
    }
    const { tool: exported, reasons } = toOpenAI(tool, book);
    if (!exported.function.strict) nonStrict.push({ name: tool.name, reasons });
    return exported;
  });
  return { tools: out, nonStrict };
}
