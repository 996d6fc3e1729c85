/**
 * Scalar values from the seeded source: numbers inside a schema's bounds, words, strings for a
 * `pattern` (randexp) and for a `format`. What they share is that each is one draw from a `Rand`
 * and looks at no other schema; the sampler (sample.ts) decides which to ask for and checks the
 * result.
 */
import RandExpModule from "randexp";
import type { SchemaObject } from "./schema-merge.js";

// randexp is CommonJS whose module.exports is the class itself.
const RandExp = ((RandExpModule as unknown as { default?: unknown }).default ??
  RandExpModule) as typeof import("randexp").default;

/** A seeded random source: numbers in [0, 1). */
export type Rand = () => number;

/** The words sample strings and extra property names are made of. */
export const WORDS = [
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

/** A whole number in [lo, hi], and one element of a list, from the seeded source. */
export const intBetween = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
export const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

/** A number inside the schema's bounds and step; a whole one for `integer` (or an int32/int64 format). */
export function numberFor(s: SchemaObject, rand: Rand, wholeType: boolean): number {
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

/** Words joined by dashes, cut to a length between min and max. */
export function words(rand: Rand, min: number, max: number): string {
  const target =
    max === Infinity ? Math.max(min, 0) : Math.min(max, Math.max(min, intBetween(rand, min, Math.min(max, min + 12))));
  let out = pick(rand, WORDS);
  while (out.length < target) out += `-${pick(rand, WORDS)}`;
  if (max !== Infinity || min > 0) out = out.slice(0, Math.max(target, min));
  if (max !== Infinity) out = out.slice(0, max);
  return out.endsWith("-") ? `${out.slice(0, -1)}a` : out;
}

/** A string matching `pattern`, from randexp with the seeded source; undefined if it cannot parse it. */
export function fromPattern(pattern: string, rand: Rand, min: number, max: number): string | undefined {
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
export function formattedString(format: string, rand: Rand): string | undefined {
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
      const variant = "89ab"[Math.floor(rand() * 4)];
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
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
