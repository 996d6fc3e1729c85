/**
 * Request types without the server's own fields. A schema that both answers and is sent (`Pet`,
 * with a `readOnly` `id` in `required`) typed the request as needing `id`: a caller had to invent
 * one that the server ignores. OpenAPI says a read-only property is not sent ("SHOULD NOT be sent
 * as part of the request"), so where a request body's schema reaches a read-only property that is
 * required, the document openapi-typescript types gets a write variant (`PetWrite`): the same
 * schema with its read-only properties no longer required, and the request body refers to it.
 * Responses keep `Pet` as it is.
 *
 * Only the types document changes, and only where needed: a spec without such a property types
 * exactly as before. Tool steps and the mock read the spec's own schemas (a step leaves read-only
 * properties out altogether; the mock does not require them in requests).
 */
import { isObject, type Json, RefResolver } from "../refs.js";
import { hasFlag } from "../schema.js";
import { ONE_SCHEMA, SCHEMA_LIST, SCHEMA_MAP } from "../walk.js";
import { METHODS } from "./methods.js";

const PREFIX = "#/components/schemas/";

/** The component a `$ref` names, when it names a whole schema component. */
function componentOf(node: Json): string | undefined {
  const ref = node.$ref;
  if (typeof ref !== "string" || !ref.startsWith(PREFIX) || ref.slice(PREFIX.length).includes("/")) return undefined;
  return ref.slice(PREFIX.length).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Each subschema of `node` (not following `$ref`s). */
function children(node: Json): unknown[] {
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (ONE_SCHEMA.includes(key)) out.push(...(Array.isArray(value) ? value : [value]));
    else if (SCHEMA_LIST.includes(key) && Array.isArray(value)) out.push(...value);
    else if (SCHEMA_MAP.includes(key) && isObject(value)) out.push(...Object.values(value));
  }
  return out;
}

class WriteVariants {
  private readonly refs: RefResolver;
  private readonly schemas: Json;
  /** Components whose request form differs: they, or a schema they refer to, require a read-only property. */
  readonly differ = new Set<string>();
  private readonly variants = new Map<string, string>();

  constructor(doc: Json) {
    this.refs = new RefResolver(doc);
    this.schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
    const direct = new Map<string, { own: boolean; uses: Set<string> }>();
    for (const [name, schema] of Object.entries(this.schemas)) direct.set(name, this.scan(schema));
    // Least fixpoint over the reference graph: differs when it or anything it uses does.
    for (let changed = true; changed; ) {
      changed = false;
      for (const [name, { own, uses }] of direct) {
        if (this.differ.has(name) || !(own || [...uses].some((u) => this.differ.has(u)))) continue;
        this.differ.add(name);
        changed = true;
      }
    }
  }

  /** Whether the subtree requires a read-only property itself, and the components it refers to. */
  scan(root: unknown): { own: boolean; uses: Set<string> } {
    const uses = new Set<string>();
    let own = false;
    const visit = (node: unknown, depth: number) => {
      if (!isObject(node) || depth > 64) return;
      const component = componentOf(node);
      if (component !== undefined) uses.add(component);
      own ||= this.readOnlyRequired(node).length > 0;
      for (const child of children(node)) visit(child, depth + 1);
    };
    visit(root, 0);
    return { own, uses };
  }

  private readOnlyRequired(node: Json): string[] {
    if (!Array.isArray(node.required) || !isObject(node.properties)) return [];
    const properties = node.properties;
    return node.required.filter(
      (name): name is string =>
        typeof name === "string" && Object.hasOwn(properties, name) && hasFlag(this.refs, properties[name], "readOnly"),
    );
  }

  /** `node` as a request sends it: read-only properties not required, differing components by their variant. */
  request(node: unknown, depth = 0): unknown {
    if (Array.isArray(node)) return node.map((item) => this.request(item, depth + 1));
    if (!isObject(node) || depth > 64) return node;
    const component = componentOf(node);
    const out: Json = { ...node };
    if (component !== undefined && this.differ.has(component))
      out.$ref = `${PREFIX}${this.variant(component).replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const readOnly = this.readOnlyRequired(node);
    if (readOnly.length > 0) out.required = (node.required as string[]).filter((name) => !readOnly.includes(name));
    for (const [key, value] of Object.entries(node)) {
      if (ONE_SCHEMA.includes(key) || SCHEMA_LIST.includes(key)) out[key] = this.request(value, depth + 1);
      else if (SCHEMA_MAP.includes(key) && isObject(value)) {
        const map: Json = {};
        for (const [name, child] of Object.entries(value))
          Object.defineProperty(map, name, {
            value: this.request(child, depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        out[key] = map;
      }
    }
    return out;
  }

  /** The name of `component`'s write variant, made on first use (`PetWrite`, numbered when taken). */
  private variant(component: string): string {
    const known = this.variants.get(component);
    if (known !== undefined) return known;
    const taken = new Set(Object.keys(this.schemas).map((n) => n.toLowerCase()));
    let name = `${component}Write`;
    for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${component}Write${i}`;
    this.variants.set(component, name);
    this.schemas[name] = {}; // claimed before it is filled: a cycle finds the name
    this.schemas[name] = this.request(this.schemas[component]);
    return name;
  }
}

/** The request bodies of the document: inline ones of every operation, and `components.requestBodies`. */
function requestBodies(doc: Json): Json[] {
  const items = [
    ...Object.values(isObject(doc.paths) ? doc.paths : {}),
    ...Object.values(isObject(doc.components) && isObject(doc.components.pathItems) ? doc.components.pathItems : {}),
  ];
  const bodies = items.flatMap((item) =>
    isObject(item) ? METHODS.map((m) => (isObject(item[m]) ? item[m].requestBody : undefined)) : [],
  );
  const named =
    isObject(doc.components) && isObject(doc.components.requestBodies)
      ? Object.values(doc.components.requestBodies)
      : [];
  return [...bodies, ...named].filter(
    (b): b is Json => isObject(b) && typeof b.$ref !== "string" && isObject(b.content),
  );
}

/** True when some request body requires a read-only property, so the types document needs write variants. */
export function needsWriteVariants(doc: Json): boolean {
  const variants = new WriteVariants(doc);
  return requestBodies(doc).some((body) =>
    Object.values(body.content as Json).some((media) => {
      if (!isObject(media)) return false;
      const { own, uses } = variants.scan(media.schema);
      return own || [...uses].some((name) => variants.differ.has(name));
    }),
  );
}

/** Rewrites `doc` (the types document's own copy) so request bodies refer to write variants. */
export function addWriteVariants(doc: Json): void {
  const variants = new WriteVariants(doc);
  for (const body of requestBodies(doc)) {
    for (const media of Object.values(body.content as Json))
      if (isObject(media) && media.schema !== undefined) media.schema = variants.request(media.schema);
  }
}
