/**
 * Response schemas "closed" for drift checks: a field the service sends that the spec does not
 * list is a difference worth reporting (the spec is out of date), though JSON Schema allows it.
 *
 * Each object schema in a value position (the answer itself, a property's value, a list's items)
 * that declares its properties, and does not say what else it allows, gets
 * `unevaluatedProperties: false`. That keyword (JSON Schema 2020-12) sees the properties every
 * applied subschema evaluated, through `$ref`, `allOf` and the `anyOf`/`oneOf` branch that
 * matched, so `allOf: [Base, {properties: {extra}}]` is closed over both parts. The branches of a
 * composition are never closed on their own (each would refuse the other's fields); component
 * schemas are closed where they are used, not where they are defined, since a component may be a
 * branch elsewhere.
 */
type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => v !== null && typeof v === "object" && !Array.isArray(v);
const COMPOSITIONS = ["allOf", "anyOf", "oneOf"] as const;
/** Keywords whose value is a schema in a value position. */
const VALUE_SCHEMAS = ["items", "additionalProperties", "contains", "unevaluatedItems"] as const;
/** Keywords under which a schema applies to the same value (it must stay open). */
const SAME_VALUE = ["not", "if", "then", "else", "dependentSchemas"] as const;
const OPEN_KEYS = ["additionalProperties", "patternProperties", "unevaluatedProperties", "propertyNames"];

/**
 * `resolve` turns a `$ref` into its (already transformed) target, or undefined for one that does
 * not resolve.
 */
export function closeSchema(tree: unknown, resolve: (ref: string) => unknown): unknown {
  const closable = (node: unknown, seen: Set<unknown>): boolean => {
    if (!isNode(node) || seen.has(node)) return false;
    seen.add(node);
    if (OPEN_KEYS.some((k) => k in node)) return false;
    let declares = isNode(node.properties);
    if (typeof node.$ref === "string") {
      const target = resolve(node.$ref);
      if (!isNode(target) || !closable(target, seen)) return false;
      declares = true;
    }
    for (const key of COMPOSITIONS) {
      const branches = node[key];
      if (!Array.isArray(branches)) continue;
      for (const branch of branches) {
        // A branch that allows any fields (a plain `type: object`) keeps the whole open.
        if (isNode(branch) && !closable(branch, new Set(seen)) && admitsAnyObject(branch, resolve)) return false;
        if (closable(branch, new Set(seen))) declares = true;
      }
    }
    return declares;
  };
  const walk = (node: unknown, valuePosition: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, valuePosition));
    if (!isNode(node)) return node;
    const out: Node = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && isNode(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, walk(child, true)]));
      } else if (key === "prefixItems" && Array.isArray(value)) {
        out[key] = value.map((child) => walk(child, true));
      } else if ((VALUE_SCHEMAS as readonly string[]).includes(key) && isNode(value)) {
        out[key] = walk(value, true);
      } else if ((COMPOSITIONS as readonly string[]).includes(key) || (SAME_VALUE as readonly string[]).includes(key)) {
        out[key] = walk(value, false);
      } else {
        out[key] = value;
      }
    }
    if (valuePosition && closable(node, new Set())) out.unevaluatedProperties = false;
    return out;
  };
  return walk(tree, true);
}

/**
 * A branch that lets any object through: an object type (or none) with no properties to match
 * and nothing that narrows the fields. Such a branch makes closing the parent wrong.
 */
function admitsAnyObject(node: Node, resolve: (ref: string) => unknown): boolean {
  if (typeof node.$ref === "string") {
    const target = resolve(node.$ref);
    return isNode(target) && admitsAnyObject(target, resolve);
  }
  const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : undefined;
  if (types && !types.includes("object")) return false;
  if (isNode(node.properties) || COMPOSITIONS.some((k) => Array.isArray(node[k]))) return false;
  return node.additionalProperties !== false && node.unevaluatedProperties !== false;
}

/** Components with each schema's inner value positions closed (the roots stay open: see above). */
export function closeComponents(components: Node, resolve: (ref: string) => unknown): Node {
  const out: Node = {};
  for (const [section, named] of Object.entries(components)) {
    if (!isNode(named)) continue;
    out[section] = Object.fromEntries(
      Object.entries(named).map(([name, schema]) => [name, walkRootOpen(schema, resolve)]),
    );
  }
  return out;
}

function walkRootOpen(schema: unknown, resolve: (ref: string) => unknown): unknown {
  const closed = closeSchema(schema, resolve);
  if (isNode(closed) && isNode(schema) && !("unevaluatedProperties" in schema)) delete closed.unevaluatedProperties;
  return closed;
}
