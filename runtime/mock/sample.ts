/**
 * Sample values from schemas: what the behavioural mock answers where a typed response has no
 * example. `sampleFromSchema` returns a value valid against a JSON Schema 2020-12 / OpenAPI
 * 3.0–3.1 schema, derived only from the schema and a seed, so the same seed gives the same bytes.
 *
 * Why not json-schema-faker or openapi-sampler: the first keeps its options (and its random source)
 * in one global, which two mocks in one process would share, and it does not promise validity for
 * `allOf`/`oneOf`; the second returns placeholders (`"string"`, `0`) that ignore lengths, ranges and
 * patterns. Strings for `pattern` come from randexp, driven by the seeded source.
 *
 * How it stays valid: `allOf` members (and `$ref` siblings) are merged into one set of keywords
 * before anything is generated; `oneOf`/`anyOf` pick a branch, merge it with the rest, and a
 * `oneOf` sample is kept only if no other branch accepts it; `not`, enum members and schema
 * examples are checked with `conforms` (a small checker of the same keywords). Each value draws
 * from a random source seeded by the seed and its own JSON path, so adding a property elsewhere does
 * not change the values of the others.
 */
import RandExpModule from "randexp";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { draft2020Node, typesOf } from "./dialect.js";
import { prng as randomSource } from "./faults.js";
import { canonicalJson, jsonEqual, setOwn } from "../internal/values.js";

// randexp is CommonJS whose module.exports is the class itself.
const RandExp = ((RandExpModule as unknown as { default?: unknown }).default ??
  RandExpModule) as typeof import("randexp").default;

export interface SampleOptions {
  /** Same seed, same value (default 1). */
  seed?: number | string;
  /** The schema a `$ref` points at (see `pointerResolver`); a `$ref` without it is an error. */
  resolve?: (ref: string) => unknown;
  /**
   * Objects and arrays nested deeper than this hold only what the schema requires (required
   * properties, `minItems` items), as does a schema re-entered through its own `$ref` (default 5).
   */
  maxDepth?: number;
}

/** A resolver of local `$ref`s (`#/components/schemas/Card`) against one document. */
export function pointerResolver(document: unknown): (ref: string) => unknown {
  return (ref) => {
    if (!ref.startsWith("#"))
      throw new Error(`sampleFromSchema: cannot resolve "${ref}": only local references (#/...) are supported`);
    let node: unknown = document;
    for (const raw of ref
      .slice(1)
      .split("/")
      .filter((part, i) => i > 0 || part !== "")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, key)) {
        throw new Error(`sampleFromSchema: "${ref}" points at nothing in the document`);
      }
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };
}

export function sampleFromSchema(schema: unknown, options: SampleOptions = {}): unknown {
  return new Sampler(options).value(schema, "#", 0, []);
}

/** A schema's own keywords with `$ref`s followed and `allOf` merged; `closedKeys` when a member is closed. */
export type MergedKeywords = Record<string, unknown> & { closedKeys?: Set<string> | undefined };

/**
 * The sampler's checker, for values it did not make (examples): `conforms` (JSON Schema 2020-12
 * and OpenAPI 3.0 spellings, no code generation, so a thousand schemas cost milliseconds, not
 * Ajv's seconds) and `keywords`, a schema's top level merged as the sampler reads it.
 */
export function schemaChecker(options: Pick<SampleOptions, "resolve"> = {}): {
  conforms(schema: unknown, value: unknown): boolean;
  keywords(schema: unknown): MergedKeywords;
} {
  const sampler = new Sampler(options);
  return {
    conforms: (schema, value) => sampler.conforms(schema, value),
    keywords: (schema) => sampler.keywords(schema),
  };
}

type SchemaObject = Record<string, unknown>;
type Rand = () => number;

interface Choice {
  kind: "oneOf" | "anyOf";
  options: unknown[];
  discriminator?: { propertyName?: unknown; mapping?: unknown };
}

