/**
 * OpenAI's strict mode (reference C.1): the strict variant of a canonical schema, and the rules
 * OpenAI applies to it. A step is exported with `strict: true` only when its strict variant breaks
 * none of them; otherwise `strict: false` with the reasons (OpenAI refuses the whole request when
 * one tool's strict schema breaks a rule, so a wrong `true` costs every tool of the request).
 *
 * The rules: an object root; every object `additionalProperties: false` with every property
 * required; only the keywords and formats strict mode documents; and the documented size limits
 * (OPENAI_STRICT_LIMITS): nesting, properties, enum values, the characters of property names, enum
 * and const values, and the characters of one large string enum. Public specs break the limits:
 * two of the corpus had steps nested deeper than 10 levels exported as strict.
 */
import { nodeOf } from "../spec/schema-node.js";
import { appendDescription } from "./export-schema.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** OpenAI's documented limits of a strict schema (structured outputs, "supported schemas"). */
export const OPENAI_STRICT_LIMITS = {
  /** Levels of nesting; the root object is level 1, each property or list item one more. */
  depth: 10,
  /** Object properties, counted over the whole schema. */
  properties: 5000,
  /** Enum values over the whole schema. */
  enumValues: 1000,
  /** Characters of every property name, enum value and const value together. */
  nameCharacters: 120_000,
  /** A string enum of more than this many values... */
  largeEnumValues: 250,
  /** ...may hold at most this many characters in all. */
  largeEnumCharacters: 15_000,
} as const;

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
const FORBIDDEN_STRICT = [
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "oneOf",
  "$ref",
  "patternProperties",
  "propertyNames",
];

function isFreeForm(node: Json): boolean {
  const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
  if (!isObjectType) return false;
  const ap = node.additionalProperties;
  if (ap === undefined) return !isObject(node.properties) || Object.keys(node.properties as Json).length === 0;
  return ap !== false;
}

/** `node` admitting null as well (an optional property in strict mode), in the spelling it already uses. */
function withNull(node: Json): Json {
  // Whether it admits null already is the schema node's answer, whatever the spelling.
  if (nodeOf(node).nullable) return node;
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...(node.anyOf as Json[]), { type: "null" }] };
  if (typeof node.type === "string") {
    const out: Json = { ...node, type: [node.type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.type)) return { ...node, type: [...node.type, "null"] };
  const { description, ...rest } = node;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: "null" }] };
}

export interface RuleViolation {
  path: string;
  rule: string;
}

export interface StrictResult {
  schema: Json;
  /** False when the strict variant breaks a rule (a free-form map, a limit); the export then uses `strict: false`. */
  strict: boolean;
  reasons: string[];
}

/**
 * The OpenAI strict-mode variant of a canonical schema, and whether it may claim `strict: true`:
 * only when `openaiStrictViolations` finds nothing in it (the reasons say what it found).
 */
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
        notes.push(
          `Example: ${value
            .slice(0, 2)
            .map((v) => JSON.stringify(v))
            .join(", ")}.`,
        );
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
      if (out.additionalProperties === undefined || out.additionalProperties === false)
        out.additionalProperties = false;
    } else if (isObjectType && out.additionalProperties === undefined) {
      out.additionalProperties = false;
      if (!out.properties) out.properties = {};
      out.required = Object.keys(out.properties as Json);
    }
    return out;
  };
  const schema = walk(canonical, "") as Json;
  // The checker is the gate: whatever the conversion could not fix (depth, sizes) keeps it non-strict.
  if (reasons.length === 0) for (const v of openaiStrictViolations(schema)) reasons.push(`${v.path}: ${v.rule}`);
  return { schema, strict: reasons.length === 0, reasons: [...new Set(reasons)] };
}

/** Counts over a whole schema, for the size limits. */
interface Sizes {
  depth: number;
  properties: number;
  enumValues: number;
  nameCharacters: number;
}

const textLength = (value: unknown): number =>
  typeof value === "string" ? value.length : (JSON.stringify(value)?.length ?? 0);

/** Everything that would make OpenAI refuse `schema` with `strict: true`. */
export function openaiStrictViolations(schema: unknown): RuleViolation[] {
  const out: RuleViolation[] = [];
  const limits = OPENAI_STRICT_LIMITS;
  if (!isObject(schema) || schema.type !== "object")
    out.push({ path: "(root)", rule: 'the root must be { type: "object" }' });
  if (isObject(schema))
    for (const k of ["anyOf", "oneOf", "allOf"])
      if (k in schema) out.push({ path: "(root)", rule: `no ${k} at the root` });
  const sizes: Sizes = { depth: 0, properties: 0, enumValues: 0, nameCharacters: 0 };
  let deepest = "";
  const walk = (node: unknown, at: string, level: number): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`, level));
    if (!isObject(node)) return;
    if (level > sizes.depth) {
      sizes.depth = level;
      deepest = at;
    }
    const where = at || "(root)";
    for (const key of Object.keys(node)) {
      if (!STRICT_KEYS.has(key)) out.push({ path: where, rule: `keyword "${key}" is not allowed in strict mode` });
    }
    if (typeof node.format === "string" && !STRICT_FORMATS.has(node.format))
      out.push({ path: where, rule: `format "${node.format}" is not supported` });
    if (Array.isArray(node.enum)) {
      sizes.enumValues += node.enum.length;
      const characters = node.enum.reduce((n: number, v) => n + textLength(v), 0);
      sizes.nameCharacters += characters;
      const strings = node.enum.every((v) => typeof v === "string" || v === null);
      if (strings && node.enum.length > limits.largeEnumValues && characters > limits.largeEnumCharacters) {
        out.push({
          path: where,
          rule:
            `an enum of over ${limits.largeEnumValues} strings may hold at most ${limits.largeEnumCharacters} ` +
            `characters (this one: ${node.enum.length} values, ${characters} characters)`,
        });
      }
    }
    if (node.const !== undefined) sizes.nameCharacters += textLength(node.const);
    const isObjectType = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
    if (isObjectType) {
      if (node.additionalProperties !== false)
        out.push({ path: where, rule: "objects need additionalProperties: false" });
      const props = isObject(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      for (const p of props)
        if (!required.includes(p))
          out.push({
            path: at ? `${at}.${p}` : p,
            rule: "every property must be in required (use a null union for optional)",
          });
    }
    if (isObject(node.properties)) {
      for (const [k, v] of Object.entries(node.properties)) {
        sizes.properties++;
        sizes.nameCharacters += k.length;
        walk(v, at ? `${at}.${k}` : k, level + 1);
      }
    }
    if (node.items !== undefined) walk(node.items, `${at}[]`, level + 1);
    if (Array.isArray(node.anyOf)) walk(node.anyOf, at, level);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${at}{}`, level + 1);
  };
  walk(schema, "", 1);
  if (sizes.depth > limits.depth)
    out.push({ path: deepest, rule: `at most ${limits.depth} levels of nesting (this schema has ${sizes.depth})` });
  if (sizes.properties > limits.properties)
    out.push({
      path: "(root)",
      rule: `at most ${limits.properties} properties in all (this schema has ${sizes.properties})`,
    });
  if (sizes.enumValues > limits.enumValues)
    out.push({
      path: "(root)",
      rule: `at most ${limits.enumValues} enum values in all (this schema has ${sizes.enumValues})`,
    });
  if (sizes.nameCharacters > limits.nameCharacters) {
    out.push({
      path: "(root)",
      rule:
        `at most ${limits.nameCharacters} characters of property names, enum and const values ` +
        `(this schema has ${sizes.nameCharacters})`,
    });
  }
  return out;
}
