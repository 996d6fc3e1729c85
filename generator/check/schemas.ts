/**
 * Schema keywords: every key of every schema in the document must be a JSON Schema 2020-12 or
 * OpenAPI keyword (or an `x-` extension). An unknown key is almost always a typo or a YAML flow
 * mapping split at a comma (`{ type: string, description: Id of the object, when it has one. }`
 * makes a key `when it has one.` and cuts the description), which no other tool reports.
 * A `pattern` must compile as a JavaScript regular expression: tool inputs check it with one.
 */
import { asObject, isObject, type Json } from "../refs.js";
import type { CheckContext, Path } from "./context.js";

/** Keywords whose value is one schema. */
const ONE = ["items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"];
/** Keywords whose value is a list of schemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const OTHER = [
  "$ref", "$id", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "$vocabulary", "type", "enum", "const", "multipleOf",
  "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
  "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "dependencies", "format", "contentEncoding",
  "contentMediaType", "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "example", "discriminator", "xml",
  "externalDocs", "nullable",
];
const KNOWN = new Set([...ONE, ...LIST, ...MAP, ...OTHER]);

export function checkSchemaKeywords(context: CheckContext): void {
  const { doc } = context;
  const components = asObject(doc.components);
  for (const [name, schema] of Object.entries(asObject(components?.schemas) ?? {})) checkSchema(schema, ["components", "schemas", name], context);
  // Everywhere else a schema sits under a `schema` key (parameters, media types, headers).
  walkForSchemas(doc, [], context);
}

function walkForSchemas(node: unknown, at: Path, context: CheckContext): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => walkForSchemas(child, [...at, i], context));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith("x-") || key === "example" || key === "examples") continue;
    if (at.length === 1 && at[0] === "components" && key === "schemas") continue;
    if (key === "schema" && at.length > 0) checkSchema(child, [...at, key], context);
    else walkForSchemas(child, [...at, key], context);
  }
}

function checkSchema(schema: unknown, at: Path, context: CheckContext): void {
  if (!isObject(schema)) return;
  const severity = context.strict ? "error" : "warning";
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-")) continue;
    if (!KNOWN.has(key)) {
      const hint = value === null ? " (a key without a value: was a YAML flow mapping `{ … }` split at a comma? Quote the text)" : "";
      context.report("SF161", [...at, key], `"${key}" is not a schema keyword${hint}; ${context.strict ? "remove or correct it" : "it is ignored"}`, severity);
      continue;
    }
    if (key === "pattern" && typeof value === "string" && !compiles(value)) {
      context.report("SF162", [...at, key], `pattern ${JSON.stringify(value).slice(0, 80)} is not a valid JavaScript regular expression; ${context.strict ? "fix it" : "it is not checked"}`, severity);
    }
    if (ONE.includes(key)) checkSchema(value, [...at, key], context);
    else if (LIST.includes(key) && Array.isArray(value)) value.forEach((member, i) => checkSchema(member, [...at, key, i], context));
    else if (MAP.includes(key) && isObject(value)) for (const [name, member] of Object.entries(value)) checkSchema(member, [...at, key, name], context);
  }
}

/** True when `pattern` compiles as the generated tool input will compile it. */
export function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/**
 * Discriminator mappings may name a schema (`Option One: OptionOne`) instead of referencing it;
 * openapi-typescript only follows references. The paths of such values, with the reference each
 * stands for, so the document it types can carry references (a spelling, not a defect).
 */
export function bareDiscriminatorNames(doc: Json): Array<{ path: Path; ref: string }> {
  const schemas = asObject(asObject(doc.components)?.schemas) ?? {};
  const found: Array<{ path: Path; ref: string }> = [];
  const walk = (node: unknown, at: Path) => {
    if (Array.isArray(node)) return node.forEach((child, i) => walk(child, [...at, i]));
    if (!isObject(node)) return;
    const mapping = asObject(asObject(node.discriminator)?.mapping);
    for (const [key, value] of Object.entries(mapping ?? {})) {
      if (typeof value === "string" && !value.includes("/") && Object.hasOwn(schemas, value)) found.push({ path: [...at, "discriminator", "mapping", key], ref: `#/components/schemas/${value.replace(/~/g, "~0")}` });
    }
    for (const [key, child] of Object.entries(node)) if (key !== "example" && key !== "examples") walk(child, [...at, key]);
  };
  walk(doc, []);
  return found;
}

/**
 * `$ref`s into `#/paths/…` (a schema reused from another operation): openapi-typescript types them
 * as the operation, not the schema. The paths of such references and their targets, so the
 * document it types can carry a copy of the target instead (same meaning).
 */
export function refsIntoPaths(doc: Json, resolve: (ref: string) => unknown): Array<{ path: Path; target: unknown }> {
  const found: Array<{ path: Path; target: unknown }> = [];
  const walk = (node: unknown, at: Path) => {
    if (Array.isArray(node)) return node.forEach((child, i) => walk(child, [...at, i]));
    if (!isObject(node)) return;
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/paths/")) {
      const target = resolve(node.$ref);
      if (target !== undefined) found.push({ path: at, target });
      return;
    }
    for (const [key, child] of Object.entries(node)) if (key !== "example" && key !== "examples") walk(child, [...at, key]);
  };
  walk(doc, []);
  return found;
}