/** One schema with its `$ref`s followed and its `allOf` members merged. */
interface Merged {
  s: SchemaObject;
  choices: Choice[];
  nots: unknown[];
  patterns: string[];
  /** Property names every closed member (`additionalProperties: false`) declares. */
  closedKeys?: Set<string>;
  refs: string[];
  /** A `$ref` already being sampled further up was entered again. */
  cyclic: boolean;
  /** Sample only what is required here (a `oneOf` branch whose full sample another branch accepts). */
  minimal?: boolean;
}

/**
 * Work bounds, counted in values generated (kept or not). Past the first, a sample holds only what
 * its schemas require; past the second, no alternative is tried again (branches, retries), so a
 * hostile or huge spec costs bounded time.
 */
const VALUE_BUDGET = 4_000;
const RETRY_BUDGET = 40_000;
/** Past maxDepth by this much a sample gives up on a schema whose requirements never end. */
const DEPTH_MARGIN = 48;
const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliet",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
];
const BASE_TIME = Date.UTC(2024, 0, 15, 9, 30, 0);

const isObject = (v: unknown): v is SchemaObject => v !== null && typeof v === "object" && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const intBetween = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function patternOf(p: string): RegExp | undefined {
  try {
    return new RegExp(p, "u");
  } catch {
    return undefined;
  }
}

function formatOk(format: string, v: unknown): boolean {
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

const codePoints = (s: string): number => [...s].length;

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

function mergeMax(a: unknown, b: unknown): unknown {
  return typeof a === "number" && typeof b === "number" ? Math.max(a, b) : (a ?? b);
}
function mergeMin(a: unknown, b: unknown): unknown {
  return typeof a === "number" && typeof b === "number" ? Math.min(a, b) : (a ?? b);
}
function both(a: unknown, b: unknown): unknown {
  if (a === false || b === false) return false;
  if (a === undefined || a === true) return b;
  if (b === undefined || b === true) return a;
  return { allOf: [a, b] };
}
function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Adds one keyword of an `allOf` member to the merged keywords. */
function mergeKeyword(s: SchemaObject, key: string, value: unknown): void {
  if (!own(s, key)) {
    s[key] = isObject(value) ? { ...value } : Array.isArray(value) ? [...(value as unknown[])] : value;
    return;
  }
  const old = s[key];
  switch (key) {
    case "type": {
      const a = typeof old === "string" ? [old] : (old as string[]);
      const b = typeof value === "string" ? [value] : Array.isArray(value) ? (value as string[]) : a;
      const out = a.flatMap((t) =>
        b.includes(t)
          ? [t]
          : t === "number" && b.includes("integer")
            ? ["integer"]
            : t === "integer" && b.includes("number")
              ? ["integer"]
              : [],
      );
      s.type = [...new Set(out)];
      return;
    }
    case "properties":
    case "patternProperties":
    case "dependentSchemas": {
      const merged: SchemaObject = { ...(old as SchemaObject) };
      for (const [k, v] of Object.entries(isObject(value) ? value : {}))
        setOwn(merged, k, own(merged, k) ? both(merged[k], v) : v);
      s[key] = merged;
      return;
    }
    case "required":
      s.required = [...new Set([...(old as unknown[]), ...(Array.isArray(value) ? value : [])])];
      return;
    case "dependentRequired": {
      const merged: Record<string, unknown[]> = { ...(old as Record<string, unknown[]>) };
      for (const [k, v] of Object.entries(isObject(value) ? value : {}))
        merged[k] = [...(merged[k] ?? []), ...(Array.isArray(v) ? v : [])];
      s.dependentRequired = merged;
      return;
    }
    case "minLength":
    case "minItems":
    case "minProperties":
    case "minimum":
    case "exclusiveMinimum":
    case "minContains":
      s[key] = mergeMax(old, value);
      return;
    case "maxLength":
    case "maxItems":
    case "maxProperties":
    case "maximum":
    case "exclusiveMaximum":
    case "maxContains":
      s[key] = mergeMin(old, value);
      return;
    case "multipleOf":
      if (typeof old === "number" && typeof value === "number") {
        if (Number.isInteger(old) && Number.isInteger(value)) s.multipleOf = (old / gcd(old, value)) * value;
        else if (Number.isInteger(value / old)) s.multipleOf = value;
      }
      return;
    case "enum": {
      const b = Array.isArray(value) ? value : [];
      s.enum = (old as unknown[]).filter((x) => b.some((y) => jsonEqual(x, y)));
      return;
    }
    case "uniqueItems":
      s.uniqueItems = old === true || value === true;
      return;
    case "items":
    case "additionalProperties":
    case "contains":
    case "propertyNames":
    case "unevaluatedProperties":
    case "unevaluatedItems":
      s[key] = both(old, value);
      return;
    case "prefixItems": {
      const a = old as unknown[];
      const b = Array.isArray(value) ? value : [];
      s.prefixItems = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => both(a[i], b[i]));
      return;
    }
    default:
      // annotations and keywords without a merge rule: the first member's wins
      return;
  }
}

