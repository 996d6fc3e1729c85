/**
 * Gemini function declarations: `{ name, description, parameters }`, where `parameters` is the
 * OpenAPI 3.0 Schema subset the Gemini API accepts (documented fields: type, format, title,
 * description, nullable, enum, properties, required, items, minItems/maxItems, minLength/maxLength,
 * pattern, minimum/maximum, anyOf, propertyOrdering). Derived from the canonical schema:
 *
 * - a `["string","null"]` type or a `{type:"null"}` branch becomes `nullable: true`;
 * - `const` becomes a one-value `enum`; `enum` stays only on strings (others move to the text);
 * - `format` stays only where Gemini documents it (`date-time`, `enum` on strings; `int32`/`int64`,
 *   `float`/`double` on numbers); others, and `exclusive*`, `multipleOf`, `examples`, move into
 *   the description; `additionalProperties` is dropped (Gemini refuses the key).
 *
 * An object with no properties (a free-form map such as an API Call body) cannot be said in that
 * subset (Gemini answers "properties: should be non-empty for OBJECT type"). Such a step is
 * exported with `parametersJsonSchema` instead (the API's JSON Schema field, exclusive with
 * `parameters`), and reported, like OpenAI's `strict: false`.
 */
import { nodeOf } from "../spec/schema-node.js";
import { fullDescription, ToolSchemas } from "./export-schema.js";
import type { RuleViolation } from "./export-strict.js";
import type { ToolDefinition } from "./types.js";

type Json = Record<string, unknown>;

export interface GeminiTool {
  name: string;
  description: string;
  parameters?: Json;
  parametersJsonSchema?: Json;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "properties",
  "required",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "anyOf",
  "propertyOrdering",
  "minProperties",
  "maxProperties",
]);
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);
const GEMINI_FORMATS: Record<string, Set<string>> = {
  string: new Set(["date-time", "enum"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};

function note(node: Json, text: string): void {
  const current = typeof node.description === "string" ? node.description.trim() : "";
  if (current.includes(text)) return;
  node.description = current ? `${current}${/[.!?]$/.test(current) ? "" : "."} ${text}` : text;
}

/** The Gemini form of a canonical schema, and the places it needs JSON Schema (free-form objects). */
export function geminiSchema(canonical: Json): { schema: Json; freeForm: string[] } {
  const freeForm: string[] = [];
  const walk = (input: Json, at: string): Json => {
    let node = input;
    const out: Json = {};
    // Nullability is the schema node's (a type list with null, a null branch, null in an enum…);
    // below, the null spellings are taken out of the type and the branches.
    const nullable = nodeOf(input).nullable;
    if (Array.isArray(node.type)) {
      const types = (node.type as string[]).filter((t) => t !== "null");
      node = { ...node, type: types.length === 1 ? types[0] : undefined };
      if (types.length > 1) node = { ...node, anyOf: types.map((t) => ({ type: t })) };
    }
    if (Array.isArray(node.anyOf)) {
      const branches = (node.anyOf as Json[]).filter(
        (b) => !(isObject(b) && b.type === "null" && Object.keys(b).length === 1),
      );
      const { anyOf: _a, ...rest } = node;
      node =
        branches.length === 1
          ? { ...branches[0], ...rest, description: rest.description ?? branches[0]!.description }
          : { ...rest, anyOf: branches };
    }
    if (node.const !== undefined) {
      const { const: value, ...rest } = node;
      node = { ...rest, enum: [value], type: rest.type ?? typeof value };
    }
    const type = typeof node.type === "string" ? node.type : undefined;
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined) continue;
      if (key === "properties" && isObject(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, walk(v as Json, at ? `${at}.${k}` : k)]),
        );
      } else if (key === "items" && isObject(value)) {
        out.items = walk(value, `${at}[]`);
      } else if (key === "anyOf" && Array.isArray(value)) {
        out.anyOf = (value as Json[]).map((b) => walk(b, at));
      } else if (key === "enum") {
        if (type === "string" && (value as unknown[]).every((v) => typeof v === "string")) out.enum = value;
        else note(out, `One of: ${(value as unknown[]).map((v) => JSON.stringify(v)).join(", ")}.`);
      } else if (key === "format") {
        if (type && GEMINI_FORMATS[type]?.has(String(value))) out.format = value;
        else note(out, `Format: ${String(value)}.`);
      } else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") {
        note(out, `${key === "exclusiveMinimum" ? "Greater" : "Less"} than ${String(value)}.`);
      } else if (key === "multipleOf") {
        note(out, `A multiple of ${String(value)}.`);
      } else if (key === "examples" && Array.isArray(value)) {
        note(
          out,
          `Example: ${value
            .slice(0, 2)
            .map((v) => JSON.stringify(v))
            .join(", ")}.`,
        );
      } else if (key === "description") {
        out.description =
          typeof out.description === "string" ? `${value as string} ${out.description as string}` : value;
      } else if (GEMINI_KEYS.has(key)) {
        out[key] = value;
      }
      // additionalProperties and everything else Gemini does not document is left out.
    }
    if (nullable) out.nullable = true;
    if (type === "object" && (!isObject(out.properties) || Object.keys(out.properties).length === 0))
      freeForm.push(at || "(root)");
    return out;
  };
  return { schema: walk(canonical, ""), freeForm };
}

