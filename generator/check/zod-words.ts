/**
 * Extension problems in plain words. zod's own messages are about zod ("Invalid input: expected
 * object, received undefined"); an author needs the key, the value it expected said in words,
 * and the fix ("x-stepforge.limits[0].requests: expected a whole number above 0, found a string
 * ("ten"); write it as a number"). Each issue is one diagnostic, at the key it is about; every
 * issue of a parse is reported in the same run.
 *
 * The words come from the schema itself (walked through zod's definitions), so a new key or kind
 * needs no change here.
 */
import type * as z from "zod";
import { describeValue, type Path, type Report } from "./context.js";
import { nearest } from "./suggest.js";

/** A zod schema's definition: the parts read here (zod 4 keeps them under `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  getter?: () => Schema;
  element?: Schema;
  items?: Schema[];
  keyType?: Schema;
  valueType?: Schema;
  options?: Schema[];
  discriminator?: string;
  left?: Schema;
  right?: Schema;
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: CheckDef } }>;
}

interface CheckDef {
  check: string;
  format?: string;
  value?: number | bigint;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  pattern?: RegExp;
  error?: unknown;
}

type Schema = z.ZodType;

const defOf = (schema: Schema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema without the wrappers that do not change what a value must look like. */
function core(schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(s);
    if (
      ["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"].includes(def.type) &&
      def.innerType
    )
      s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else if (def.type === "lazy" && def.getter) s = def.getter();
    else break;
  }
  return s;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The branch of a discriminated union the value chose, when its discriminator names one. */
function branchOf(def: Def, value: unknown): Schema | undefined {
  if (!def.discriminator || !def.options || !isRecord(value)) return undefined;
  const chosen = value[def.discriminator];
  return def.options.find((o) => literalValues(defOf(core(o)).shape?.[def.discriminator!]).includes(chosen));
}

function literalValues(schema: Schema | undefined): unknown[] {
  if (!schema) return [];
  const def = defOf(core(schema));
  if (def.type === "literal") return def.values ?? [];
  if (def.type === "enum") return Object.values(def.entries ?? {});
  return [];
}

/** The schema of the value at `path` inside `value` (which `schema` describes), when it can be told. */
export function schemaAt(schema: Schema, value: unknown, path: ReadonlyArray<PropertyKey>): Schema | undefined {
  let s: Schema | undefined = schema;
  let v = value;
  for (const key of path) {
    if (!s) return undefined;
    s = childOf(core(s), v, key);
    v = isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return s;
}

function childOf(schema: Schema, value: unknown, key: PropertyKey): Schema | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const own = def.shape?.[String(key)];
      if (own) return own;
      return def.catchall && defOf(def.catchall).type !== "never" ? def.catchall : undefined;
    }
    case "record":
      return def.valueType;
    case "array":
      return def.element;
    case "tuple":
      return def.items?.[Number(key)];
    case "union": {
      const branch = branchOf(def, value);
      if (branch) return childOf(core(branch), value, key);
      for (const option of def.options ?? []) {
        const found = childOf(core(option), value, key);
        if (found) return found;
      }
      return undefined;
    }
    case "intersection":
      return (def.left && childOf(core(def.left), value, key)) ?? (def.right && childOf(core(def.right), value, key));
    default:
      return undefined;
  }
}

/** The keys an object schema (or the chosen branch of a union of them) takes. */
export function keysOf(schema: Schema | undefined, value: unknown): string[] {
  if (!schema) return [];
  const def = defOf(core(schema));
  if (def.type === "object") return Object.keys(def.shape ?? {});
  if (def.type === "union") {
    const branch = branchOf(def, value);
    if (branch) return keysOf(branch, value);
    return [...new Set((def.options ?? []).flatMap((o) => keysOf(o, value)))];
  }
  if (def.type === "intersection") return [...keysOf(def.left, value), ...keysOf(def.right, value)];
  return [];
}