class Sampler {
  private readonly seed: string;
  private readonly maxDepth: number;
  private readonly resolveRef: (ref: string) => unknown;
  private values = 0;
  /**
   * Values returned although they miss their schema (a oneOf no branch satisfies alone, a required
   * cycle). A parent that can do without the value (an optional property, an item above minItems,
   * another branch) drops it and takes the failure back.
   */
  private failures = 0;

  constructor(options: SampleOptions) {
    this.seed = String(options.seed ?? 1);
    this.maxDepth = options.maxDepth ?? 5;
    const resolve = options.resolve;
    this.resolveRef = (ref) => {
      if (!resolve)
        throw new Error(
          `sampleFromSchema: the schema has "$ref": "${ref}"; pass options.resolve (for example pointerResolver(spec))`,
        );
      return resolve(ref);
    };
  }

  private rand(path: string): Rand {
    return randomSource(hashOf(`${this.seed}\u0000${path}`));
  }

  // ---- merging -----------------------------------------------------------------------------

  private merged(schema: unknown, stack: readonly string[]): Merged {
    const m: Merged = { s: {}, choices: [], nots: [], patterns: [], refs: [], cyclic: false };
    this.mergeInto(m, schema, stack, new Set());
    return m;
  }

  private mergeInto(m: Merged, schema: unknown, stack: readonly string[], entered: Set<string>): void {
    if (schema === false) {
      m.s.not = {};
      return;
    }
    if (!isObject(schema)) return;
    if (typeof schema.$ref === "string") {
      const ref = schema.$ref;
      if (stack.includes(ref)) m.cyclic = true;
      if (!entered.has(ref)) {
        entered.add(ref);
        m.refs.push(ref);
        this.mergeInto(m, this.resolveRef(ref), stack, entered);
      }
      const { $ref: _ref, ...siblings } = schema;
      this.mergeInto(m, siblings, stack, entered);
      return;
    }
    const s = draft2020Node(schema);
    for (const [key, value] of Object.entries(s)) {
      if (key === "allOf" && Array.isArray(value))
        for (const member of value) this.mergeInto(m, member, stack, entered);
      else if ((key === "oneOf" || key === "anyOf") && Array.isArray(value) && value.length > 0) {
        m.choices.push({
          kind: key,
          options: value,
          discriminator: isObject(s.discriminator) ? s.discriminator : undefined,
        });
      } else if (key === "not") m.nots.push(value);
      else if (key === "pattern" && typeof value === "string") {
        if (patternOf(value)) m.patterns.push(value);
      } else if (key !== "discriminator") mergeKeyword(m.s, key, value);
    }
    if (s.additionalProperties === false) {
      const declared = new Set(Object.keys(isObject(s.properties) ? s.properties : {}));
      m.closedKeys = m.closedKeys ? new Set([...m.closedKeys].filter((k) => declared.has(k))) : declared;
    }
  }

  /** A schema's merged top level (see schemaChecker). */
  keywords(schema: unknown): MergedKeywords {
    const m = this.merged(schema, []);
    const choices = Object.fromEntries(m.choices.map((c) => [c.kind, c.options]));
    return { ...m.s, ...choices, ...(m.patterns.length ? { pattern: m.patterns[0] } : {}), closedKeys: m.closedKeys };
  }

