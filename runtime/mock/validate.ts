/**
 * Request validation of the behavioural mock: parameters and JSON bodies checked against the
 * spec's schemas with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1). `$ref`s into
 * `#/components/...` resolve against the spec's components, registered once per service.
 */
import type { SchemaValidateFunction } from "ajv";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { canonicalJson, jsonEqual } from "../internal/values.js";
import { requestComponents, requestSchema, typesOf } from "./dialect.js";
import type { MockOperationSpec } from "./extension-types.js";

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

const SPEC_ID = "stepforge-mock-spec.json";

export interface Problem {
  /** The parameter or body field at fault (`idList`, `input.0.email`). */
  field: string;
  detail: string;
}

/** What a request's validation reads of it. */
export interface RequestParts {
  /** Path parameters from the route match. */
  path: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  hasBody: boolean;
}

/** The first error, named by its field; a body's fields are named from its top (`idList`), the body itself `body`. */
function problemOf(errors: ErrorObject[] | null | undefined, base: string): Problem {
  const e = errors?.[0];
  const extra =
    e?.keyword === "required" ? String((e.params as { missingProperty?: string }).missingProperty ?? "") : "";
  const path = [base, ...(e?.instancePath.split("/") ?? []).filter(Boolean), extra].filter(Boolean).join(".");
  const field = path || base || "body";
  return { field, detail: `${field} ${e?.message ?? "is invalid"}` };
}

/**
 * `enum`, `const` and `uniqueItems` with stepforge's JSON equality instead of Ajv's built-in
 * deep-equal, which calls the value's own `valueOf` / `toString`: a request body holding
 * `{"toString": null}` where the schema lists objects made it throw, and the mock answered 500
 * instead of naming the field. Messages and params match Ajv's own keywords.
 */