/** What a value of `schema` is, in words: "a whole number above 0", "one of \"query\", \"header\"". */
export function expected(schema: Schema | undefined, depth = 0): string {
  if (!schema) return "a value of another shape";
  const def = defOf(core(schema));
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  switch (def.type) {
    case "string": {
      const regex = checks.find((c) => c.format === "regex");
      const message = regex ? messageOf(regex) : undefined;
      if (message) return `text: ${message}`;
      const format = checks.find((c) => c.format && c.format !== "regex")?.format;
      if (format === "url") return "a URL (https://…)";
      if (format) return `text in ${format} format`;
      const min = checks.find((c) => c.check === "min_length");
      return min?.minimum && min.minimum > 0 ? "text (not empty)" : "text";
    }
    case "number":
    case "bigint":
      return numberWords(checks);
    case "boolean":
      return "true or false";
    case "literal":
      return (def.values ?? []).map((v) => JSON.stringify(v)).join(" or ");
    case "enum":
      return `one of ${Object.values(def.entries ?? {})
        .map((v) => JSON.stringify(v))
        .join(", ")}`;
    case "array":
      return depth > 1 ? "a list" : `a list, each item ${expected(def.element, depth + 1)}`;
    case "tuple":
      return `a list of ${def.items?.length ?? 0} items`;
    case "record":
      return depth > 1
        ? "a mapping of names to values"
        : `a mapping of names, each to ${expected(def.valueType, depth + 1)}`;
    case "object": {
      const all = Object.keys(def.shape ?? {});
      const keys = Object.entries(def.shape ?? {})
        .filter(([, s]) => !isOptional(s))
        .map(([k]) => k);
      if (keys.length > 0) return `a mapping with ${keys.join(", ")}`;
      return all.length > 0 && all.length <= 4 ? `a mapping with any of ${all.join(", ")}` : "a mapping";
    }
    case "union": {
      if (def.discriminator) {
        const kinds = (def.options ?? []).flatMap((o) => literalValues(defOf(core(o)).shape?.[def.discriminator!]));
        return `a mapping with ${def.discriminator}: ${kinds.map((k) => JSON.stringify(k)).join(" | ")}`;
      }
      return [...new Set((def.options ?? []).map((o) => expected(o, depth + 1)))].join(", or ");
    }
    case "any":
    case "unknown":
      return "any value";
    default:
      return "a value of another shape";
  }
}

function isOptional(schema: Schema): boolean {
  const type = defOf(schema).type;
  return type === "optional" || type === "default" || type === "prefault";
}

function messageOf(check: CheckDef): string | undefined {
  const error = check.error;
  if (typeof error === "function") {
    try {
      const out = (error as (issue: unknown) => unknown)({});
      if (typeof out === "string") return out;
      if (isRecord(out) && typeof out.message === "string") return out.message;
    } catch {
      return undefined;
    }
  }
  return typeof error === "string" ? error : undefined;
}

function numberWords(checks: CheckDef[]): string {
  const whole = checks.some((c) => c.format === "safeint" || c.format === "int32" || c.format === "uint32");
  const parts: string[] = [whole ? "a whole number" : "a number"];
  for (const c of checks) {
    if (c.check === "greater_than") parts.push(c.inclusive ? `of at least ${c.value}` : `above ${c.value}`);
    if (c.check === "less_than") parts.push(c.inclusive ? `of at most ${c.value}` : `below ${c.value}`);
  }
  return parts.join(" ");
}

/** `x-stepforge.limits[0].requests`. */
export function keyPath(path: ReadonlyArray<string | number>): string {
  return path
    .map((k, i) =>
      typeof k === "number" ? `[${k}]` : i === 0 ? k : /^[A-Za-z_$][\w$-]*$/.test(k) ? `.${k}` : `["${k}"]`,
    )
    .join("");
}

/** A text value as written ("daly-quota"); anything else described. */
function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : describeValue(value);
}

function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = value;
  for (const key of path) v = isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** How to write a value of the expected kind in place of the one found. */
function fixFor(schema: Schema | undefined, found: unknown): string {
  const type = schema ? defOf(core(schema)).type : "";
  if (
    (type === "number" || type === "bigint") &&
    typeof found === "string" &&
    found.trim() !== "" &&
    !Number.isNaN(Number(found))
  )
    return `write ${found.trim()} without quotes`;
  if (type === "boolean" && (found === "true" || found === "false")) return `write ${found} without quotes`;
  if (type === "string" && (typeof found === "number" || typeof found === "boolean"))
    return `quote it: "${String(found)}"`;
  if (type === "array" && found !== undefined && !Array.isArray(found))
    return "write it as a list (one `- item` per line, or [a, b])";
  if ((type === "object" || type === "record" || type === "union") && !isRecord(found) && !Array.isArray(found))
    return "write it as a mapping (one `key: value` per line under it)";
  if ((type === "object" || type === "record") && !isRecord(found))
    return "write it as a mapping (one `key: value` per line under it)";
  if (type === "number" || type === "bigint") return "write a number, without quotes";
  if (type === "boolean") return "write true or false";
  if (type === "string") return "write it as text";
  return "correct it";
}

/**
 * Reports every issue of `error` (a failed parse of `value` by `schema`, found at `base` in the
 * document) as SF120, in words.
 */
