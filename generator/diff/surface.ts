/**
 * The public surface of one service, as a consumer of the generated package meets it: operations
 * (by method and path, with their operationIds, parameters and the fingerprints of their request
 * and response schemas), agent tool steps (names, fields, descriptions), toolsets, triggers and
 * auth. Built from the check stage's model only, so it is the same for a spec on disk, a git
 * revision or the live path.
 *
 * `generate` writes it beside each service's code (`<service>/surface.json`), which is how the next
 * `generate` knows what was there before and how `stepforge migrate` knows the names an operation,
 * parameter or tool step was known by (`formerly`): those are the only facts in it that do not come
 * from the spec alone, and they are carried from the previous surface.
 */
import type { AuthSpec } from "../../runtime/descriptor.js";
import { pascal } from "../emit/file.js";
import type { SurfaceModel, ToolFieldModel } from "../model.js";
import { isObject, type RefResolver } from "../refs.js";
import { type Digest, sha } from "./digest.js";

export const SURFACE_FILE = "surface.json";
const FORMAT = 1;
/**
 * How schemas are fingerprinted. 2: properties named like documentation keywords count (1 left out a
 * field named `title` or `description`). Hashes of different schemes are not compared (compare.ts).
 */
export const FINGERPRINTS = 2;

export interface ParameterSurface {
  name: string;
  in: string;
  required: boolean;
  /** Fingerprint of the value's schema (documentation keywords left out). */
  schema: string;
  formerly?: string[];
}

export interface OperationSurface {
  operationId: string;
  method: string;
  path: string;
  deprecated?: true;
  parameters: ParameterSurface[];
  body?: { required: boolean; contentTypes: string[]; schema: string };
  response: { status: number; mediaType?: string; schema: string };
  formerly?: string[];
}

/** What a tool field accepts, enough to tell a narrower field from a wider one. */
export interface FieldSchemaSummary {
  hash: string;
  types?: string[];
  enum?: unknown[];
}

export interface ToolFieldSurface {
  name: string;
  required: boolean;
  description: string;
  schema: FieldSchemaSummary;
}

export interface ToolSurface {
  name: string;
  title: string;
  description: string;
  /** The operation it calls ("" for the API Call step). */
  operationId: string;
  readOnly: boolean;
  destructive: boolean;
  fields: ToolFieldSurface[];
  formerly?: string[];
}

export interface TriggerSurface {
  name: string;
  kind: string;
  title: string;
  description: string;
  options: Record<string, { type: string; required: boolean; values?: string[] }>;
  /** Fingerprint of what makes it fire (watch, match, filters, polling). */
  rule: string;
}

export interface AuthSurface {
  kind: string;
  modes: string[];
  fields: Record<string, { required: boolean; secret: boolean }>;
  baseUrl: string;
  /** Fingerprint of everything else (placements, token endpoints, scopes). */
  settings: string;
}

export interface ServiceSurface {
  $comment: string;
  format: number;
  /** The fingerprint scheme of its hashes (absent: 1). */
  fingerprints?: number;
  service: string;
  title: string;
  version: string;
  /** The typed client's class name. */
  client: string;
  operations: OperationSurface[];
  tools: ToolSurface[];
  toolsets: Record<string, string[]>;
  triggers: TriggerSurface[];
  auth: AuthSurface;
  /** Operations and tool steps removed from the spec, so migrate can name them. */
  removed?: { operations?: Array<{ operationId: string; method: string; path: string }>; tools?: string[] };
}

/** Keywords that change documentation, not the values a type accepts. */
const DOC_KEYWORDS = new Set([
  "description",
  "title",
  "summary",
  "example",
  "examples",
  "externalDocs",
  "deprecated",
  "$comment",
]);

/** Keywords whose value is a map of names to schemas: the names are data, whatever they are called. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value is one schema (or, for `items` in OpenAPI 3.0 tuples, a list of them). */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "contentSchema",
]);

/** A JSON value with its keys in order: enum values, defaults and extensions are data, kept whole. */
const canonicalValue = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(canonicalValue);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.keys(node)
      .sort()
      .map((key) => [key, canonicalValue(node[key])]),
  );
};

/**
 * Fingerprints of schemas: equal when the schemas accept the same shapes as written. A `$ref`
 * counts as the fingerprint of its target (computed once per component), so a change inside a
 * component changes every schema that uses it; a cycle counts as the name of its reference.
 * Documentation keywords are left out where they are keywords: a property named `description` is
 * a field like any other, and so is an enum value holding one.
 */
