/**
 * One normalised reading of a JSON Schema (OpenAPI 3.0 or 3.1 spelling), which every walker reads
 * instead of the raw keywords, so they cannot disagree on what a schema admits:
 *
 * - `nullable` is one flag whatever the spelling: 3.0 `nullable: true` (on the schema, beside a
 *   `$ref` or beside an `allOf`), 3.1 `type: [x, "null"]`, `null` in an `enum`, `const: null`, a
 *   `oneOf`/`anyOf` branch that admits null. `kind` is what is left without null (`"null"` only
 *   when null is all the schema admits).
 * - `$ref`s are followed; a node reached through `#/components/schemas/Name` carries `ref: "Name"`.
 *   A `$ref` with annotations beside it (description, nullable, readOnly…) is the target's node with
 *   those overlaid; with constraints beside it (3.1) it is read as `allOf: [target, siblings]`.
 * - `allOf` is merged: object members into one object (properties in member order, a later member's
 *   property replacing an earlier one's — that replacement is listed in `conflicts`; `required`
 *   united); members of one scalar kind into that kind with the tightest bounds; scalar kinds that
 *   exclude each other into `never` (listed in `conflicts`); anything else (a union beside an
 *   object…) stays an `intersection` of its member nodes. A lone member with annotations beside it
 *   (`allOf: [{ $ref: X }], nullable: true`, the 3.0 idiom) is that member with them overlaid.
 * - `readOnly`/`writeOnly` hold when written on the schema, on the `$ref` target or on an `allOf`
 *   member; a `pattern` carries whether it compiles as a JS RegExp with the `u` flag.
 *
 * Built by `SchemaNodes.node`, memoised per schema object (schemas are shared); a schema that
 * reaches itself gets the same node back, so recursion ends and walkers see the cycle as node
 * identity. Work that needs finished children (overlays, merges) waits until the outermost call
 * returns, so a cycle through `allOf` or an annotated `$ref` still reads complete nodes.
 *
 * A leaf module (no imports): the generator's check stage builds the document's nodes with it and
 * the emitters read them; the runtime (tool exports, the mock) builds nodes of the schemas it
 * holds with the same function, so both sides agree by construction.
 */

export type SchemaKind =
  | "object"
  | "array"
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "null"
  | "union"
  | "intersection"
  | "any"
  | "never";

export interface PropertyNode {
  readonly name: string;
  readonly node: SchemaNode;
  readonly required: boolean;
}

export interface SchemaBounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

