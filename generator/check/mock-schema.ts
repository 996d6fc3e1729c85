/**
 * Reading response schemas for the mock's inference (mock-infer.ts and its parts): the top level
 * of an object schema with `$ref`s followed and `allOf` merged, the items of an array schema,
 * field names compared without case or separators (`next_cursor` = `nextCursor`), and fields found
 * by name one level into the envelope objects APIs put paging in (`meta`, `pagination`, …).
 */
import { asArray, asObject, isObject, type Json, type RefResolver } from "../refs.js";

/** Whether a value is valid against a schema of the spec (the sampler's checker, see index.ts). */
export type Accepts = (schema: unknown, value: unknown) => boolean;

export interface ObjectView {
  properties: Map<string, unknown>;
  required: Set<string>;
  /** Some member says `additionalProperties: false`. */
  closed: boolean;
}

/** `next_cursor`, `nextCursor`, `Next-Cursor` → `nextcursor`. */
export const norm = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** `books` → `book`, `categories` → `category`, `addresses` → `address`; a word not ending in s stays. */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.slice(0, -2);
  if (/[^s]s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** A schema with its `$ref` chain followed (siblings of a `$ref` kept, as RefResolver.deref does). */
export function resolved(refs: RefResolver, schema: unknown): Json {
  return refs.deref(schema);
}

/** The `$ref` a schema is, followed to its last link; undefined for an inline schema. */
export function refOf(refs: RefResolver, schema: unknown): string | undefined {
  let node = schema;
  let ref: string | undefined;
  for (let i = 0; i < 20 && isObject(node) && typeof node.$ref === "string"; i++) {
    ref = node.$ref;
    node = refs.pointer(ref);
  }
  return ref;
}

/** The type names a schema allows (`nullable` and `type: [x, null]` included); empty when it gives none. */
export function typesOf(refs: RefResolver, schema: unknown): string[] {
  const s = resolved(refs, schema);
  const types =
    typeof s.type === "string" ? [s.type] : asArray(s.type).filter((t): t is string => typeof t === "string");
  if (types.length === 0 && Array.isArray(s.allOf)) return [...new Set(s.allOf.flatMap((m) => typesOf(refs, m)))];
  if (s.nullable === true && !types.includes("null")) types.push("null");
  return types;
}

/** The top level of an object schema, or undefined when the schema is not an object's. */
export function objectView(refs: RefResolver, schema: unknown): ObjectView | undefined {
  const view: ObjectView = { properties: new Map(), required: new Set(), closed: false };
  let objectish = false;
  const seen = new Set<unknown>();
  const visit = (node: unknown, depth: number): void => {
    const s = resolved(refs, node);
    if (depth > 10 || seen.has(s)) return;
    seen.add(s);
    const props = asObject(s.properties);
    if (props || s.type === "object" || (Array.isArray(s.type) && s.type.includes("object"))) objectish = true;
    for (const [name, sub] of Object.entries(props ?? {}))
      if (!view.properties.has(name)) view.properties.set(name, sub);
    for (const name of asArray(s.required)) if (typeof name === "string") view.required.add(name);
    if (s.additionalProperties === false) view.closed = true;
    for (const member of asArray(s.allOf)) visit(member, depth + 1);
  };
  visit(schema, 0);
  return objectish ? view : undefined;
}

/** The item schema of an array schema; undefined when the schema is not an array's. */
export function arrayItems(refs: RefResolver, schema: unknown): unknown {
  const s = resolved(refs, schema);
  const isArray =
    s.type === "array" ||
    (Array.isArray(s.type) && s.type.includes("array")) ||
    (s.type === undefined && s.items !== undefined);
  if (!isArray) return undefined;
  return s.items ?? {};
}

/** The property of `view` whose name, compared by `norm`, is the first of `names` it has. */
export function propertyNamed(view: ObjectView, names: readonly string[]): string | undefined {
  const byNorm = new Map([...view.properties.keys()].map((k) => [norm(k), k]));
  for (const name of names) {
    const found = byNorm.get(norm(name));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Objects APIs keep paging fields in, searched one level down after the top. */
const CONTAINERS = ["meta", "pagination", "paging", "pageinfo", "page", "links", "cursor", "metadata", "info"];

/** A field named one of `names` at the top of `view` or one level into a container: its dotted path and schema. */
export function findField(
  refs: RefResolver,
  view: ObjectView,
  names: readonly string[],
  accept: (schema: unknown) => boolean = () => true,
): { path: string; schema: unknown } | undefined {
  const top = propertyNamed({ ...view, properties: new Map([...view.properties].filter(([, s]) => accept(s))) }, names);
  if (top !== undefined) return { path: top, schema: view.properties.get(top) };
  for (const [name, sub] of view.properties) {
    if (!CONTAINERS.includes(norm(name))) continue;
    const inner = objectView(refs, sub);
    if (!inner) continue;
    const found = propertyNamed(
      { ...inner, properties: new Map([...inner.properties].filter(([, s]) => accept(s))) },
      names,
    );
    if (found !== undefined) return { path: `${name}.${found}`, schema: inner.properties.get(found) };
  }
  return undefined;
}

/** Whether two schemas are the same component (or the same inline node). */
export function sameSchema(refs: RefResolver, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ra = refOf(refs, a);
  return ra !== undefined && ra === refOf(refs, b);
}