  /** The merged keywords as one schema again (for `conforms`). */
  private asSchema(m: Merged): SchemaObject {
    const parts: unknown[] = [m.s, ...m.patterns.map((pattern) => ({ pattern })), ...m.nots.map((not) => ({ not }))];
    for (const c of m.choices) parts.push({ [c.kind]: c.options });
    if (m.closedKeys) parts.push({ propertyNames: { enum: [...m.closedKeys] } });
    return { allOf: parts };
  }

  // ---- checking ----------------------------------------------------------------------------

  /** Whether `v` satisfies `schema` (the keywords the sampler generates for; annotations pass). */
  conforms(schema: unknown, v: unknown, depth = 0): boolean {
    if (depth > 64 || schema === true || schema === undefined) return true;
    if (schema === false) return false;
    if (!isObject(schema)) return true;
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

  // ---- generating --------------------------------------------------------------------------

  value(schema: unknown, path: string, depth: number, stack: readonly string[]): unknown {
    if (depth > this.maxDepth + DEPTH_MARGIN) {
      this.failures++;
      return null;
    }
    this.values++;
    return this.fromMerged(this.merged(schema, stack), path, depth, stack);
  }

  private fromMerged(m: Merged, path: string, depth: number, stack: readonly string[]): unknown {
    const inner = [...stack, ...m.refs];
    if (m.choices.length > 0) return this.fromChoice(m, path, depth, stack);
    const minimal = m.minimal === true || m.cyclic || depth >= this.maxDepth || this.values > VALUE_BUDGET;
    const whole = (): SchemaObject => this.asSchema(m);
    const fits = (v: unknown): boolean => this.conforms(whole(), v);
    const rand = this.rand(path);
    const s = m.s;
    if (own(s, "const")) return clone(s.const);
    // allOf members that disagree on the type or the allowed values leave nothing to pick
    const contradicted =
      (Array.isArray(s.type) && s.type.length === 0) ||
      (Array.isArray(s.enum) && s.enum.length === 0) ||
      (isObject(s.not) && Object.keys(s.not).length === 0);
    if (contradicted) {
      this.failures++;
      return null;
    }
    if (Array.isArray(s.enum)) {
      const fitting = s.enum.filter((x) => fits(x));
      if (fitting.length === 0) this.failures++;
      const list = fitting.length > 0 ? fitting : s.enum;
      const nonNull = list.filter((x) => x !== null);
      return clone(pick(rand, nonNull.length > 0 && !minimal ? nonNull : list));
    }
    for (const example of [s.example, Array.isArray(s.examples) ? s.examples[0] : undefined, s.default]) {
      if (example !== undefined && example !== null && typeof example !== "object" && fits(example)) return example;
    }
    const candidates = this.typeCandidates(s, m, minimal);
    let first: unknown;
    const before = this.failures;
    for (let attempt = 0; attempt < candidates.length * 3; attempt++) {
      const type = candidates[attempt % candidates.length]!;
      const at = attempt < candidates.length ? path : `${path}~${attempt}`;
      const v = this.ofType(type, m, at, depth, inner, minimal);
      if (attempt === 0) first = v;
      const failed = this.failures > before;
      this.failures = before;
      // A part that failed fails again on another try; only what merging cannot express (not,
      // several patterns, closed allOf members) is worth another try with other values.
      if (failed || this.values > RETRY_BUDGET) break;
      if ((m.nots.length === 0 && m.patterns.length <= 1 && !m.closedKeys) || fits(v)) return v;
    }
    this.failures++;
    return first;
  }

  private typeCandidates(s: SchemaObject, m: Merged, minimal: boolean): string[] {
    const declared = typesOf(s);
    if (declared) {
      const nonNull = declared.filter((t) => t !== "null");
      if (nonNull.length === 0) return ["null"];
      return minimal && declared.includes("null") ? ["null", ...nonNull] : nonNull;
    }
    const has = (...keys: string[]): boolean => keys.some((k) => own(s, k));
    if (
      has(
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "dependentRequired",
      )
    )
      return ["object"];
    if (has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")) return ["array"];
    if (has("minLength", "maxLength") || m.patterns.length > 0) return ["string"];
    if (typeof s.format === "string")
      return ["int32", "int64"].includes(s.format)
        ? ["integer"]
        : ["float", "double"].includes(s.format)
          ? ["number"]
          : ["string"];
    if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return ["number"];
    return ["string", "integer", "boolean", "object", "array", "null"];
  }

  private ofType(
    type: string,
    m: Merged,
    path: string,
    depth: number,
    stack: readonly string[],
    minimal: boolean,
  ): unknown {
    const rand = this.rand(path);
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return rand() < 0.5;
      case "integer":
        return this.number(m.s, rand, true);
      case "number":
        return this.number(m.s, rand, false);
      case "string":
        return this.string(m, rand);
      case "array":
        return this.array(m, path, depth, stack, minimal);
      case "object":
        return this.object(m, path, depth, stack, minimal);
      default:
        return this.string(m, rand);
    }
  }

  private fromChoice(m: Merged, path: string, depth: number, stack: readonly string[]): unknown {
    const [choice, ...rest] = m.choices as [Choice, ...Choice[]];
    const rand = this.rand(`${path}|choice${rest.length}`);
    const start = Math.floor(rand() * choice.options.length);
    let fallback: unknown;
    let tried = false;
    const before = this.failures;
    // Every branch once in full, then (for a oneOf that several branches accept) once with only what it requires.
    for (let i = 0; i < choice.options.length * (choice.kind === "oneOf" ? 2 : 1); i++) {
      const index = (start + i) % choice.options.length;
      const option = choice.options[index];
      const next: Merged = {
        ...m,
        s: { ...m.s },
        choices: [...rest],
        nots: [...m.nots],
        patterns: [...m.patterns],
        refs: [...m.refs],
      };
      if (i >= choice.options.length) next.minimal = true;
      if (m.closedKeys) next.closedKeys = new Set(m.closedKeys);
      this.mergeInto(next, option, stack, new Set(m.refs));
      this.pinDiscriminator(next, choice, option);
      const v = this.fromMerged(next, path, depth, stack);
      if (!tried) {
        fallback = v;
        tried = true;
      }
      const failed = this.failures > before;
      this.failures = before;
      if (this.values > RETRY_BUDGET) break;
      if (failed) continue;
      const others = choice.kind === "oneOf" && choice.options.some((o, j) => j !== index && this.conforms(o, v));
      if (!others && this.conforms(this.asSchema({ ...m, choices: [] }), v)) return v;
    }
    this.failures++;
    return fallback;
  }

  /** OpenAPI `discriminator`: the property names the branch taken (mapping key or schema name). */
  private pinDiscriminator(m: Merged, choice: Choice, option: unknown): void {
    const name = choice.discriminator?.propertyName;
    if (typeof name !== "string" || !isObject(option) || typeof option.$ref !== "string") return;
    const ref = option.$ref;
    const mapping = isObject(choice.discriminator?.mapping) ? choice.discriminator.mapping : {};
    const key = Object.entries(mapping).find(([, target]) => target === ref)?.[0] ?? ref.split("/").at(-1)!;
    const props = isObject(m.s.properties) ? m.s.properties : {};
    if (!this.conforms(props[name], key)) return;
    mergeKeyword(m.s, "properties", { [name]: { const: key } });
    mergeKeyword(m.s, "required", [name]);
  }

  private number(s: SchemaObject, rand: Rand, wholeType: boolean): number {
    // int32/int64 on a number (ajv-formats checks them) want whole numbers too
    const integer = wholeType || s.format === "int32" || s.format === "int64";
    let lo = typeof s.minimum === "number" ? s.minimum : -Infinity;
    let hi = typeof s.maximum === "number" ? s.maximum : Infinity;
    const exLo = typeof s.exclusiveMinimum === "number" && s.exclusiveMinimum >= lo;
    const exHi = typeof s.exclusiveMaximum === "number" && s.exclusiveMaximum <= hi;
    if (exLo) lo = s.exclusiveMinimum as number;
    if (exHi) hi = s.exclusiveMaximum as number;
    // Unbounded sides stay near the bounded one, in a range a person reads easily.
    if (lo === -Infinity && hi === Infinity) [lo, hi] = [1, 1000];
    else if (lo === -Infinity) lo = hi - 1000;
    else if (hi === Infinity) hi = lo + 1000;
    if (s.format === "int32") [lo, hi] = [Math.max(lo, -(2 ** 31)), Math.min(hi, 2 ** 31 - 1)];
    if (integer || s.format === "int64")
      [lo, hi] = [Math.max(lo, Number.MIN_SAFE_INTEGER), Math.min(hi, Number.MAX_SAFE_INTEGER)];
    const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : undefined;
    if (step !== undefined) {
      let kLo = Math.ceil(lo / step);
      let kHi = Math.floor(hi / step);
      if (exLo && kLo * step <= lo) kLo++;
      if (exHi && kHi * step >= hi) kHi--;
      if (integer && !Number.isInteger(step)) {
        // an integer multiple of a fraction: walk to the first whole one
        for (let k = kLo; k <= Math.min(kHi, kLo + 1000); k++) if (Number.isInteger(k * step)) return k * step;
      }
      if (kLo > kHi) return kLo * step;
      const k = intBetween(rand, kLo, Math.min(kHi, kLo + 1000));
      // ajv's multipleOf test is v / step === integer; floating point can spoil k * step.
      for (const v of [Number((k * step).toPrecision(12)), k * step, kLo * step])
        if (v / step === Math.trunc(v / step)) return v;
      return step;
    }
    const raw = lo + rand() * (hi - lo);
    let v = Math.round(raw * 100) / 100;
    if (v < lo || v > hi || (exLo && v <= lo) || (exHi && v >= hi)) v = (lo + hi) / 2;
    return v;
  }

  private string(m: Merged, rand: Rand): string {
    const s = m.s;
    const min = typeof s.minLength === "number" ? s.minLength : 0;
    const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
    const patterns = m.patterns.map((p) => patternOf(p)!);
    const fits = (v: string): boolean => {
      const n = codePoints(v);
      return (
        n >= min &&
        n <= max &&
        patterns.every((re) => re.test(v)) &&
        (typeof s.format !== "string" || formatOk(s.format, v))
      );
    };
    let last = "";
    for (let attempt = 0; attempt < 12; attempt++) {
      const formatted = typeof s.format === "string" ? formatted_(s.format, rand) : undefined;
      if (formatted !== undefined) {
        if (fits(formatted)) return formatted;
        last = formatted;
      }
      if (m.patterns.length > 0) {
        const v = fromPattern(m.patterns[attempt % m.patterns.length]!, rand, min, max);
        if (v !== undefined && fits(v)) return v;
        if (v !== undefined) last = v;
        continue;
      }
      if (formatted === undefined) return words(rand, min, max);
    }
    this.failures++;
    return last;
  }

  private array(m: Merged, path: string, depth: number, stack: readonly string[], minimal: boolean): unknown[] {
    const s = m.s;
    const rand = this.rand(`${path}|length`);
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    let max = typeof s.maxItems === "number" ? s.maxItems : Infinity;
    if (s.items === false) max = Math.min(max, prefix.length);
    const wanted = minimal ? min : Math.max(min, Math.min(max, intBetween(rand, 1, 2)));
    const count = Math.max(0, Math.min(wanted, max));
    const out: unknown[] = [];
    const seen = new Set<string>();
    const contains = s.contains;
    const minContains = contains === undefined ? 0 : typeof s.minContains === "number" ? s.minContains : 1;
    for (let i = 0; i < count; i++) {
      const item = i < prefix.length ? prefix[i] : s.items;
      const schema = i < minContains && i >= prefix.length ? both(item, contains) : item;
      const before = this.failures;
      let v = this.value(schema, `${path}/${i}`, depth + 1, stack);
      for (let retry = 1; s.uniqueItems === true && seen.has(canonicalJson(v)) && retry < 8; retry++) {
        v = this.value(schema, `${path}/${i}~${retry}`, depth + 1, stack);
      }
      if (s.uniqueItems === true && seen.has(canonicalJson(v))) this.failures++;
      if (this.failures > before && out.length >= min) {
        this.failures = before;
        break;
      }
      seen.add(canonicalJson(v));
      out.push(v);
    }
    return out;
  }

  private object(
    m: Merged,
    path: string,
    depth: number,
    stack: readonly string[],
    minimal: boolean,
  ): Record<string, unknown> {
    const s = m.s;
    const props = isObject(s.properties) ? s.properties : {};
    const required = new Set(
      (Array.isArray(s.required) ? s.required : []).filter((k): k is string => typeof k === "string"),
    );
    const allowed = (k: string): boolean => !m.closedKeys || m.closedKeys.has(k) || required.has(k);
    const maxProps = typeof s.maxProperties === "number" ? s.maxProperties : Infinity;
    const minProps = typeof s.minProperties === "number" ? s.minProperties : 0;
    const keys: string[] = [...required];
    const optional = Object.keys(props).filter(
      (k) => !required.has(k) && allowed(k) && !(isObject(props[k]) && (props[k] as SchemaObject).writeOnly === true),
    );
    for (const k of optional) {
      if (keys.length >= maxProps || (minimal && keys.length >= minProps)) break;
      keys.push(k);
    }
    const patternProps = Object.entries(isObject(s.patternProperties) ? s.patternProperties : {}).filter(([p]) =>
      patternOf(p),
    );
    const extraSchema = s.additionalProperties;
    const open = extraSchema !== false && !m.closedKeys;
    // Maps (no declared properties) get one entry, named from propertyNames or a pattern when given.
    const mapLike =
      Object.keys(props).length === 0 && (isObject(extraSchema) || extraSchema === true || patternProps.length > 0);
    const extrasWanted =
      Math.min(maxProps, Math.max(minProps, mapLike && !minimal ? keys.length + 1 : 0)) - keys.length;
    for (let i = 0; i < extrasWanted; i++) {
      const key = this.extraKey(s, patternProps, open, `${path}|key${i}`, new Set(keys));
      if (key === undefined) break;
      keys.push(key);
    }
    const chosen = new Set(keys);
    const ordered = [...Object.keys(props).filter((k) => chosen.has(k)), ...keys.filter((k) => !own(props, k))];
    const out: Record<string, unknown> = {};
    for (const k of ordered) {
      const matching = patternProps.filter(([p]) => patternOf(p)!.test(k)).map(([, sub]) => sub);
      const declared = own(props, k) ? props[k] : undefined;
      const base = declared !== undefined ? declared : matching.length > 0 ? true : extraSchema;
      const schema = matching.reduce<unknown>((acc, sub) => both(acc, sub), base === undefined ? true : base);
      const before = this.failures;
      const v = this.value(schema, `${path}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth + 1, stack);
      if (
        this.failures > before &&
        !required.has(k) &&
        Object.keys(out).length + (ordered.length - ordered.indexOf(k) - 1) >= minProps
      ) {
        this.failures = before;
        continue;
      }
      setOwn(out, k, v);
    }
    if (isObject(s.dependentRequired)) {
      for (const [k, needs] of Object.entries(s.dependentRequired)) {
        if (!own(out, k) || !Array.isArray(needs)) continue;
        for (const n of needs) {
          if (typeof n === "string" && !own(out, n))
            setOwn(
              out,
              n,
              this.value(own(props, n) ? props[n] : (extraSchema ?? true), `${path}/${n}`, depth + 1, stack),
            );
        }
      }
    }
    return out;
  }

  /** A property name that is not yet used and that `propertyNames`, and a pattern when closed, allow. */
  private extraKey(
    s: SchemaObject,
    patternProps: Array<[string, unknown]>,
    open: boolean,
    path: string,
    used: Set<string>,
  ): string | undefined {
    const rand = this.rand(path);
    for (let attempt = 0; attempt < 10; attempt++) {
      let key: string | undefined;
      if (s.propertyNames !== undefined && isObject(s.propertyNames)) {
        const v = this.value(s.propertyNames, `${path}~${attempt}`, this.maxDepth, []);
        key = typeof v === "string" ? v : undefined;
      } else if (!open || (patternProps.length > 0 && attempt % 2 === 0)) {
        const p = patternProps[attempt % Math.max(1, patternProps.length)];
        key = p ? fromPattern(p[0], rand, 1, 40) : undefined;
      } else key = `${pick(rand, WORDS)}${attempt === 0 ? "" : attempt}`;
      if (key === undefined || used.has(key)) continue;
      if (s.propertyNames !== undefined && !this.conforms(s.propertyNames, key)) continue;
      if (!open && !patternProps.some(([p]) => patternOf(p)!.test(key))) continue;
      return key;
    }
    return undefined;
  }
}

/** Words joined by dashes, cut to a length between min and max. */
function words(rand: Rand, min: number, max: number): string {
  const target =
    max === Infinity ? Math.max(min, 0) : Math.min(max, Math.max(min, intBetween(rand, min, Math.min(max, min + 12))));
  let out = pick(rand, WORDS);
  while (out.length < target) out += `-${pick(rand, WORDS)}`;
  if (max !== Infinity || min > 0) out = out.slice(0, Math.max(target, min));
  if (max !== Infinity) out = out.slice(0, max);
  return out.endsWith("-") ? `${out.slice(0, -1)}a` : out;
}

/** A string matching `pattern`, from randexp with the seeded source; undefined if it cannot parse it. */
function fromPattern(pattern: string, rand: Rand, min: number, max: number): string | undefined {
  try {
    const r = new RandExp(pattern);
    r.max = Math.max(4, Math.min(max === Infinity ? 12 : max, min + 4));
    r.randInt = (a: number, b: number) => intBetween(rand, a, b);
    // printable ASCII without the characters that need escaping in most places
    r.defaultRange.subtract(0, 47).subtract(58, 64).subtract(91, 96).subtract(123, 0x10ffff);
    return r.gen();
  } catch {
    return undefined;
  }
}

const hex = (rand: Rand, n: number): string =>
  Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");

/** A value of a string format, or undefined for a format this module does not know. */
function formatted_(format: string, rand: Rand): string | undefined {
  const time = new Date(BASE_TIME + Math.floor(rand() * 400) * 86_400_000 + Math.floor(rand() * 86_400) * 1000);
  const iso = time.toISOString().replace(/\.\d{3}Z$/, "Z");
  const word = pick(rand, WORDS);
  const n = intBetween(rand, 1, 999);
  switch (format) {
    case "date-time":
    case "iso-date-time":
      return iso;
    case "date":
      return iso.slice(0, 10);
    case "time":
    case "iso-time":
      return iso.slice(11);
    case "duration":
      return `P${intBetween(rand, 1, 30)}D`;
    case "email":
    case "idn-email":
      return `${word}${n}@example.com`;
    case "uri":
    case "url":
    case "iri":
      return `https://example.com/${word}/${n}`;
    case "uri-reference":
    case "iri-reference":
      return `/${word}/${n}`;
    case "uri-template":
      return `https://example.com/${word}/{id}`;
    case "hostname":
    case "idn-hostname":
      return `${word}.example.com`;
    case "ipv4":
      return `192.0.2.${intBetween(rand, 1, 254)}`;
    case "ipv6":
      return `2001:db8::${intBetween(rand, 1, 0xfffe).toString(16)}`;
    case "uuid": {
      const h = hex(rand, 32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[Math.floor(rand() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    }
    case "byte":
      return Buffer.from(`${word}-${n}`).toString("base64");
    case "json-pointer":
      return `/${word}/${n}`;
    case "relative-json-pointer":
      return `0/${word}`;
    case "regex":
      return `^${word}$`;
    case "int32":
    case "int64":
      return String(n);
    default:
      return undefined;
  }
}