export interface SchemaNode {
  kind: SchemaKind;
  nullable: boolean;
  /** The component (`#/components/schemas/<ref>`) this node was reached through. */
  ref?: string;
  description?: string;
  readOnly: boolean;
  writeOnly: boolean;
  /** Object properties in declaration order (also kept beside a union's branches). */
  properties: PropertyNode[];
  /** `false` (closed), `true` (open), a node (values must match it) or undefined (not said). */
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  /** `union`: its branches without the null ones (null is `nullable`). */
  branches?: SchemaNode[];
  unionKeyword?: "oneOf" | "anyOf" | "type";
  discriminator?: string;
  /** `intersection`: the members that could not be merged. */
  members?: SchemaNode[];
  /** The allowed values without null (null is `nullable`). */
  enum?: unknown[];
  /** Present when the schema has a non-null `const`. */
  const?: { value: unknown };
  format?: string;
  bounds: SchemaBounds;
  pattern?: { source: string; valid: boolean };
  default?: unknown;
  examples: unknown[];
  /** What `allOf` merging had to decide (a property defined twice, scalar kinds that exclude each other). */
  conflicts: string[];
}

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether `source` compiles as a JavaScript RegExp with the `u` flag (JSON Schema's reading). */
export function patternCompiles(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

/** Keywords that describe a schema without constraining it: beside a `$ref` or an `allOf` they overlay. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "nullable",
  "readOnly",
  "writeOnly",
  "deprecated",
  "example",
  "examples",
  "default",
  "externalDocs",
  "discriminator",
  "xml",
]);
const isAnnotationOnly = (s: Json): boolean =>
  Object.keys(s).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-") || (k === "type" && s.type === "null"));

const BOUND_KEYS = [
  "minimum",
  "maximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
] as const satisfies readonly (keyof SchemaBounds)[];
const LOWER = new Set<keyof SchemaBounds>(["minimum", "exclusiveMinimum", "minLength", "minItems"]);

const blank = (): SchemaNode => ({
  kind: "any",
  nullable: false,
  readOnly: false,
  writeOnly: false,
  properties: [],
  bounds: {},
  examples: [],
  conflicts: [],
});

const SCALARS = new Set<SchemaKind>(["string", "number", "integer", "boolean"]);

/** The component name of `#/components/schemas/Name`, undefined for any other pointer. */
export function componentName(ref: string): string | undefined {
  const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return undefined;
  }
}

/** Builds and memoises the nodes of one document's schemas; `resolve` finds a `$ref`'s target. */
export class SchemaNodes {
  private readonly memo = new WeakMap<object, SchemaNode>();
  /** Nodes whose fields wait for other nodes to be finished (overlays, merges). */
  private readonly pending = new Map<SchemaNode, { deps: SchemaNode[]; run: () => void }>();
  private readonly finishing = new Set<SchemaNode>();
  private depth = 0;

  constructor(private readonly resolve: (ref: string) => unknown) {}

  /** The node of `schema` (`true`/absent: any; `false`: never). */
  node(schema: unknown): SchemaNode {
    this.depth++;
    try {
      return this.build(schema);
    } finally {
      if (--this.depth === 0) for (const node of [...this.pending.keys()]) this.finish(node);
    }
  }

  private finish(node: SchemaNode): void {
    const work = this.pending.get(node);
    if (!work || this.finishing.has(node)) return;
    this.finishing.add(node);
    for (const dep of work.deps) this.finish(dep);
    this.pending.delete(node);
    this.finishing.delete(node);
    work.run();
  }

  private build(schema: unknown): SchemaNode {
    if (schema === false) return { ...blank(), kind: "never" };
    if (!isJson(schema)) return blank();
    const known = this.memo.get(schema);
    if (known) return known;
    const node = blank();
    this.memo.set(schema, node);
    if (typeof schema.$ref === "string") return this.fromRef(schema, schema.$ref, node);
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const { allOf, ...rest } = schema;
      const members = allOf.map((m) => this.build(m));
      const own = isAnnotationOnly(rest) ? undefined : this.build(rest);
      this.later(node, [...members, ...(own ? [own] : [])], () => {
        this.merge(node, members, own, rest);
        // The prose of an allOf is its own: a member's description and examples describe the member.
        node.description = str(rest.description);
        node.default = rest.default;
        node.examples = examplesOf(rest);
      });
      return node;
    }
    this.fill(node, schema);
    return node;
  }

  private later(node: SchemaNode, deps: SchemaNode[], run: () => void): void {
    this.pending.set(node, { deps, run });
  }

  private fromRef(schema: Json, ref: string, node: SchemaNode): SchemaNode {
    const { $ref: _ref, ...siblings } = schema;
    const name = componentName(ref);
    const target = this.resolve(ref);
    const targetNode = target === undefined ? blank() : this.build(target);
    if (name !== undefined && targetNode.ref === undefined && target !== undefined) targetNode.ref = name;
    if (Object.keys(siblings).length === 0) {
      this.memo.set(schema, targetNode);
      return targetNode;
    }
    if (!isAnnotationOnly(siblings)) {
      const own = this.build(siblings);
      this.later(node, [targetNode, own], () => this.merge(node, [targetNode], own, {}));
      return node;
    }
    this.later(node, [targetNode], () => overlay(node, targetNode, siblings));
    return node;
  }

  /** `allOf` merged (see the module comment); `rest` holds the keywords beside it. */
  private merge(node: SchemaNode, members: SchemaNode[], own: SchemaNode | undefined, rest: Json): void {
    const parts = own ? [...members, own] : members;
    const kinds = new Set(parts.map((p) => p.kind).filter((k) => k !== "any"));
    if (parts.length === 1) overlay(node, parts[0]!, rest);
    else if (kinds.size === 1 && kinds.has("object")) mergeObjects(node, parts);
    else if ([...kinds].every((k) => SCALARS.has(k)) && kinds.size > 0) mergeScalars(node, parts, kinds);
    else Object.assign(node, { kind: kinds.size === 0 ? "any" : "intersection", members: parts });
    if (parts.length > 1) {
      node.readOnly = parts.some((p) => p.readOnly) || rest.readOnly === true;
      node.writeOnly = parts.some((p) => p.writeOnly) || rest.writeOnly === true;
      node.description = str(rest.description) ?? parts.map((p) => p.description).find((d) => d !== undefined);
      node.nullable = ownNull(rest) || parts.every((p) => p.nullable);
    }
  }

  private fill(node: SchemaNode, s: Json): void {
    const declared = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? s.type.map(String) : [];
    let types = declared.filter((t) => t !== "null");
    const enumValues = Array.isArray(s.enum) ? s.enum : undefined;
    node.nullable = ownNull(s) || declared.includes("null");
    node.description = str(s.description);
    node.readOnly = s.readOnly === true;
    node.writeOnly = s.writeOnly === true;
    node.default = s.default;
    node.examples = examplesOf(s);
    const union = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
    if (isJson(s.properties)) {
      const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
      node.properties = Object.entries(s.properties).map(([name, p]) => ({
        name,
        node: this.build(p),
        required: required.has(name),
      }));
    }
    if (union && union.length > 0) {
      const all = union.map((b) => this.build(b));
      node.kind = "union";
      node.unionKeyword = Array.isArray(s.oneOf) ? "oneOf" : "anyOf";
      if (isJson(s.discriminator) && typeof s.discriminator.propertyName === "string")
        node.discriminator = s.discriminator.propertyName;
      // Branch kinds are read when every node is finished.
      this.later(node, all, () => {
        node.branches = all.filter((b) => b.kind !== "null");
        if (all.some((b) => b.nullable || b.kind === "null")) node.nullable = true;
      });
      return;
    }
    if (s.const !== undefined && s.const !== null) node.const = { value: s.const };
    if (s.const === null) types = [];
    if (types.length === 0 && isJson(s.properties)) types = ["object"];
    if (types.length === 0 && enumValues)
      types = [
        ...new Set(enumValues.filter((v) => v !== null).map((v) => (typeof v === "number" ? "number" : typeof v))),
      ];
    if (enumValues) node.enum = enumValues.filter((v) => v !== null);
    if (typeof s.format === "string") node.format = s.format;
    if (typeof s.pattern === "string") node.pattern = { source: s.pattern, valid: patternCompiles(s.pattern) };
    node.bounds = boundsOf(s);
    if (s.additionalProperties === true || s.additionalProperties === false)
      node.additionalProperties = s.additionalProperties;
    else if (isJson(s.additionalProperties)) node.additionalProperties = this.build(s.additionalProperties);
    if (s.items !== undefined && !Array.isArray(s.items)) node.items = this.build(s.items);
    if (types.length > 1) {
      node.kind = "union";
      node.unionKeyword = "type";
      node.branches = types.map((t) => this.build({ ...s, type: t, nullable: undefined, description: undefined }));
    } else if (types.length === 1) node.kind = kindOfType(types[0]!);
    else if (node.nullable && (declared.length > 0 || s.const === null || enumValues?.length)) node.kind = "null";
  }
}