export function schemaFingerprinter(refs: RefResolver, digest: Digest = sha): (schema: unknown) => string {
  const byRef = new Map<string, string>();
  const open = new Set<string>();
  // Tool fields share their schemas with the parameters and bodies they map to: each is hashed once.
  const bySchema = new WeakMap<object, string>();
  const canonical = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(canonical);
    if (!isObject(node)) return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      let hash = byRef.get(ref);
      if (hash === undefined) {
        if (open.has(ref)) return { $cycle: ref };
        open.add(ref);
        hash = digest(JSON.stringify(canonical(refs.pointer(ref)) ?? null));
        open.delete(ref);
        byRef.set(ref, hash);
      }
      const { $ref: _ref, ...siblings } = node;
      return { $ref: hash, ...(canonical(siblings) as object) };
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node).sort()) {
      if (DOC_KEYWORDS.has(key)) continue;
      const value = node[key];
      if (SCHEMA_MAPS.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((name) => [name, canonical(value[name])]),
        );
      } else if (SCHEMA_LISTS.has(key) || SCHEMA_VALUES.has(key)) out[key] = canonical(value);
      else out[key] = canonicalValue(value);
    }
    return out;
  };
  return (schema) => {
    const known = isObject(schema) ? bySchema.get(schema) : undefined;
    if (known !== undefined) return known;
    const hash = digest(JSON.stringify(canonical(schema) ?? null));
    if (isObject(schema)) bySchema.set(schema, hash);
    return hash;
  };
}

function fieldSummary(
  field: ToolFieldModel,
  refs: RefResolver,
  fingerprint: (s: unknown) => string,
): FieldSchemaSummary {
  // A union (oneOf/anyOf) accepts what any branch accepts: its types and enum values are theirs together.
  const top = refs.deref(field.schema);
  const branches = [...(Array.isArray(top.oneOf) ? top.oneOf : []), ...(Array.isArray(top.anyOf) ? top.anyOf : [])].map(
    (b) => refs.deref(b),
  );
  const types = new Set<string>();
  const values: unknown[] = [];
  let enumerated = false;
  for (const schema of branches.length > 0 ? branches : [top]) {
    const type = schema.type;
    for (const t of typeof type === "string" ? [type] : Array.isArray(type) ? type : [])
      if (typeof t === "string") types.add(t);
    const listed = Array.isArray(schema.enum) ? schema.enum : schema.const !== undefined ? [schema.const] : undefined;
    if (listed) {
      enumerated = true;
      values.push(...listed);
    }
  }
  return {
    hash: fingerprint(field.schema),
    ...(types.size > 0 ? { types: [...types].sort() } : {}),
    ...(enumerated ? { enum: values } : {}),
  };
}

function authSurface(model: SurfaceModel, digest: Digest): AuthSurface {
  const auth: AuthSpec = model.descriptor.auth;
  const { connection } = model.descriptor;
  const modes = auth.kind === "api-key" ? Object.keys(auth.modes).sort() : [auth.kind];
  const fields = Object.fromEntries(
    Object.entries(connection.fields)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, f]) => [name, { required: f.required, secret: f.secret }]),
  );
  return { kind: auth.kind, modes, fields, baseUrl: connection.baseUrl, settings: digest(JSON.stringify(auth)) };
}

/**
 * The surface of `model`; names it was known by come from `previous` (the surface on disk). Its
 * fingerprints are sha256 digests unless `digest` says otherwise (textIds, shared by both sides).
 */
