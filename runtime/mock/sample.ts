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
 *
 * The parts: schema-merge.ts reads a schema as one set of keywords, schema-conforms.ts checks a
 * value against a schema, sample-scalars.ts draws numbers and strings; this module picks types,
 * branches, items and properties and keeps a sample only when it conforms.
 */
import { typesOf } from "./dialect.js";
import { prng as randomSource } from "./faults.js";
import { canonicalJson, setOwn } from "../internal/values.js";
import { codePoints, formatOk, SchemaConformance } from "./schema-conforms.js";
import {
  asSchema,
  both,
  type Choice,
  isObject,
  KeywordMerger,
  type Merged,
  mergeKeyword,
  own,
  patternOf,
  refResolver,
  type SchemaObject,
} from "./schema-merge.js";
import {
  formattedString,
  fromPattern,
  intBetween,
  numberFor,
  pick,
  type Rand,
  WORDS,
  words,
} from "./sample-scalars.js";

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
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) {
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

/**
 * Work bounds, counted in values generated (kept or not). Past the first, a sample holds only what
 * its schemas require; past the second, no alternative is tried again (branches, retries), so a
 * hostile or huge spec costs bounded time.
 */
const VALUE_BUDGET = 4_000;
const RETRY_BUDGET = 40_000;
/** Past maxDepth by this much a sample gives up on a schema whose requirements never end. */
const DEPTH_MARGIN = 48;

/** FNV-1a: a value's random source is seeded by the seed and its JSON path. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Generates values: one instance per sample, counting its work against the budgets above. */
class Sampler {
  private readonly seed: string;
  private readonly maxDepth: number;
  private values = 0;
  /**
   * Values returned although they miss their schema (a oneOf no branch satisfies alone, a required
   * cycle). A parent that can do without the value (an optional property, an item above minItems,
   * another branch) drops it and takes the failure back.
   */
  private failures = 0;
  private readonly merger: KeywordMerger;
  private readonly checker: SchemaConformance;

  constructor(options: SampleOptions) {
    this.seed = String(options.seed ?? 1);
    this.maxDepth = options.maxDepth ?? 5;
    const resolveRef = refResolver(options.resolve);
    this.merger = new KeywordMerger(resolveRef);
    this.checker = new SchemaConformance(resolveRef);
  }

  private rand(path: string): Rand {
    return randomSource(hashOf(`${this.seed}\u0000${path}`));
  }

  value(schema: unknown, path: string, depth: number, stack: readonly string[]): unknown {
    if (depth > this.maxDepth + DEPTH_MARGIN) {
      this.failures++;
      return null;
    }
    this.values++;
    // Whether the schema admits null is asked only of a minimal sample (its node is built then).
    const nullable = () => this.checker.node(schema).nullable;
    return this.fromMerged(this.merger.merged(schema, stack), path, depth, stack, nullable);
  }

  private fromMerged(
    m: Merged,
    path: string,
    depth: number,
    stack: readonly string[],
    nullable: () => boolean = () => false,
  ): unknown {
    const inner = [...stack, ...m.refs];
    if (m.choices.length > 0) return this.fromChoice(m, path, depth, stack);
    const minimal = m.minimal === true || m.cyclic || depth >= this.maxDepth || this.values > VALUE_BUDGET;
    const whole = (): SchemaObject => asSchema(m);
    const fits = (v: unknown): boolean => this.checker.conforms(whole(), v);
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
      const listed = fitting.length > 0 ? fitting : s.enum;
      // A minimal sample of a nullable enum may be null, however the null was spelled.
      const list = minimal && !listed.includes(null) && nullable() ? [...listed, null] : listed;
      const nonNull = list.filter((x) => x !== null);
      return clone(pick(rand, nonNull.length > 0 && !minimal ? nonNull : list));
    }
    for (const example of [s.example, Array.isArray(s.examples) ? s.examples[0] : undefined, s.default]) {
      if (example !== undefined && example !== null && typeof example !== "object" && fits(example)) return example;
    }
    const typed = this.typeCandidates(s, m, minimal);
    // A minimal sample of a schema that admits null (its node says so, whatever the spelling) is null first.
    const candidates = minimal && nullable() ? ["null", ...typed.filter((t) => t !== "null")] : typed;
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
        return numberFor(m.s, rand, true);
      case "number":
        return numberFor(m.s, rand, false);
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
      this.merger.mergeInto(next, option, stack, new Set(m.refs));
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
      const others =
        choice.kind === "oneOf" && choice.options.some((o, j) => j !== index && this.checker.conforms(o, v));
      if (!others && this.checker.conforms(asSchema({ ...m, choices: [] }), v)) return v;
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
    if (!this.checker.conforms(props[name], key)) return;
    mergeKeyword(m.s, "properties", { [name]: { const: key } });
    mergeKeyword(m.s, "required", [name]);
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
      const formatted = typeof s.format === "string" ? formattedString(s.format, rand) : undefined;
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
      if (s.propertyNames !== undefined && !this.checker.conforms(s.propertyNames, key)) continue;
      if (!open && !patternProps.some(([p]) => patternOf(p)!.test(key))) continue;
      return key;
    }
    return undefined;
  }
}
