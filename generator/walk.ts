/**
 * A walk of an OpenAPI 3.0/3.1 document by position: what a node is (a schema, a parameter, a
 * response, …) follows from where it sits, never from its key. A parameter component named
 * `schema` (`#/components/parameters/schema`) is a parameter, and a property named `schema` is a
 * schema; a walk that looked for `schema` keys took the first for a schema and missed nothing of
 * the second only by luck.
 *
 * Every schema node is visited (roots and subschemas, a `$ref` node included), and every `$ref`
 * with the kind of object its place expects, so callers can tell a reference to a named component
 * (`#/components/schemas/Tag`) from one into another node's inside (`#/components/schemas/Tag/allOf/0`).
 * Examples, `enum`, `const` and `default` values are data: a `$ref` key inside them is no reference.
 */
import { isObject, type Json } from "./refs.js";

export type Path = Array<string | number>;

/** What a place in the document holds. */
export type NodeKind =
  | "schema"
  | "parameter"
  | "header"
  | "requestBody"
  | "response"
  | "pathItem"
  | "callback"
  | "example"
  | "link"
  | "securityScheme";

/** Keywords whose value is one schema. */
export const ONE_SCHEMA = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
  "additionalItems",
];
/** Keywords whose value is a list of schemas. */
export const SCHEMA_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** The `components` section that holds named objects of each kind. */
export const COMPONENT_SECTION: Record<NodeKind, string> = {
  schema: "schemas",
  parameter: "parameters",
  header: "headers",
  requestBody: "requestBodies",
  response: "responses",
  pathItem: "pathItems",
  callback: "callbacks",
  example: "examples",
  link: "links",
  securityScheme: "securitySchemes",
};

/** How a schema keyword's value holds subschemas (one lookup per key instead of three list scans). */
const SUBSCHEMAS = new Map<string, "one" | "list" | "map">([
  ...ONE_SCHEMA.map((key) => [key, "one"] as const),
  ...SCHEMA_LIST.map((key) => [key, "list"] as const),
  ...SCHEMA_MAP.map((key) => [key, "map"] as const),
]);

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface DocumentVisitor {
  /** Each schema node, at its path. */
  schema?(node: Json, at: Path): void;
  /** Each `$ref` (a string), at the path of the object that holds it, with the kind its place expects. */
  ref?(ref: string, kind: NodeKind, at: Path): void;
}

/** Deeper than any document the loader accepts (256 levels): a guard, not a limit a spec meets. */
const MAX_DEPTH = 400;

export function walkDocument(doc: Json, visitor: DocumentVisitor): void {
  const w = new Walker(visitor);
  const components = isObject(doc.components) ? doc.components : {};
  for (const [kind, section] of Object.entries(COMPONENT_SECTION) as Array<[NodeKind, string]>) {
    const named = components[section];
    if (!isObject(named)) continue;
    for (const [name, node] of Object.entries(named)) w.node(kind, node, ["components", section, name]);
  }
  for (const top of ["paths", "webhooks"]) {
    const items = doc[top];
    if (!isObject(items)) continue;
    for (const [key, item] of Object.entries(items)) {
      if (!key.startsWith("x-")) w.node("pathItem", item, [top, key]);
    }
  }
}

class Walker {
  constructor(private readonly visitor: DocumentVisitor) {}

  /** A node of `kind`; a `$ref` in its place is reported and not followed (its target is visited where it sits). */
  node(kind: NodeKind, node: unknown, at: Path): void {
    if (!isObject(node) || at.length > MAX_DEPTH) return;
    if (kind === "schema") return this.schema(node, at);
    if (typeof node.$ref === "string") {
      this.visitor.ref?.(node.$ref, kind, at);
      return;
    }
    switch (kind) {
      case "parameter":
      case "header":
        this.node("schema", node.schema, [...at, "schema"]);
        this.content(node.content, [...at, "content"]);
        return;
      case "requestBody":
        this.content(node.content, [...at, "content"]);
        return;
      case "response":
        this.map("header", node.headers, [...at, "headers"]);
        this.content(node.content, [...at, "content"]);
        this.map("link", node.links, [...at, "links"]);
        return;
      case "pathItem":
        this.list("parameter", node.parameters, [...at, "parameters"]);
        for (const method of METHODS) this.operation(node[method], [...at, method]);
        return;
      case "callback":
        this.map("pathItem", node, at);
        return;
      default:
        return;
    }
  }

  private operation(op: unknown, at: Path): void {
    if (!isObject(op)) return;
    this.list("parameter", op.parameters, [...at, "parameters"]);
    this.node("requestBody", op.requestBody, [...at, "requestBody"]);
    this.map("response", op.responses, [...at, "responses"]);
    this.map("callback", op.callbacks, [...at, "callbacks"]);
  }

  /** Media types: their schema, and the headers of their encodings. */
  private content(content: unknown, at: Path): void {
    if (!isObject(content)) return;
    for (const [type, media] of Object.entries(content)) {
      if (!isObject(media)) continue;
      this.node("schema", media.schema, [...at, type, "schema"]);
      if (!isObject(media.encoding)) continue;
      for (const [part, encoding] of Object.entries(media.encoding)) {
        if (isObject(encoding)) this.map("header", encoding.headers, [...at, type, "encoding", part, "headers"]);
      }
    }
  }

  /** A map of named nodes; `x-` keys are extensions in OpenAPI's maps, but names like any other in a schema's. */
  private map(kind: NodeKind, map: unknown, at: Path, extensions = kind !== "schema"): void {
    if (!isObject(map)) return;
    for (const [key, node] of Object.entries(map))
      if (!(extensions && key.startsWith("x-"))) this.node(kind, node, [...at, key]);
  }

  private list(kind: NodeKind, list: unknown, at: Path): void {
    if (Array.isArray(list)) list.forEach((node, i) => this.node(kind, node, [...at, i]));
  }

  /** A schema and its subschemas; keys beside a `$ref` are walked too (3.1 allows them). */
  private schema(node: Json, at: Path): void {
    this.visitor.schema?.(node, at);
    if (typeof node.$ref === "string") this.visitor.ref?.(node.$ref, "schema", at);
    for (const key of Object.keys(node)) {
      const value = node[key];
      const holds = SUBSCHEMAS.get(key);
      if (holds === "one") {
        // `items: [ … ]`: a draft-4 tuple, a list of schemas.
        if (Array.isArray(value)) this.list("schema", value, [...at, key]);
        else this.node("schema", value, [...at, key]);
      } else if (holds === "list") this.list("schema", value, [...at, key]);
      else if (holds === "map") this.map("schema", value, [...at, key]);
      else if (key === "dependencies" && isObject(value)) {
        // draft 7: a property's dependency is a list of names or a schema.
        for (const [name, dep] of Object.entries(value))
          if (isObject(dep)) this.node("schema", dep, [...at, key, name]);
      }
    }
  }
}
