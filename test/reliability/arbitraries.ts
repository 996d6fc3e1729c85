/**
 * Shared pieces of the property-based fuzz suite: a JSON Schema → fast-check arbitrary for the
 * subset the tool input schemas use, "wrong value" arbitraries for a schema, a fetch stub that
 * records every address it is asked for, and a check that Object.prototype stays untouched.
 *
 * Every property runs with a fixed seed (SEED, or FUZZ_SEED from the environment) so CI is
 * reproducible; fast-check prints the seed and the shrunk counterexample on failure.
 */
import fc from "fast-check";

export const SEED = Number(process.env.FUZZ_SEED ?? 42);
/** Multiplies every numRuns (FUZZ_RUNS=10 for a long local run). */
export const RUNS_FACTOR = Number(process.env.FUZZ_RUNS ?? 1);
export const runs = (n: number) => Math.max(1, Math.round(n * RUNS_FACTOR));

type Json = Record<string, unknown>;
export type JsonSchema = Json;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys that are dangerous as property names. */
export const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "isPrototypeOf",
] as const;

/**
 * Sets `key` as an own, enumerable property (so "__proto__" is a key, as JSON.parse makes it, and not the prototype).
 */
export function withOwn<T extends object>(target: T, key: string, value: unknown): T {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

/** A plain object with own keys in order, "__proto__" included as a key. */
export function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): Json {
  const out: Json = {};
  for (const [k, v] of entries) withOwn(out, k, v);
  return out;
}

// ------------------------------------------------------------------ schema → valid values

/** Safe, printable object keys for free-form maps (no prototype names). */
const mapKey = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);

const URI_EXAMPLES = [
  "https://example.com/",
  "https://example.com/a/b?c=d",
  "http://example.org/x.png",
  "https://trello.com/c/AbCd1234",
];

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  return [];
}

function stringArb(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  const fits = (s: string) => s.length >= min && (max === undefined || s.length <= max);
  if (typeof schema.pattern === "string") {
    const re = new RegExp(schema.pattern);
    return fc.stringMatching(re).filter((s) => fits(s) && re.test(s));
  }
  if (schema.format === "uri") return fc.constantFrom(...URI_EXAMPLES).filter(fits);
  if (schema.format === "email") return fc.constantFrom("ada@example.com", "grace.hopper@navy.example.org");
  if (schema.format === "date") return fc.constantFrom("2024-06-14", "1999-12-31");
  if (schema.format === "date-time") return fc.constantFrom("2024-06-14T16:00:00Z", "2024-06-14T16:00:00.123+02:00");
  return fc.string({ minLength: min, maxLength: Math.min(max ?? 24, Math.max(min, 24)) });
}

function numberBounds(schema: JsonSchema): { min: number; max: number } {
  let min = typeof schema.minimum === "number" ? schema.minimum : -1e6;
  let max = typeof schema.maximum === "number" ? schema.maximum : 1e6;
  if (typeof schema.exclusiveMinimum === "number") min = Math.max(min, schema.exclusiveMinimum + 1e-6);
  if (typeof schema.exclusiveMaximum === "number") max = Math.min(max, schema.exclusiveMaximum - 1e-6);
  return { min, max };
}

/** An arbitrary of values valid for `schema` (the subset tool input schemas use). */
export function validArb(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((s) => validArb(s, depth)));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validArb({ ...schema, type }, depth)));
  switch (types[0]) {
    case "string":
      return stringArb(schema);
    case "integer": {
      const { min, max } = numberBounds(schema);
      return fc.integer({ min: Math.ceil(Math.max(min, -1e9)), max: Math.floor(Math.min(max, 1e9)) });
    }
    case "number": {
      const { min, max } = numberBounds(schema);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = isObject(schema.items) ? schema.items : {};
      const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
      const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === "number" ? schema.maxItems : 3, 3));
      return fc.array(validArb(items, depth + 1), { minLength, maxLength });
    }
    case "object": {
      const props = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const named = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validArb(s, depth + 1)])), {
        requiredKeys: required.filter((k) => k in props),
      });
      const extra = schema.additionalProperties;
      if (Object.keys(props).length === 0 && extra !== false && depth < 4) {
        const valueArb = isObject(extra) ? validArb(extra, depth + 1) : fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(mapKey, valueArb, { maxKeys: 3 });
      }
      return named;
    }
    default:
      // No type: free-form (z.unknown()).
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ------------------------------------------------------------------ schema → wrong values