export function surfaceOf(
  model: SurfaceModel,
  label: string,
  previous?: ServiceSurface,
  digest: Digest = sha,
): ServiceSurface {
  const fingerprint = schemaFingerprinter(model.refs, digest);
  const operations: OperationSurface[] = model.operations.map((op) => ({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    ...(op.deprecated ? { deprecated: true as const } : {}),
    parameters: op.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      schema: fingerprint(p.schema),
    })),
    ...(op.body
      ? {
          body: {
            required: op.body.required,
            contentTypes: op.body.contentTypes,
            schema: fingerprint(op.body.schema ?? null),
          },
        }
      : {}),
    response: {
      status: op.success.status,
      ...(op.success.mediaType ? { mediaType: op.success.mediaType } : {}),
      schema: fingerprint(op.success.schema ?? null),
    },
  }));
  const tools: ToolSurface[] = model.toolSteps.map((step) => ({
    name: step.name,
    title: step.title,
    description: step.description,
    operationId: step.operationId,
    readOnly: step.annotations.readOnlyHint,
    destructive: step.annotations.destructiveHint,
    fields: step.fields
      .filter((f) => !f.ignored)
      .map((f) => ({
        name: f.name,
        required: f.required,
        description: f.description ?? String(model.refs.deref(f.schema).description ?? ""),
        schema: fieldSummary(f, model.refs, fingerprint),
      })),
  }));
  if (model.apiCall) {
    const { name, config } = model.apiCall;
    tools.push({
      name,
      title: config.title,
      description: config.description,
      operationId: "",
      readOnly: false,
      destructive: true,
      fields: [],
    });
  }
  const triggers: TriggerSurface[] = (model.triggers?.triggers ?? []).map((t) => {
    const { name, kind, title, description, options, seedName: _seed, ...rule } = t;
    const opts = Object.fromEntries(
      Object.entries(options).map(([k, o]) => [
        k,
        { type: o.type, required: o.required, ...(o.values ? { values: o.values } : {}) },
      ]),
    );
    return { name, kind, title, description, options: opts, rule: digest(JSON.stringify(rule)) };
  });
  const surface: ServiceSurface = {
    $comment:
      `Generated by stepforge from ${label} - do not edit. The public surface ` +
      `generate and migrate compare against.`,
    format: FORMAT,
    fingerprints: FINGERPRINTS,
    service: model.id,
    title: model.title,
    version: model.version,
    client: `${pascal(model.id)}Client`,
    operations,
    tools,
    toolsets: Object.fromEntries(model.toolsets.map((t) => [t.name, [...t.steps]])),
    triggers,
    auth: authSurface(model, digest),
  };
  return previous ? carryHistory(surface, previous) : surface;
}

/** Normalised key of an operation: method and path with parameter names left out. */
export const operationKey = (op: { method: string; path: string }): string =>
  `${op.method.toUpperCase()} ${op.path.replace(/\{[^}]*\}/g, "{}")}`;

const merged = (...lists: Array<readonly string[] | undefined>): string[] => [
  ...new Set(lists.flatMap((l) => l ?? [])),
];

/**
 * The names each operation, parameter and tool step had before, from the previous surface: an
 * operation renamed now (same method and path, new id) adds its old id; one already renamed keeps
 * its list. A name in use again by something else is dropped: the current name wins.
 */
function carryHistory(surface: ServiceSurface, previous: ServiceSurface): ServiceSurface {
  const oldByKey = new Map(previous.operations.map((op) => [operationKey(op), op]));
  const oldById = new Map(previous.operations.map((op) => [op.operationId, op]));
  const current = new Set(surface.operations.map((op) => op.operationId));
  for (const op of surface.operations) {
    const old = oldByKey.get(operationKey(op)) ?? oldById.get(op.operationId);
    if (!old) continue;
    const names = merged(old.formerly, [old.operationId]).filter((n) => n !== op.operationId && !current.has(n));
    if (names.length > 0) op.formerly = names;
    const renames = parameterRenames(old, op);
    for (const param of op.parameters) {
      const before = old.parameters.find(
        (p) => p.in === param.in && p.name === (renames.get(`${param.in} ${param.name}`) ?? param.name),
      );
      const own = new Set(op.parameters.filter((p) => p.in === param.in).map((p) => p.name));
      const was = merged(before?.formerly, before ? [before.name] : []).filter((n) => !own.has(n));
      if (was.length > 0) param.formerly = was;
    }
  }
  const toolNames = new Set(surface.tools.map((t) => t.name));
  const oldTools = new Map(previous.tools.map((t) => [t.name, t]));
  for (const [tool, oldName] of toolRenames(previous, surface)) {
    const old = oldTools.get(oldName)!;
    const names = merged(old.formerly, [old.name]).filter((n) => !toolNames.has(n));
    if (names.length > 0) tool.formerly = names;
  }
  for (const tool of surface.tools) {
    const same = oldTools.get(tool.name);
    if (same?.formerly && !tool.formerly) tool.formerly = same.formerly.filter((n) => !toolNames.has(n));
    if (tool.formerly?.length === 0) delete tool.formerly;
  }
  const gone = previous.operations
    .filter((op) => !oldByKeyMatched(op, surface))
    .map(({ operationId, method, path }) => ({ operationId, method, path }));
  const removedOps = [...(previous.removed?.operations ?? []), ...gone].filter(
    (op, i, all) => !current.has(op.operationId) && all.findIndex((o) => o.operationId === op.operationId) === i,
  );
  const renamedTools = new Set(surface.tools.flatMap((t) => t.formerly ?? []));
  const removedTools = merged(
    previous.removed?.tools,
    previous.tools.map((t) => t.name),
  ).filter((n) => !toolNames.has(n) && !renamedTools.has(n));
  if (removedOps.length > 0 || removedTools.length > 0) {
    surface.removed = {
      ...(removedOps.length > 0 ? { operations: removedOps } : {}),
      ...(removedTools.length > 0 ? { tools: removedTools.sort() } : {}),
    };
  }
  return surface;
}

