/**
 * The type nodes generator/diff/declarations.ts builds and how they print, as openapi-typescript
 * builds and prints them, and its shared constants.
 */
import { isObject } from "../refs.js";

type Keyword = "string" | "number" | "boolean" | "never" | "undefined" | "unknown";

/** A type as openapi-typescript builds it: the node kinds its printer parenthesizes and dedupes by. */
export type TypeNode =
  | { kind: "keyword"; name: Keyword }
  | { kind: "null" }
  | { kind: "literal"; text: string }
  | { kind: "union" | "intersection"; types: TypeNode[] }
  | { kind: "array"; element: TypeNode }
  | { kind: "tuple"; elements: TypeNode[] }
  | { kind: "object"; members: string[] }
  | { kind: "reference"; text: string };

const keyword = (name: Keyword): TypeNode => ({ kind: "keyword", name });
// Shared nodes, as openapi-typescript's constants: `nullable` is ignored on the very UNKNOWN node.
export const UNKNOWN = keyword("unknown");
export const NEVER = keyword("never");
export const STRING = keyword("string");
export const NUMBER = keyword("number");
export const BOOLEAN = keyword("boolean");
export const NULL: TypeNode = { kind: "null" };
export const EMPTY_RECORD: TypeNode = { kind: "reference", text: "Record<string, never>" };

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export const PARAMETER_PLACES = ["query", "header", "path", "cookie"] as const;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z_$0-9]*$/;

/** Keywords a union or intersection keeps once (openapi-typescript's tsDedupe), also its "primitive" test. */
export function primitiveKey(node: TypeNode): string | undefined {
  if (node.kind === "null") return "null";
  return node.kind === "keyword" && node.name !== "unknown" ? node.name : undefined;
}

function dedupe(types: TypeNode[]): TypeNode[] {
  const seen = new Set<string>();
  return types.filter((t) => {
    const key = primitiveKey(t);
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function union(types: TypeNode[]): TypeNode {
  if (types.length === 0) return NEVER;
  return types.length === 1 ? types[0]! : { kind: "union", types: dedupe(types) };
}

export function intersection(types: TypeNode[]): TypeNode {
  if (types.length === 0) return NEVER;
  return types.length === 1 ? types[0]! : { kind: "intersection", types: dedupe(types) };
}

/** `T | null` without the dedupe, as openapi-typescript's tsNullable. */
export const nullable = (type: TypeNode): TypeNode => ({ kind: "union", types: [type, NULL] });

/** A property name: a number, an identifier or a quoted string (tsPropertyIndex). */
function propertyName(key: string): string {
  if (String(Number(key)) === key && key[0] !== "-") return key;
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

export const member = (name: string, optional: boolean, type: TypeNode, readonly = false) =>
  `${readonly ? "readonly " : ""}${propertyName(name)}${optional ? "?" : ""}: ${print(type)};`;

export const objectOf = (members: string[]): TypeNode => ({ kind: "object", members });

/** Union and intersection members and array elements that are unions or intersections get parentheses. */
function operand(type: TypeNode): string {
  const text = print(type);
  return type.kind === "union" || type.kind === "intersection" ? `(${text})` : text;
}

export function print(type: TypeNode): string {
  switch (type.kind) {
    case "keyword":
      return type.name;
    case "null":
      return "null";
    case "literal":
    case "reference":
      return type.text;
    case "union":
      return type.types.map(operand).join(" | ");
    case "intersection":
      return type.types.map(operand).join(" & ");
    case "array":
      return `${operand(type.element)}[]`;
    case "tuple":
      return `[${type.elements.map(print).join(", ")}]`;
    case "object":
      return type.members.length > 0 ? `{ ${type.members.join(" ")} }` : "{}";
  }
}

/** The literal type of a JSON value (tsLiteral). */
export function literal(value: unknown): TypeNode {
  if (typeof value === "string") return { kind: "literal", text: JSON.stringify(value) };
  if (typeof value === "number") return { kind: "literal", text: value < 0 ? `-${-value}` : String(value) };
  if (typeof value === "boolean") return { kind: "literal", text: String(value) };
  if (value === null) return NULL;
  if (Array.isArray(value)) {
    return value.length === 0 ? { kind: "array", element: NEVER } : { kind: "tuple", elements: value.map(literal) };
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    return entries.length > 0 ? objectOf(entries.map(([k, v]) => member(k, false, literal(v)))) : EMPTY_RECORD;
  }
  return UNKNOWN;
}
