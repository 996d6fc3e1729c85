/**
 * One schema read as a single set of keywords: its `$ref`s followed and its `allOf` members (and
 * `$ref` siblings) merged, `oneOf`/`anyOf` kept aside as choices, `not` and extra patterns kept as
 * lists. The sampler (sample.ts) generates from this form and the checker's `keywords` returns it;
 * it lives apart from both because both start from it and neither owns it.
 */
import { draft2020Node } from "./dialect.js";
import { jsonEqual, setOwn } from "../internal/values.js";

export type SchemaObject = Record<string, unknown>;

/** A schema's own keywords with `$ref`s followed and `allOf` merged; `closedKeys` when a member is closed. */
export type MergedKeywords = Record<string, unknown> & { closedKeys?: Set<string> | undefined };

export interface Choice {
  kind: "oneOf" | "anyOf";
  options: unknown[];
  discriminator?: { propertyName?: unknown; mapping?: unknown };
}

/** One schema with its `$ref`s followed and its `allOf` members merged. */
export interface Merged {
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

export const isObject = (v: unknown): v is SchemaObject => v !== null && typeof v === "object" && !Array.isArray(v);
export const own = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** The pattern as a regular expression, or undefined when it does not compile (it is then ignored). */
export function patternOf(p: string): RegExp | undefined {
  try {
    return new RegExp(p, "u");
  } catch {
    return undefined;
  }
}

function mergeMax(a: unknown, b: unknown): unknown {
  return typeof a === "number" && typeof b === "number" ? Math.max(a, b) : (a ?? b);
}
function mergeMin(a: unknown, b: unknown): unknown {
  return typeof a === "number" && typeof b === "number" ? Math.min(a, b) : (a ?? b);
}
/** Both schemas at once: `false` wins, `true` or nothing gives way, two schemas become an `allOf`. */
export function both(a: unknown, b: unknown): unknown {
  if (a === false || b === false) return false;
  if (a === undefined || a === true) return b;
  if (b === undefined || b === true) return a;
  return { allOf: [a, b] };
}
function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Keywords merged from the two values alone: a lower bound keeps the larger, an upper bound the
 * smaller, and a subschema keyword holds both subschemas at once.
 */
const PAIRWISE_MERGES = new Map<string, (a: unknown, b: unknown) => unknown>([
  ...["minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum", "minContains"].map(
    (k) => [k, mergeMax] as const,
  ),
  ...["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum", "maxContains"].map(
    (k) => [k, mergeMin] as const,
  ),
  ...["items", "additionalProperties", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"].map(
    (k) => [k, both] as const,
  ),
]);

/** Adds one keyword of an `allOf` member to the merged keywords. */
export function mergeKeyword(s: SchemaObject, key: string, value: unknown): void {
  if (!own(s, key)) {
    s[key] = isObject(value) ? { ...value } : Array.isArray(value) ? [...(value as unknown[])] : value;
    return;
  }
  const old = s[key];
  const pairwise = PAIRWISE_MERGES.get(key);
  if (pairwise) {
    s[key] = pairwise(old, value);
    return;
  }
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

/** `resolve`, or an error naming the option when a schema has a `$ref` and no resolver was given. */
export function refResolver(resolve: ((ref: string) => unknown) | undefined): (ref: string) => unknown {
  return (ref) => {
    if (!resolve)
      throw new Error(
        `sampleFromSchema: the schema has "$ref": "${ref}"; pass options.resolve (for example pointerResolver(spec))`,
      );
    return resolve(ref);
  };
}

/** Merges schemas against one document's `$ref`s. */
export class KeywordMerger {
  constructor(private readonly resolveRef: (ref: string) => unknown) {}

  merged(schema: unknown, stack: readonly string[]): Merged {
    const m: Merged = { s: {}, choices: [], nots: [], patterns: [], refs: [], cyclic: false };
    this.mergeInto(m, schema, stack, new Set());
    return m;
  }

  /** Adds `schema` (its references followed, its allOf members merged) to `m`. */
  mergeInto(m: Merged, schema: unknown, stack: readonly string[], entered: Set<string>): void {
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

  /** A schema's merged top level (see schemaChecker in schema-conforms.ts). */
  keywords(schema: unknown): MergedKeywords {
    const m = this.merged(schema, []);
    const choices = Object.fromEntries(m.choices.map((c) => [c.kind, c.options]));
    return { ...m.s, ...choices, ...(m.patterns.length ? { pattern: m.patterns[0] } : {}), closedKeys: m.closedKeys };
  }
}

/** The merged keywords as one schema again (for `conforms`). */
export function asSchema(m: Merged): SchemaObject {
  const parts: unknown[] = [m.s, ...m.patterns.map((pattern) => ({ pattern })), ...m.nots.map((not) => ({ not }))];
  for (const c of m.choices) parts.push({ [c.kind]: c.options });
  if (m.closedKeys) parts.push({ propertyNames: { enum: [...m.closedKeys] } });
  return { allOf: parts };
}
