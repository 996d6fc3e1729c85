/**
 * OpenAPI schemas as the mock's JSON Schema 2020-12 tools read them. OpenAPI 3.0 spells a few
 * things its own way (`nullable`, boolean `exclusiveMinimum`, tuple `items`), and Ajv2020 throws
 * on them at compile time, which the mock turned into a 500 for every request to the operation.
 * The sampler rewrites one node at a time (`draft2020Node`); the request validator rewrites a
 * whole tree once (`requestSchema`).
 */
import { setOwn } from "../internal/values.js";

type SchemaNode = Record<string, unknown>;

const isNode = (v: unknown): v is SchemaNode => v !== null && typeof v === "object" && !Array.isArray(v);

/** The `type` keyword as a list of names; undefined when the schema gives none. */
export function typesOf(s: SchemaNode): string[] | undefined {
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === "string");
  return undefined;
}

/** One schema node with OpenAPI 3.0 spellings in 2020-12 terms (a shallow copy; children untouched). */
export function draft2020Node(input: SchemaNode): SchemaNode {
  const s: SchemaNode = { ...input };
  if (s.nullable === true) {
    const types = typesOf(s);
    if (types && !types.includes("null")) s.type = [...types, "null"];
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...(s.enum as unknown[]), null];
  }
  delete s.nullable;
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof s[flag] !== "boolean") continue;
    if (s[flag] === true && typeof s[bound] === "number") {
      s[flag] = s[bound];
      delete s[bound];
    } else delete s[flag];
  }
  if (Array.isArray(s.items)) {
    // draft 4–2019 tuples
    s.prefixItems = s.items;
    if (s.additionalItems !== undefined) s.items = s.additionalItems;
    else delete s.items;
  }
  return s;
}

/** Keywords whose value is data, not a schema: copied as they are. */
const DATA_KEYWORDS = new Set(["enum", "const", "default"]);
/** Keywords whose value maps names to schemas (not a schema itself). */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * A schema tree ready for the request validator:
 * - 3.0 spellings rewritten (`draft2020Node`); `nullable: true` where the keywords beside it cannot
 *   say so — beside a `$ref`, an `allOf` or no `type` — admits null through `anyOf: [null, …]`, as
 *   the spec's author meant and as the schema node (runtime/spec/schema-node.ts) reads it for the
 *   tool steps and the sampler;
 * - a `readOnly` property is not required in a request (the server sets it);
 * - `oneOf` is checked as `anyOf`: branches built as `allOf: [Base, …]` (with a discriminator or
 *   not) and open objects (`{value: object}` beside `{idValue: string}`) often overlap, and
 *   "exactly one" refused valid requests, parameters too (Trello's `TrelloID` beside a plain
 *   string); a mock should not be stricter than the service it imitates;
 * - `$ref`s into the document are prefixed with `refBase` (the id the components are registered
 *   under); examples are dropped (they are not validated and may be large).
 */
export function requestSchema(tree: unknown, refBase: string, direction: "request" | "response" = "request"): unknown {
  // In a response it is the other way round: a writeOnly property (a password) is never sent back.
  const serverSide = direction === "request" ? "readOnly" : "writeOnly";
  const walkSchema = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walkSchema);
    if (!isNode(node)) return node;
    // Own keywords decide here (references are registered with Ajv, which follows them itself).
    const untyped =
      node.nullable === true && (node.type === undefined || Array.isArray(node.allOf) || typeof node.$ref === "string");
    const s = draft2020Node(node);
    const out: SchemaNode = {};
    for (const [key, value] of Object.entries(s)) {
      if (key === "example" || key === "examples") continue;
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/")) out.$ref = `${refBase}${value}`;
      else if (DATA_KEYWORDS.has(key)) setOwn(out, key, value);
      else if (SCHEMA_MAPS.has(key) && isNode(value)) out[key] = walkMap(value);
      else setOwn(out, key, walkSchema(value));
    }
    if (Array.isArray(out.required) && isNode(out.properties)) {
      const properties = out.properties;
      out.required = out.required.filter(
        (name) =>
          !(
            typeof name === "string" &&
            Object.hasOwn(properties, name) &&
            isNode(properties[name]) &&
            properties[name][serverSide] === true
          ),
      );
    }
    if (Array.isArray(out.oneOf)) {
      out.anyOf = out.oneOf;
      delete out.oneOf;
    }
    return untyped ? { anyOf: [{ type: "null" }, out] } : out;
  };
  const walkMap = (map: SchemaNode): SchemaNode => {
    const out: SchemaNode = {};
    for (const [name, schema] of Object.entries(map)) setOwn(out, name, walkSchema(schema));
    return out;
  };
  return walkSchema(tree);
}

/** A document's `components` for the request validator: every section a map of named nodes. */
export function requestComponents(
  components: unknown,
  refBase: string,
  direction: "request" | "response" = "request",
): SchemaNode {
  const out: SchemaNode = {};
  if (!isNode(components)) return out;
  for (const [section, named] of Object.entries(components)) {
    if (!isNode(named)) continue;
    const walked: SchemaNode = {};
    for (const [name, node] of Object.entries(named)) setOwn(walked, name, requestSchema(node, refBase, direction));
    setOwn(out, section, walked);
  }
  return out;
}
