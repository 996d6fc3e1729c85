/**
 * Whether a value satisfies a schema: the keywords the sampler generates for (JSON Schema 2020-12
 * and OpenAPI 3.0 spellings; annotations pass), without code generation, so a thousand schemas cost
 * milliseconds rather than Ajv's seconds. The sampler keeps a sample only when this accepts it, and
 * the check stage tests the spec's examples with it; it is its own module because it generates
 * nothing.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { type SchemaNode, SchemaNodes } from "../spec/schema-node.js";
import { draft2020Node, typesOf } from "./dialect.js";
import { canonicalJson, jsonEqual } from "../internal/values.js";
import {
  isObject,
  KeywordMerger,
  type MergedKeywords,
  own,
  patternOf,
  refResolver,
  type SchemaObject,
} from "./schema-merge.js";

/** Whether `v` passes ajv-formats' check of `format` (an unknown format passes). */
export function formatOk(format: string, v: unknown): boolean {
  const f = (fullFormats as Record<string, unknown>)[format];
  if (f === undefined) return true;
  if (f instanceof RegExp) return typeof v !== "string" || f.test(v);
  if (typeof f === "function") return typeof v !== "string" || Boolean((f as (x: string) => boolean)(v));
  if (isObject(f) && typeof f.validate === "function") {
    const kind = f.type ?? "string";
    if ((kind === "number" && typeof v !== "number") || (kind === "string" && typeof v !== "string")) return true;
    return Boolean((f.validate as (x: unknown) => boolean)(v));
  }
  if (isObject(f) && f.validate instanceof RegExp) return typeof v !== "string" || f.validate.test(v);
  return true;
}

/** A string's length as JSON Schema counts it (code points, not UTF-16 units). */
export const codePoints = (s: string): number => [...s].length;

function isType(v: unknown, t: string): boolean {
  switch (t) {
    case "null":
      return v === null;
    case "boolean":
      return typeof v === "boolean";
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "array":
      return Array.isArray(v);
    case "object":
      return isObject(v);
    default:
      return true;
  }
}

/** Checks values against schemas of one document (its `$ref`s resolved by `resolveRef`). */
export class SchemaConformance {
  /** Whether a schema admits null is its schema node's answer (the tool steps read the same node). */
  private readonly nodes: SchemaNodes;

  constructor(private readonly resolveRef: (ref: string) => unknown) {
    this.nodes = new SchemaNodes((ref) => {
      try {
        return resolveRef(ref);
      } catch {
        return undefined; // the walk below reports a reference it cannot follow
      }
    });
  }

  /** The schema node of `schema` (whether it admits null is the node's answer, here and in the sampler). */
  node(schema: unknown): SchemaNode {
    return this.nodes.node(schema);
  }

  /** Whether `v` satisfies `schema` (the keywords the sampler generates for; annotations pass). */
  conforms(schema: unknown, v: unknown, depth = 0): boolean {
    if (depth > 64 || schema === true || schema === undefined) return true;
    if (schema === false) return false;
    if (!isObject(schema)) return true;
    // 3.0's `nullable` beside a `$ref` or an `allOf` admits null, which the keywords alone do not say.
    if (v === null && this.node(schema).nullable) return true;
    const s = draft2020Node(schema);
    const deeper = (sub: unknown, value: unknown): boolean => this.conforms(sub, value, depth + 1);
    if (typeof s.$ref === "string" && !deeper(this.resolveRef(s.$ref), v)) return false;
    const types = typesOf(s);
    if (types && !types.some((t) => isType(v, t))) return false;
    if (own(s, "const") && !jsonEqual(s.const, v)) return false;
    if (Array.isArray(s.enum) && !s.enum.some((x) => jsonEqual(x, v))) return false;
    if (typeof v === "string") {
      const n = codePoints(v);
      if (typeof s.minLength === "number" && n < s.minLength) return false;
      if (typeof s.maxLength === "number" && n > s.maxLength) return false;
      if (typeof s.pattern === "string" && patternOf(s.pattern) && !patternOf(s.pattern)!.test(v)) return false;
    }
    if (typeof s.format === "string" && !formatOk(s.format, v)) return false;
    if (typeof v === "number") {
      if (typeof s.minimum === "number" && v < s.minimum) return false;
      if (typeof s.maximum === "number" && v > s.maximum) return false;
      if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return false;
      if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return false;
      if (typeof s.multipleOf === "number" && s.multipleOf > 0 && v / s.multipleOf !== Math.trunc(v / s.multipleOf))
        return false;
    }
    if (Array.isArray(v) && !this.arrayConforms(s, v, deeper)) return false;
    if (isObject(v) && !this.objectConforms(s, v, deeper)) return false;
    if (Array.isArray(s.allOf) && !s.allOf.every((x) => deeper(x, v))) return false;
    if (Array.isArray(s.anyOf) && !s.anyOf.some((x) => deeper(x, v))) return false;
    if (Array.isArray(s.oneOf) && s.oneOf.filter((x) => deeper(x, v)).length !== 1) return false;
    if (s.not !== undefined && deeper(s.not, v)) return false;
    if (s.if !== undefined) {
      if (deeper(s.if, v) ? s.then !== undefined && !deeper(s.then, v) : s.else !== undefined && !deeper(s.else, v))
        return false;
    }
    return true;
  }

