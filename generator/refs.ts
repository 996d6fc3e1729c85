/**
 * The one `$ref` resolver of the generator. The check stage uses it to find broken references and
 * to build the model; the model keeps it so emitters can follow a component reference inside a
 * schema without looking at the rest of the document. Only internal references (`#/…`) resolve;
 * external ones are refused by the check stage (SF106).
 */
import { setOwn } from "../runtime/internal/values.js";
import { type SchemaNode, SchemaNodes } from "../runtime/spec/schema-node.js";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown): Json | undefined {
  return isObject(value) ? value : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Longest `$ref` chain followed before giving up (a cycle of refs to refs). */
const MAX_CHAIN = 20;

/** The node a JSON pointer (`#/components/schemas/Card`) names, own keys only; undefined when absent. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  const body = ref.slice(1);
  if (body === "" || body === "/") return body === "" ? doc : asObject(doc)?.[""];
  if (!body.startsWith("/")) return undefined;
  let node: unknown = doc;
  for (const raw of body.slice(1).split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return undefined; // a malformed %-escape points at nothing
    }
    const key = decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    // Own keys only: "#/paths/constructor" must not find Object.prototype.constructor.
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= node.length) return undefined;
      node = node[Number(key)];
      continue;
    }
    const obj = asObject(node);
    if (!obj || !Object.hasOwn(obj, key)) return undefined;
    node = obj[key];
  }
  return node;
}

export class RefResolver {
  /** The document's schema nodes, built once per schema object (the check stage's, carried by the model). */
  readonly nodes: SchemaNodes;

  constructor(readonly doc: Json) {
    this.nodes = new SchemaNodes((ref) => this.pointer(ref));
  }

  /** The normalised node of `schema` (runtime/spec/schema-node.ts), which every walker reads. */
  node(schema: unknown): SchemaNode {
    return this.nodes.node(schema);
  }

  /** The target of an internal `$ref`, or undefined. */
  pointer(ref: string): unknown {
    return resolvePointer(this.doc, ref);
  }

  /**
   * `value` with its `$ref` chain followed. Keys written beside a `$ref` (3.1 allows `description`
   * there) win over the target's. Anything that is not an object becomes `{}`.
   */
  deref(value: unknown): Json {
    let node = value;
    const siblings: Json[] = [];
    for (let i = 0; i < MAX_CHAIN && isObject(node) && typeof node.$ref === "string"; i++) {
      const { $ref, ...rest } = node;
      if (Object.keys(rest).length > 0) siblings.unshift(rest);
      node = this.pointer($ref as string);
    }
    if (!isObject(node) || typeof node.$ref === "string") node = {};
    return siblings.length ? Object.assign({}, node, ...siblings) : (node as Json);
  }

  /**
   * A copy of `value` in which every `$ref` that does not point under `keep` is replaced by a copy
   * of its target. The mock ships only the spec's components, so a schema that `$ref`s into
   * `#/paths/…` (legal, and found in real specs) would point at nothing there. A ref met again
   * inside its own target (a cycle) becomes `{}`: any value.
   */
  inlineOutside(value: unknown, keep = "#/components/"): unknown {
    const walk = (node: unknown, open: Set<string>): unknown => {
      if (Array.isArray(node)) return node.map((item) => walk(item, open));
      if (!isObject(node)) return node;
      const ref = node.$ref;
      if (typeof ref === "string" && ref.startsWith("#") && !ref.startsWith(keep)) {
        if (open.has(ref)) return {};
        const { $ref: _ref, ...siblings } = node;
        const target = walk(this.pointer(ref), new Set([...open, ref]));
        return isObject(target) ? { ...target, ...(walk(siblings, open) as Json) } : (target ?? {});
      }
      const out: Json = {};
      for (const [key, child] of Object.entries(node)) setOwn(out, key, walk(child, open));
      return out;
    };
    return walk(value, new Set());
  }

  /** Follows `$ref`s without merging siblings; undefined when the chain breaks. */
  target(value: unknown): unknown {
    let node = value;
    for (let i = 0; i < MAX_CHAIN && isObject(node) && typeof node.$ref === "string"; i++)
      node = this.pointer(node.$ref);
    return isObject(node) && typeof node.$ref === "string" ? undefined : node;
  }
}