export function toGemini(
  tool: ToolDefinition,
  book = new ToolSchemas([tool]),
): { tool: GeminiTool; freeForm: string[] } {
  const canonical = book.input(tool);
  const { schema, freeForm } = geminiSchema(canonical);
  // The root may have no properties (a step without input): that is fine for Gemini.
  const nested = freeForm.filter((p) => p !== "(root)");
  const base = { name: tool.name, description: fullDescription(tool) };
  if (nested.length === 0) {
    if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0)
      return { tool: base, freeForm: [] };
    return { tool: { ...base, parameters: schema }, freeForm: [] };
  }
  return { tool: { ...base, parametersJsonSchema: canonical }, freeForm: nested };
}

/** Everything the Gemini API would refuse in a function declaration. */
export function geminiViolations(tool: unknown): RuleViolation[] {
  const out: RuleViolation[] = [];
  const t = isObject(tool) ? tool : {};
  if (typeof t.name !== "string" || !GEMINI_NAME.test(t.name))
    out.push({ path: "name", rule: `name must match ${GEMINI_NAME}` });
  if (typeof t.description !== "string" || t.description.length === 0)
    out.push({ path: "description", rule: "a description is required" });
  for (const key of Object.keys(t))
    if (!["name", "description", "parameters", "parametersJsonSchema"].includes(key))
      out.push({ path: key, rule: "unknown key" });
  if (t.parameters !== undefined && t.parametersJsonSchema !== undefined)
    out.push({ path: "parameters", rule: "parameters and parametersJsonSchema are exclusive" });
  if (isObject(t.parametersJsonSchema)) {
    const s = t.parametersJsonSchema;
    if (s.type !== "object") out.push({ path: "parametersJsonSchema", rule: 'the root must be { type: "object" }' });
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
      if (!isObject(node)) return;
      for (const key of ["$ref", "$defs", "$schema", "default"])
        if (key in node) out.push({ path: at, rule: `"${key}" is not accepted` });
      for (const value of Object.values(node)) walk(value, at);
    };
    walk(s, "parametersJsonSchema");
  }
  if (t.parameters === undefined) return out;
  const root = t.parameters;
  if (!isObject(root) || String(root.type).toLowerCase() !== "object")
    out.push({ path: "parameters", rule: 'the root must be { type: "object" }' });
  const walk = (node: unknown, at: string): void => {
    if (!isObject(node)) return void out.push({ path: at, rule: "a schema must be an object" });
    for (const key of Object.keys(node))
      if (!GEMINI_KEYS.has(key)) out.push({ path: at, rule: `"${key}" is not in Gemini's schema subset` });
    const type = node.type === undefined ? undefined : String(node.type).toLowerCase();
    if (node.type !== undefined && (typeof node.type !== "string" || !GEMINI_TYPES.has(type!)))
      out.push({
        path: at,
        rule: "type must be one of string, number, integer, boolean, array, object (nullable: true for null)",
      });
    if (node.type === undefined && !Array.isArray(node.anyOf))
      out.push({ path: at, rule: "a type (or anyOf) is required" });
    if (node.enum !== undefined && (type !== "string" || !(node.enum as unknown[]).every((v) => typeof v === "string")))
      out.push({ path: at, rule: "enum is only for string values" });
    if (node.format !== undefined && !(type && GEMINI_FORMATS[type]?.has(String(node.format))))
      out.push({ path: at, rule: `format "${String(node.format)}" is not supported for ${type}` });
    if (
      type === "object" &&
      at !== "parameters" &&
      (!isObject(node.properties) || Object.keys(node.properties).length === 0)
    )
      out.push({ path: at, rule: "properties: should be non-empty for OBJECT type" });
    if (type === "array" && node.items === undefined) out.push({ path: at, rule: "an array needs items" });
    if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, `${at}.${k}`);
    if (Array.isArray(node.required) && isObject(node.properties))
      for (const r of node.required as string[])
        if (!(r in node.properties)) out.push({ path: at, rule: `required names "${r}", which is not a property` });
    if (node.items !== undefined) walk(node.items, `${at}[]`);
    if (Array.isArray(node.anyOf)) node.anyOf.forEach((b, i) => walk(b, `${at}.anyOf[${i}]`));
  };
  if (isObject(root)) walk(root, "parameters");
  return out;
}
