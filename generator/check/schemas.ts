/**
 * Schema keywords: every key of every schema in the document must be a JSON Schema 2020-12 or
 * OpenAPI keyword (or an `x-` extension). An unknown key is almost always a typo or a YAML flow
 * mapping split at a comma (`{ type: string, description: Id of the object, when it has one. }`
 * makes a key `when it has one.` and cuts the description), which no other tool reports.
 * Schemas are found by position (generator/walk.ts): a parameter component named `schema` is a
 * parameter, not a schema.
 *
 * A `pattern` (and a `patternProperties` name) is read one way, ECMA-262 with the `u` flag as JSON
 * Schema says (generator/pattern.ts): one that compiles only without `u` is respelled when the
 * meaning stays (SF163), and one that cannot be read that way is not checked anywhere (SF162,
 * SF163). The edits come back to the caller, which applies them to the document the model reads.
 */
import { readPattern } from "../pattern.js";
import { asObject, isObject, type Json } from "../refs.js";
import { ONE_SCHEMA, SCHEMA_LIST, SCHEMA_MAP, walkDocument } from "../walk.js";
import type { CheckContext, Path } from "./context.js";

// biome-ignore format: a word list, kept dense
const OTHER = [
  "$ref", "$id", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "$vocabulary", "type", "enum",
  "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
  "required", "dependentRequired", "dependencies", "format", "contentEncoding", "contentMediaType", "title",
  "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "example", "discriminator", "xml",
  "externalDocs", "nullable",
];
const KNOWN = new Set([...ONE_SCHEMA, ...SCHEMA_LIST, ...SCHEMA_MAP, ...OTHER]);

/**
 * A change the pattern reading makes to the document: at `path` (a `pattern` key, or a
 * `patternProperties` entry), the `u` spelling, or nothing (not checked).
 */
export type PatternEdit =
  | { path: Path; kind: "pattern"; value: string | undefined }
  | { path: Path; kind: "patternName"; value: string | undefined };

export function checkSchemaKeywords(context: CheckContext): PatternEdit[] {
  const edits: PatternEdit[] = [];
  walkDocument(context.doc, { schema: (node, at) => checkSchema(node, at, context, edits) });
  return edits;
}

/** One schema node's own keys; the walk visits its subschemas. */
function checkSchema(schema: Json, at: Path, context: CheckContext, edits: PatternEdit[]): void {
  const severity = context.strict ? "error" : "warning";
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-")) continue;
    if (!KNOWN.has(key)) {
      const hint =
        value === null
          ? " (a key without a value: was a YAML flow mapping `{ … }` split at a comma? Quote the text)"
          : "";
      context.report(
        "SF161",
        [...at, key],
        `"${key}" is not a schema keyword${hint}; ${context.strict ? "remove or correct it" : "it is ignored"}`,
        severity,
      );
      continue;
    }
    if (key === "pattern" && typeof value === "string") {
      const read = readAs(value, [...at, key], "pattern", context);
      if (read !== value) edits.push({ path: [...at, key], kind: "pattern", value: read });
    }
    if (key === "patternProperties" && isObject(value)) {
      for (const name of Object.keys(value)) {
        const read = readAs(name, [...at, key, name], "patternProperties name", context);
        if (read !== name) edits.push({ path: [...at, key, name], kind: "patternName", value: read });
      }
    }
  }
}

const NOT_UNICODE =
  "is a syntax error with the u flag, which JSON Schema, the mock and the tool steps read patterns with";

/** The pattern as every part reads it (undefined: not checked), each change reported. */
function readAs(pattern: string, at: Path, what: string, context: CheckContext): string | undefined {
  const reading = readPattern(pattern);
  const shown = JSON.stringify(pattern).slice(0, 80);
  const unchecked = what === "pattern" ? "it is not checked" : "the entry is left out";
  switch (reading.kind) {
    case "valid":
      return pattern;
    case "invalid":
      context.report(
        "SF162",
        at,
        `${what} ${shown} is not a valid JavaScript regular expression; ${context.strict ? "fix it" : unchecked}`,
        context.strict ? "error" : "warning",
      );
      return undefined;
    case "respelled": {
      const problem = `${what} ${shown} ${NOT_UNICODE}`;
      context.repair(
        "SF163",
        at,
        problem,
        `write it as ${JSON.stringify(reading.pattern)}, which means the same`,
        `read it as ${JSON.stringify(reading.pattern)}, which means the same`,
      );
      return reading.pattern;
    }
    case "legacy": {
      const problem = `${what} ${shown} ${NOT_UNICODE}`;
      context.repair("SF163", at, problem, "rewrite it for the u flag", unchecked);
      return undefined;
    }
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
      if (typeof value === "string" && !value.includes("/") && Object.hasOwn(schemas, value))
        found.push({
          path: [...at, "discriminator", "mapping", key],
          ref: `#/components/schemas/${value.replace(/~/g, "~0")}`,
        });
    }
    for (const [key, child] of Object.entries(node))
      if (key !== "example" && key !== "examples") walk(child, [...at, key]);
  };
  walk(doc, []);
  return found;
}