export function withJsonEquality(ajv: Ajv2020): void {
  for (const keyword of ["enum", "const", "uniqueItems"]) ajv.removeKeyword(keyword);
  const fail = (fn: SchemaValidateFunction, keyword: string, message: string, params: Record<string, unknown>) => {
    fn.errors = [{ keyword, message, params }];
    return false;
  };
  const enumCheck: SchemaValidateFunction = (allowed: unknown[], data: unknown): boolean =>
    allowed.some((v) => jsonEqual(v, data)) ||
    fail(enumCheck, "enum", "must be equal to one of the allowed values", { allowedValues: allowed });
  const constCheck: SchemaValidateFunction = (allowed: unknown, data: unknown): boolean =>
    jsonEqual(allowed, data) || fail(constCheck, "const", "must be equal to constant", { allowedValue: allowed });
  const uniqueCheck: SchemaValidateFunction = (unique: boolean, data: unknown): boolean => {
    if (!unique || !Array.isArray(data)) return true;
    const seen = new Map<string, number>();
    for (const [j, item] of data.entries()) {
      const text = canonicalJson(item);
      const i = seen.get(text);
      if (i !== undefined)
        return fail(
          uniqueCheck,
          "uniqueItems",
          `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
          { i, j },
        );
      seen.set(text, j);
    }
    return true;
  };
  ajv.addKeyword({ keyword: "enum", schemaType: "array", errors: true, validate: enumCheck });
  ajv.addKeyword({ keyword: "const", errors: true, validate: constCheck });
  ajv.addKeyword({ keyword: "uniqueItems", schemaType: "boolean", errors: true, validate: uniqueCheck });
}

const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A number written in a query parameter, read one way wherever the mock reads one (validation
 * here, paging in paging.ts), so the value checked against the schema is the value used: decimal
 * digits with an optional fraction and exponent. `Number` alone would also take `0x10` and
 * `Infinity`, and `parseInt` stops at `1e3`'s `e`.
 */
export function queryNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A parameter schema's type names (none when it has no schema or no `type`). */
const typesOfSchema = (schema: unknown): string[] =>
  (schema !== null && typeof schema === "object" ? typesOf(schema as Record<string, unknown>) : undefined) ?? [];

/**
 * The type names a scalar value may take: the schema's own, and those of its `anyOf`/`oneOf`/`allOf`
 * branches (Stripe's `created` is `anyOf: [range object, integer]`: `created=412` is the integer).
 */
function scalarTypes(schema: unknown, depth = 0): string[] {
  const own = typesOfSchema(schema);
  if (depth > 4 || schema === null || typeof schema !== "object") return own;
  const s = schema as Record<string, unknown>;
  const branches = [s.anyOf, s.oneOf, s.allOf].flatMap((list) => (Array.isArray(list) ? list : []));
  return [...own, ...branches.flatMap((branch) => scalarTypes(branch, depth + 1))];
}

/** Query values as a schema expects them: arrays from repeats or commas, numbers and booleans from text. */
export function coerce(schema: unknown, values: string[], explode: boolean): unknown {
  const s = (schema ?? {}) as { items?: unknown };
  if (typesOfSchema(schema).includes("array")) {
    const all = explode ? values : values.flatMap((v) => v.split(","));
    return all.map((v) => coerce(s.items, [v], true));
  }
  const types = scalarTypes(schema);
  const v = values[0]!;
  const n = types.includes("integer") || types.includes("number") ? queryNumber(v) : undefined;
  if (n !== undefined) return n;
  if (types.includes("boolean") && (v === "true" || v === "false")) return v === "true";
  return v;
}

export class RequestValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(components: unknown) {
    // ownProperties: a required body field named `constructor` or `toString` must be in the body,
    // not found on Object.prototype.
    this.ajv = new Ajv2020({
      strict: false,
      allErrors: false,
      logger: false,
      validateFormats: true,
      ownProperties: true,
    });
    addFormats(this.ajv);
    withJsonEquality(this.ajv);
    // OpenAPI's numeric formats; ajv-formats knows int32/int64/float/double already in v3.
    this.ajv.addSchema({ $id: SPEC_ID, components: requestComponents(components, SPEC_ID) });
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.componentFunction(schema) ?? this.ajv.compile(requestSchema(schema, SPEC_ID) as object);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /**
   * A schema that only names a component is the component's own function, compiled once inside
   * the registered components: every schema naming it shares it, and so do the components it
   * names in turn (a new root would compile them all again).
   */
  private componentFunction(schema: unknown): ValidateFunction | undefined {
    if (schema === null || typeof schema !== "object" || Object.keys(schema).length !== 1) return undefined;
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/components/")) return undefined;
    return this.ajv.getSchema(`${SPEC_ID}${ref}`);
  }

  /**
   * Whether `value` is valid against `schema` (compiled once under `key`): used for values the
   * mock writes itself (a record's fields, an example) rather than ones a request sent.
   */
  accepts(key: string, schema: unknown, value: unknown): boolean {
    return this.problemWith(key, schema, value) === undefined;
  }

  /**
   * Why `value` is not valid against `schema` (its first error, named by its place), or undefined.
   * A schema Ajv cannot compile (`type: strin`) judges nothing: the value passes.
   */
  problemWith(key: string, schema: unknown, value: unknown): Problem | undefined {
    const k = `value:${key}`;
    if (this.uncompilable.has(k)) return undefined;
    let fn: ValidateFunction;
    try {
      fn = this.compile(k, schema);
    } catch {
      this.uncompilable.add(k);
      return undefined;
    }
    return fn(value) ? undefined : problemOf(fn.errors, "");
  }

  private readonly uncompilable = new Set<string>();

  /** Each operation's parameter checks, compiled once. */
  private readonly plans = new WeakMap<
    MockOperationSpec,
    Array<{ p: MockOperationSpec["parameters"][number]; fn: ValidateFunction | undefined }>
  >();

  private plan(
    op: MockOperationSpec,
  ): Array<{ p: MockOperationSpec["parameters"][number]; fn: ValidateFunction | undefined }> {
    let plan = this.plans.get(op);
    if (!plan) {
      plan = op.parameters
        .filter((p) => p.in !== "cookie")
        .map((p) => ({
          p,
          fn: p.schema === undefined ? undefined : this.compile(`${op.operationId}:${p.in}:${p.name}`, p.schema),
        }));
      this.plans.set(op, plan);
    }
    return plan;
  }

  /** The first problem with the request, or undefined when it matches the spec. */
  check(op: MockOperationSpec, parts: RequestParts): Problem | undefined {
    for (const { p, fn } of this.plan(op)) {
      let raw: string[] = [];
      if (p.in === "path") raw = parts.path[p.name] !== undefined ? [parts.path[p.name]!] : [];
      else if (p.in === "query") raw = parts.query.getAll(p.name);
      else {
        const h = parts.headers[p.name.toLowerCase()];
        raw = h === undefined ? [] : Array.isArray(h) ? h : [h];
      }
      if (raw.length === 0) {
        if (p.required) return { field: p.name, detail: `${p.name} is required` };
        continue;
      }
      // Which of two values would count is anyone's guess (the checks took the last, the paging
      // the first): a value that is not a list is given once.
      if (p.in === "query" && raw.length > 1 && !typesOfSchema(p.schema).includes("array"))
        return { field: p.name, detail: `${p.name} is given more than once` };
      if (!fn) continue;
      if (!fn(coerce(p.schema, raw, p.explode ?? true))) return problemOf(fn.errors, p.name);
    }
    if (op.body) {
      if (!parts.hasBody) {
        if (op.body.required) return { field: "body", detail: "a request body is required" };
      } else if (op.body.schema !== undefined) {
        const fn = this.compile(`${op.operationId}:body`, op.body.schema);
        if (!fn(parts.body)) return problemOf(fn.errors, "");
      }
    }
    return undefined;
  }
}