function kindOfType(type: string): SchemaKind {
  const kinds: readonly string[] = ["object", "array", "string", "number", "integer", "boolean", "null"];
  return kinds.includes(type) ? (type as SchemaKind) : "any";
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const examplesOf = (s: Json): unknown[] =>
  Array.isArray(s.examples) ? s.examples : s.example !== undefined ? [s.example] : [];

/**
 * Null written on the schema itself: `nullable: true`, `type: "null"` or a type list with null, or
 * `null` in `enum` / `const: null` where no `type` refuses it (`type: string, enum: [a, null]`
 * admits no null in JSON Schema; 3.0 needs `nullable: true` beside it).
 */
function ownNull(s: Json): boolean {
  const typed = s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"));
  const untyped = s.type === undefined;
  const listed = (Array.isArray(s.enum) && s.enum.includes(null)) || (Object.hasOwn(s, "const") && s.const === null);
  return s.nullable === true || typed || (untyped && listed);
}

function boundsOf(s: Json): SchemaBounds {
  const out: SchemaBounds = {};
  for (const key of BOUND_KEYS) if (typeof s[key] === "number" && Number.isFinite(s[key])) out[key] = s[key];
  // 3.0 spells an exclusive bound as a flag on `minimum`/`maximum`; 3.1 as a number of its own.
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    const v = s[flag];
    if (typeof v === "number" && Number.isFinite(v)) out[flag] = v;
    else if (v === true && out[bound] !== undefined) {
      out[flag] = out[bound];
      delete out[bound];
    }
  }
  return out;
}