export function reportIssues(error: z.ZodError, base: Path, report: Report, schema: Schema, value: unknown): void {
  const issues = flatten(error.issues);
  // A misspelt key is one mistake: "unknown key "secrt"; did you mean "secret"?" says it, so the
  // "secret is missing" it causes is not reported too.
  const meant = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys") continue;
    const parent = schemaAt(schema, value, issue.path as PropertyKey[]);
    const found = valueAt(value, issue.path as PropertyKey[]);
    for (const key of issue.keys) {
      const hint = nearest(key, keysOf(parent, found));
      if (hint !== undefined) meant.add(JSON.stringify([...issue.path, hint]));
    }
  }
  for (const issue of issues) {
    if (
      issue.code === "invalid_type" &&
      meant.has(JSON.stringify(issue.path)) &&
      valueAt(value, issue.path as PropertyKey[]) === undefined
    )
      continue;
    const inner = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)) as Path;
    const path: Path = [...base, ...inner];
    const where = keyPath(path);
    const here = schemaAt(schema, value, inner);
    const found = valueAt(value, inner);
    // A value of the wrong type, or one no enum value or union member is like: what was expected, what was found.
    const wrongType = () =>
      report(
        "SF120",
        path,
        `${where}: expected ${expected(here)}, found ${describeValue(found)}; ${fixFor(here, found)}`,
      );
    switch (issue.code) {
      case "unrecognized_keys": {
        const parent = schemaAt(schema, value, inner);
        const known = keysOf(parent, found);
        for (const key of issue.keys) {
          const hint = nearest(key, known);
          const fix = hint ? `did you mean "${hint}"?` : "remove it or correct its name";
          const takes = known.length > 0 ? ` (${where} takes ${known.join(", ")})` : "";
          report("SF120", [...path, key], `${where}: unknown key "${key}"; ${fix}${takes}`);
        }
        break;
      }
      case "invalid_type":
        if (found === undefined) {
          report("SF120", path, `${where} is missing: expected ${expected(here)}; add it`);
        } else {
          wrongType();
        }
        break;
      case "invalid_value":
      case "invalid_union": {
        const values =
          "values" in issue
            ? (issue.values as unknown[])
            : "options" in issue
              ? ((issue as { options?: unknown[] }).options ?? [])
              : [];
        if (values.length > 0) {
          const texts = values.filter((v): v is string => typeof v === "string");
          const hint = typeof found === "string" ? nearest(found, texts) : undefined;
          const listed = values.map((v) => JSON.stringify(v)).join(", ");
          const fix = hint ? `did you mean "${hint}"?` : `write one of them`;
          report("SF120", path, `${where}: ${shown(found)} is not one of ${listed}; ${fix}`);
        } else {
          wrongType();
        }
        break;
      }
      case "invalid_format": {
        const wanted =
          issue.message && !/^Invalid/.test(issue.message) ? issue.message : `text in ${issue.format} format`;
        report(
          "SF120",
          path,
          `${where}: ${shown(found)} is not ${wanted}; ${suggestFormat(found, issue) ?? "correct it"}`,
        );
        break;
      }
      case "too_small":
      case "too_big": {
        const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
        const what = issue.origin === "string" ? "characters" : issue.origin === "array" ? "items" : "";
        const side =
          issue.code === "too_small"
            ? issue.inclusive
              ? "at least"
              : "more than"
            : issue.inclusive
              ? "at most"
              : "less than";
        const empty =
          issue.code === "too_small" && issue.origin === "string" && Number(bound) === 1 ? " (it is empty)" : "";
        report(
          "SF120",
          path,
          `${where}: expected ${side} ${String(bound)}${what ? ` ${what}` : ""}${empty}; correct it`,
        );
        break;
      }
      case "invalid_key": {
        const inner = issue.issues[0]?.message;
        report(
          "SF120",
          path,
          `${keyPath(path.slice(0, -1))}: the key "${String(path.at(-1))}" is not ` +
            `${inner && !/^Invalid/.test(inner) ? inner : "a valid name here"}; rename it`,
        );
        break;
      }
      default:
        report("SF120", path, `${where}: ${issue.message}`);
    }
  }
}

/**
 * Union issues carry every branch's issues; the branch that came closest (fewest issues, none
 * about its discriminator) is what the author meant, so its issues are reported instead.
 */
function flatten(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      out.push(...flatten(best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }))));
    } else out.push(issue);
  }
  return out;
}

/** For a value a pattern refused, the same text lower-cased without other characters, when that fits. */
function suggestFormat(found: unknown, issue: z.core.$ZodIssue): string | undefined {
  if (typeof found !== "string" || !("pattern" in issue) || typeof issue.pattern !== "string") return undefined;
  const source = /^\/(.*)\/([a-z]*)$/.exec(issue.pattern);
  if (!source) return undefined;
  const pattern = new RegExp(source[1]!, source[2]);
  const candidate = found.toLowerCase().replace(/[^a-z0-9]/g, "");
  return candidate !== found && pattern.test(candidate) ? `did you mean "${candidate}"?` : undefined;
}
