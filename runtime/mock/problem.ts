/**
 * Why a value is not valid against a schema, in the words of a validator's first error
 * (`shelves: must have required property 'shelves'`, `items.0.title: must be string`), found with
 * the sampler's own checker (schema-conforms.ts `schemaChecker`): the generator checks every example of a
 * spec with it, and Ajv's code generation cost seconds per thousand schemas where this costs
 * milliseconds. The walk descends to the deepest property or item that fails; a failure it cannot
 * pin down (a `oneOf` no branch takes alone) is named at the level where it happens.
 */
import { schemaChecker } from "./schema-conforms.js";
import type { MergedKeywords } from "./schema-merge.js";

type Rec = Record<string, unknown>;
const isObject = (v: unknown): v is Rec => v !== null && typeof v === "object" && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeFits(types: string[], v: unknown): boolean {
  const t = typeName(v);
  return types.includes(t) || (t === "integer" && types.includes("number"));
}

export interface SchemaProblem {
  /** Dotted path of the failing part (`items.0.title`); "" for the value itself. */
  at: string;
  message: string;
}

export class ProblemFinder {
  private readonly checker: ReturnType<typeof schemaChecker>;

  constructor(resolve: (ref: string) => unknown) {
    this.checker = schemaChecker({ resolve });
  }

  /** The first problem of `value` against `schema`, or undefined when it is valid. */
  find(schema: unknown, value: unknown): SchemaProblem | undefined {
    return this.checker.conforms(schema, value) ? undefined : this.walk(schema, value, "", 0);
  }

  private walk(schema: unknown, v: unknown, at: string, depth: number): SchemaProblem {
    const here = (message: string): SchemaProblem => ({ at, message });
    const join = (key: string | number) => (at ? `${at}.${key}` : String(key));
    let k: MergedKeywords;
    try {
      k = this.checker.keywords(schema);
    } catch {
      return here("does not match the schema");
    }
    const types = typeof k.type === "string" ? [k.type] : Array.isArray(k.type) ? (k.type as string[]) : undefined;
    if (types && !typeFits(types, v)) return here(`must be ${types.join(" or ")}`);
    if (Array.isArray(k.enum) && !k.enum.some((x) => this.checker.conforms({ const: x }, v)))
      return here("must be equal to one of the allowed values");
    if (Object.hasOwn(k, "const") && !this.checker.conforms({ const: k.const }, v))
      return here("must be equal to constant");
    if (depth < 32 && isObject(v)) {
      for (const name of Array.isArray(k.required) ? k.required : []) {
        if (typeof name === "string" && !Object.hasOwn(v, name))
          return { at: join(name), message: `must have required property '${name}'` };
      }
      const props = isObject(k.properties) ? k.properties : {};
      for (const [key, value] of Object.entries(v)) {
        if (Object.hasOwn(props, key) && !this.checker.conforms(props[key], value))
          return this.walk(props[key], value, join(key), depth + 1);
        if (k.closedKeys && !k.closedKeys.has(key)) return here(`must NOT have additional property '${key}'`);
        if (
          !Object.hasOwn(props, key) &&
          isObject(k.additionalProperties) &&
          !this.checker.conforms(k.additionalProperties, value)
        ) {
          return this.walk(k.additionalProperties, value, join(key), depth + 1);
        }
      }
    }
    if (depth < 32 && Array.isArray(v)) {
      if (typeof k.minItems === "number" && v.length < k.minItems)
        return here(`must NOT have fewer than ${k.minItems} items`);
      if (typeof k.maxItems === "number" && v.length > k.maxItems)
        return here(`must NOT have more than ${k.maxItems} items`);
      const prefix = Array.isArray(k.prefixItems) ? k.prefixItems : [];
      for (const [i, item] of v.entries()) {
        const sub = i < prefix.length ? prefix[i] : k.items;
        if (sub !== undefined && !this.checker.conforms(sub, item)) return this.walk(sub, item, join(i), depth + 1);
      }
    }
    if (typeof v === "string") {
      if (typeof k.minLength === "number" && [...v].length < k.minLength)
        return here(`must NOT have fewer than ${k.minLength} characters`);
      if (typeof k.maxLength === "number" && [...v].length > k.maxLength)
        return here(`must NOT have more than ${k.maxLength} characters`);
      if (typeof k.pattern === "string") return here(`must match pattern "${k.pattern}"`);
      if (typeof k.format === "string") return here(`must match format "${k.format}"`);
    }
    if (
      typeof v === "number" &&
      (k.minimum !== undefined ||
        k.maximum !== undefined ||
        k.exclusiveMinimum !== undefined ||
        k.exclusiveMaximum !== undefined)
    ) {
      return here("is out of the allowed range");
    }
    if (Array.isArray(k.oneOf)) return here("must match exactly one schema in oneOf");
    if (Array.isArray(k.anyOf)) return here("must match a schema in anyOf");
    return here("does not match the schema");
  }
}
