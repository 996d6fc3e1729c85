/**
 * Reading JSON Schemas of the model: `allOf` of objects merged into one object, the kind of value a
 * schema describes, and a schema without its prose (`lean`). Used by the check stage (a tool step's
 * body fields, its output wrapping, the mock's operations) and by the emitters, so both read a
 * schema the same way and no emitter reaches into check/.
 */
import { asObject, isObject, type Json, type RefResolver } from "./refs.js";

/** Merges `allOf` members that are all objects into one object schema; anything else is returned as is. */
export function flattenAllOf(refs: RefResolver, schema: Json, depth = 0): Json {
  if (!Array.isArray(schema.allOf) || depth > 20) return schema;
  const members = schema.allOf.map((m) => flattenAllOf(refs, refs.deref(m), depth + 1));
  if (!members.every((m) => m.type === "object" || isObject(m.properties))) return schema;
  const { allOf: _allOf, ...rest } = schema;
  const properties: Json = {};
  const required = new Set<string>();
  let additional: unknown;
  for (const m of [...members, rest]) {
    Object.assign(properties, isObject(m.properties) ? m.properties : {});
    for (const r of Array.isArray(m.required) ? m.required : []) required.add(String(r));
    if (m.additionalProperties !== undefined) additional = m.additionalProperties;
  }
  const description = rest.description ?? members.map((m) => m.description).find((d) => typeof d === "string");
  return {
    type: "object",
    ...(description !== undefined ? { description } : {}),
    properties,
    ...(required.size ? { required: [...required] } : {}),
    ...(additional !== undefined ? { additionalProperties: additional } : {}),
  };
}

/**
 * Whether a property schema is `readOnly` (or `writeOnly`): on itself, beside its `$ref` (3.1), on
 * the schema its `$ref` names, or on a member of its `allOf` (`allOf: [{ $ref: Id }]` where `Id` is
 * read-only, a common 3.0 spelling) — the schema node's flag. Read-only properties are never tool
 * inputs nor required in a request; write-only ones never in an output.
 */
export function hasFlag(refs: RefResolver, schema: unknown, flag: "readOnly" | "writeOnly"): boolean {
  return refs.node(schema)[flag];
}

/** The kind of value a schema describes, after refs and allOf (the schema node's kind). */
export function kindOf(refs: RefResolver, schema: unknown): "object" | "array" | "other" {
  const kind = refs.node(schema).kind;
  return kind === "object" || kind === "array" ? kind : "other";
}

/** Text as one sentence: whitespace collapsed, a full stop added when it has no closing mark. */
export function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  if (!t) return "";
  return /[.!?)]$/.test(t) ? t : `${t}.`;
}

const DOC_KEYS = new Set([
  "description",
  "summary",
  "example",
  "examples",
  "externalDocs",
  "title",
  "x-stepforge-seed",
]);
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/** A schema without its prose and examples (the mock validates with it; it does not print it). */
export function lean(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n));
  const obj = asObject(node);
  if (!obj) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (!namesHere && (DOC_KEYS.has(k) || k.startsWith("x-"))) continue;
    out[k] = namesHere ? lean(v) : lean(v, NAME_MAPS.has(k));
  }
  return out;
}