function oldByKeyMatched(old: OperationSurface, surface: ServiceSurface): boolean {
  return surface.operations.some((op) => operationKey(op) === operationKey(old) || op.operationId === old.operationId);
}

/**
 * Parameters renamed between two versions of one operation, as "in newName" → old name: a path
 * parameter at the same place in the path template, or the only parameter removed and the only
 * one added in the same place (query, header, cookie) with the same schema and required-ness.
 */
export function parameterRenames(old: OperationSurface, now: OperationSurface): Map<string, string> {
  const renames = new Map<string, string>();
  const names = (path: string) => [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
  if (operationKey(old) === operationKey(now)) {
    const [before, after] = [names(old.path), names(now.path)];
    before.forEach((name, i) => {
      if (after[i] !== undefined && after[i] !== name) renames.set(`path ${after[i]}`, name);
    });
  }
  for (const place of ["query", "header", "cookie"]) {
    const was = old.parameters.filter((p) => p.in === place);
    const is = now.parameters.filter((p) => p.in === place);
    const removed = was.filter((p) => !is.some((q) => q.name === p.name));
    const added = is.filter((p) => !was.some((q) => q.name === p.name));
    if (
      removed.length === 1 &&
      added.length === 1 &&
      removed[0]!.schema === added[0]!.schema &&
      removed[0]!.required === added[0]!.required
    ) {
      renames.set(`${place} ${added[0]!.name}`, removed[0]!.name);
    }
  }
  return renames;
}

/**
 * Tool steps renamed, as new step → old name: a step gone and a step new that call the same
 * operation (through its rename, if any), one each.
 */
export function toolRenames(previous: ServiceSurface, surface: ServiceSurface): Map<ToolSurface, string> {
  const renames = new Map<ToolSurface, string>();
  const newIdOf = new Map<string, string>();
  const nowByKey = new Map(surface.operations.map((op) => [operationKey(op), op.operationId]));
  for (const op of previous.operations) newIdOf.set(op.operationId, nowByKey.get(operationKey(op)) ?? op.operationId);
  const gone = previous.tools.filter((t) => !surface.tools.some((n) => n.name === t.name));
  const fresh = surface.tools.filter((t) => !previous.tools.some((o) => o.name === t.name));
  for (const tool of fresh) {
    if (tool.operationId === "") {
      const apiCall = gone.filter((t) => t.operationId === "");
      if (apiCall.length === 1) renames.set(tool, apiCall[0]!.name);
      continue;
    }
    const candidates = gone.filter((t) => t.operationId !== "" && newIdOf.get(t.operationId) === tool.operationId);
    const rivals = fresh.filter((t) => t.operationId === tool.operationId);
    if (candidates.length === 1 && rivals.length === 1) renames.set(tool, candidates[0]!.name);
  }
  return renames;
}

/** surface.json as written: indented JSON, each object or list that fits in 100 columns on one line. */
export function surfaceText(surface: ServiceSurface): string {
  const write = (value: unknown, indent: string): string => {
    const flat = JSON.stringify(value);
    if (value === null || typeof value !== "object" || flat.length + indent.length <= 100) return flat;
    const inner = `${indent}  `;
    const items = Array.isArray(value)
      ? value.map((item) => `${inner}${write(item, inner)}`)
      : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${write(item, inner)}`);
    return Array.isArray(value) ? `[\n${items.join(",\n")}\n${indent}]` : `{\n${items.join(",\n")}\n${indent}}`;
  };
  return `${write(surface, "")}\n`;
}

/** A surface read back from disk, or undefined when the file is absent, unreadable or of another format. */
export function parseSurface(text: string): ServiceSurface | undefined {
  try {
    const data = JSON.parse(text) as ServiceSurface;
    return data && data.format === FORMAT && Array.isArray(data.operations) && Array.isArray(data.tools)
      ? data
      : undefined;
  } catch {
    return undefined;
  }
}