/** What a field of `schema` can never be: values of another JSON type, out of bounds, off pattern. */
export function wrongArb(schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  const allowed = new Set<string>();
  const collect = (s: JsonSchema) => {
    if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).forEach(collect);
    if (Array.isArray(s.enum)) {
      for (const v of s.enum as unknown[])
        allowed.add(v === null ? "null" : typeof v === "number" ? "number" : typeof v);
      return;
    }
    const types = typesOf(s);
    if (types.length === 0) allowed.add("any");
    for (const t of types) allowed.add(t === "integer" ? "integer" : t);
  };
  collect(schema);
  if (allowed.has("any")) return undefined;
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!allowed.has("string")) candidates.push(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_KEYS));
  if (!allowed.has("number")) {
    candidates.push(
      allowed.has("integer")
        ? fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Number.isInteger(n))
        : fc.oneof(fc.integer(), fc.constantFrom(0.5, -1e300, 1e21)),
    );
  }
  if (!allowed.has("boolean")) candidates.push(fc.boolean());
  if (!allowed.has("array")) candidates.push(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }));
  if (!allowed.has("object"))
    candidates.push(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
      fc.constant(ownObject([["__proto__", { polluted: true }]])),
    );
  // Right type, wrong value.
  if (Array.isArray(schema.enum) && (schema.enum as unknown[]).every((v) => typeof v === "string")) {
    const values = new Set(schema.enum as string[]);
    candidates.push(
      fc
        .oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...PROTO_KEYS), fc.constant("x".repeat(100_000)))
        .filter((s) => !values.has(s)),
    );
  } else if (typesOf(schema).length === 1 && schema.type === "string") {
    if (typeof schema.maxLength === "number")
      candidates.push(fc.integer({ min: 1, max: 5 }).map((n) => "x".repeat((schema.maxLength as number) + n)));
    if (typeof schema.pattern === "string") {
      const re = new RegExp(schema.pattern);
      candidates.push(
        fc
          .oneof(
            fc.string({ maxLength: 30 }),
            fc.constant("x".repeat(100_000)),
            fc.constant("\u0000"),
            fc.constant("../../etc/passwd"),
          )
          .filter((s) => !re.test(s)),
      );
    }
  } else if (typesOf(schema).length === 1 && (schema.type === "integer" || schema.type === "number")) {
    if (typeof schema.minimum === "number")
      candidates.push(fc.integer({ min: 1, max: 1000 }).map((n) => (schema.minimum as number) - n));
    if (typeof schema.maximum === "number")
      candidates.push(fc.integer({ min: 1, max: 1000 }).map((n) => (schema.maximum as number) + n));
  } else if (typesOf(schema).length === 1 && schema.type === "array") {
    if (
      typeof schema.maxItems === "number" &&
      isObject(schema.items) &&
      !Array.isArray(schema.items.enum) &&
      !schema.items.pattern
    ) {
      // Too many (valid) items.
      const n = schema.maxItems as number;
      candidates.push(fc.array(validArb(schema.items), { minLength: n + 1, maxLength: n + 2 }));
    }
    const inner = isObject(schema.items) ? wrongArb(schema.items) : undefined;
    if (inner) candidates.push(fc.tuple(inner).map((t) => [t[0]]));
  }
  return candidates.length ? fc.oneof(...candidates) : undefined;
}

// ------------------------------------------------------------------ fetch that records

export interface RecordingFetch {
  fetch: typeof fetch;
  /** Every absolute address asked for, in order. */
  urls: string[];
}

/**
 * A fetch that never touches the network: records the address and answers with `reply` (default: 200 `{}`-ish JSON).
 */
export function recordingFetch(reply?: (url: URL, init: RequestInit | undefined) => Response): RecordingFetch {
  const urls: string[] = [];
  const stub = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    urls.push(url);
    if (reply) return reply(new URL(url), init);
    return new Response(
      JSON.stringify({ access_token: "fuzz-token", token_type: "bearer", expires_in: 3600, success: true, result: [] }),
      {
        status: 200,
        headers: { "content-type": "application/json" },
      },
    );
  };
  return { fetch: stub as typeof fetch, urls };
}

// ------------------------------------------------------------------ prototype watch

const WATCHED = [Object.prototype, Array.prototype, Function.prototype, String.prototype] as const;

/** Own property names and values of the built-in prototypes, to compare before and after. */
export function prototypeSnapshot(): string {
  return WATCHED.map((proto) =>
    Object.getOwnPropertyNames(proto)
      .sort()
      .map((name) => {
        const d = Object.getOwnPropertyDescriptor(proto, name)!;
        return `${name}:${typeof d.value}:${d.get ? "g" : ""}${d.set ? "s" : ""}`;
      })
      .join(","),
  ).join("|");
}

export function assertPrototypesClean(before: string): void {
  const after = prototypeSnapshot();
  if (after !== before) throw new Error("a built-in prototype was modified");
  const probe = {} as Record<string, unknown>;
  for (const key of ["polluted", "idList", "isAdmin", "x"])
    if (probe[key] !== undefined) throw new Error(`Object.prototype.${key} is set`);
}