/** `node` becomes `target` with the annotations of `siblings` written over it. */
function overlay(node: SchemaNode, target: SchemaNode, siblings: Json): void {
  Object.assign(node, target, {
    // A component that is one annotated reference keeps its own name.
    ref: node.ref ?? target.ref,
    nullable: target.nullable || ownNull(siblings),
    readOnly: target.readOnly || siblings.readOnly === true,
    writeOnly: target.writeOnly || siblings.writeOnly === true,
    description: str(siblings.description) ?? target.description,
    default: siblings.default !== undefined ? siblings.default : target.default,
    examples: examplesOf(siblings).length ? examplesOf(siblings) : target.examples,
  });
}

function mergeObjects(node: SchemaNode, parts: SchemaNode[]): void {
  const byName = new Map<string, PropertyNode>();
  const required = new Set<string>();
  let additional: SchemaNode["additionalProperties"];
  for (const part of parts) {
    for (const p of part.properties) {
      const before = byName.get(p.name);
      if (before && before.node !== p.node)
        node.conflicts.push(`property "${p.name}" is defined again; the later wins`);
      byName.set(p.name, p);
      if (p.required) required.add(p.name);
    }
    if (part.additionalProperties !== undefined) additional = part.additionalProperties;
  }
  node.kind = "object";
  node.properties = [...byName.values()].map((p) => ({ ...p, required: required.has(p.name) }));
  node.additionalProperties = additional;
}

function mergeScalars(node: SchemaNode, parts: SchemaNode[], kinds: Set<SchemaKind>): void {
  const numeric = [...kinds].every((k) => k === "number" || k === "integer");
  if (kinds.size > 1 && !numeric) {
    node.kind = "never";
    node.conflicts.push(`allOf members are ${[...kinds].join(" and ")}, which no value is`);
    return;
  }
  node.kind = kinds.has("integer") ? "integer" : [...kinds][0]!;
  for (const part of parts) {
    for (const [key, value] of Object.entries(part.bounds) as [keyof SchemaBounds, number][]) {
      const now = node.bounds[key];
      node.bounds[key] = now === undefined ? value : LOWER.has(key) ? Math.max(now, value) : Math.min(now, value);
    }
    node.format ??= part.format;
    if (part.pattern && node.pattern && part.pattern.source !== node.pattern.source)
      node.conflicts.push(`two patterns: "${node.pattern.source}" and "${part.pattern.source}"; the first is kept`);
    node.pattern ??= part.pattern;
    if (part.enum) node.enum = node.enum ? node.enum.filter((v) => part.enum!.includes(v)) : part.enum;
    node.const ??= part.const;
  }
}

/** Nodes of schemas that hold no `$ref` (or whose references need not be followed), built once each. */
const unresolved = new SchemaNodes(() => undefined);

/** The node of a schema without references (a tool's canonical schema; a `$ref` reads as any value). */
export function nodeOf(schema: unknown): SchemaNode {
  return unresolved.node(schema);
}