  private arrayConforms(s: SchemaObject, v: unknown[], deeper: (sub: unknown, value: unknown) => boolean): boolean {
    if (typeof s.minItems === "number" && v.length < s.minItems) return false;
    if (typeof s.maxItems === "number" && v.length > s.maxItems) return false;
    if (s.uniqueItems === true && new Set(v.map(canonicalJson)).size !== v.length) return false;
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    for (let i = 0; i < v.length; i++) {
      if (!deeper(i < prefix.length ? prefix[i] : s.items, v[i])) return false;
    }
    if (s.contains !== undefined) {
      const n = v.filter((x) => deeper(s.contains, x)).length;
      if (n < (typeof s.minContains === "number" ? s.minContains : 1)) return false;
      if (typeof s.maxContains === "number" && n > s.maxContains) return false;
    }
    return true;
  }

  private objectConforms(s: SchemaObject, v: SchemaObject, deeper: (sub: unknown, value: unknown) => boolean): boolean {
    const keys = Object.keys(v);
    if (Array.isArray(s.required) && !s.required.every((k) => typeof k !== "string" || own(v, k))) return false;
    if (typeof s.minProperties === "number" && keys.length < s.minProperties) return false;
    if (typeof s.maxProperties === "number" && keys.length > s.maxProperties) return false;
    const props = isObject(s.properties) ? s.properties : {};
    const patterns = Object.entries(isObject(s.patternProperties) ? s.patternProperties : {}).flatMap(([p, sub]) => {
      const re = patternOf(p);
      return re ? [[re, sub] as const] : [];
    });
    for (const k of keys) {
      let matched = false;
      if (own(props, k)) {
        matched = true;
        if (!deeper(props[k], v[k])) return false;
      }
      for (const [re, sub] of patterns) {
        if (re.test(k)) {
          matched = true;
          if (!deeper(sub, v[k])) return false;
        }
      }
      if (!matched && s.additionalProperties !== undefined && !deeper(s.additionalProperties, v[k])) return false;
      if (s.propertyNames !== undefined && !deeper(s.propertyNames, k)) return false;
    }
    if (isObject(s.dependentRequired)) {
      for (const [k, needs] of Object.entries(s.dependentRequired)) {
        if (own(v, k) && Array.isArray(needs) && !needs.every((n) => typeof n !== "string" || own(v, n))) return false;
      }
    }
    return true;
  }
}

/**
 * The sampler's checker, for values it did not make (examples): `conforms` (JSON Schema 2020-12
 * and OpenAPI 3.0 spellings, no code generation, so a thousand schemas cost milliseconds, not
 * Ajv's seconds) and `keywords`, a schema's top level merged as the sampler reads it.
 */
export function schemaChecker(options: { resolve?: (ref: string) => unknown } = {}): {
  conforms(schema: unknown, value: unknown): boolean;
  keywords(schema: unknown): MergedKeywords;
} {
  const resolveRef = refResolver(options.resolve);
  const merger = new KeywordMerger(resolveRef);
  const checker = new SchemaConformance(resolveRef);
  return {
    conforms: (schema, value) => checker.conforms(schema, value),
    keywords: (schema) => merger.keywords(schema),
  };
}
