/**
 * The document the model reads: the spec with the pattern reading applied (check/schemas.ts) and
 * every `$ref` made one that each emitter can follow by name, and `readOnly`/`writeOnly` written on
 * each property they apply to.
 *
 * A `$ref` may point at any node of the document (`#/components/schemas/Tag/allOf/0`,
 * `#/components/parameters/limit/schema`, `#/paths/~1pets/get/…/schema`). openapi-typescript prints
 * such a reference as an indexed access into the named type (`components["schemas"]["Tag"]["allOf"]["0"]`),
 * which does not type-check, and the tools emitter named its schema after the last segment (`0`).
 * So a schema reference that names no schema component becomes one that does: the node it points
 * at moves to `components.schemas` under a name made from its pointer (`Tag_allOf_0`), and a
 * `$ref` takes its old place, so there is still one definition; a target that sits in no schema
 * position (an example's value, a map) is copied there instead. A parameter, response, request
 * body or header reference that names no component of its kind is replaced by a copy of its target.
 * Types, tool steps and the mock then read the same named schemas. Meaning is unchanged.
 *
 * One spelling is read as its author meant it: `type: "null"` beside a `oneOf`/`anyOf` none of whose
 * branches admits null (Vercel's `EdgeConfigItemValue`, a 3.0 `nullable: true` converted to 3.1)
 * admits no value at all as written; it becomes the union with `{ type: "null" }` as one more
 * branch (openapi-typescript typed it `null & (…)`, and the mock refused every value).
 */
import { type Json, isObject, resolvePointer, RefResolver } from "../refs.js";
import { COMPONENT_SECTION, type NodeKind, type Path, walkDocument } from "../walk.js";
import { toPointer } from "../diagnostics.js";
import { hasFlag } from "../schema.js";
import type { PatternEdit } from "./schemas.js";

/** Rounds of rewriting: a copied target may hold references of its own. Far above any real spec. */
const MAX_ROUNDS = 20;

export function normaliseDocument(doc: Json, patternEdits: PatternEdit[]): Json {
  const { flags, nullUnions, indirectRefs } = survey(doc);
  if (patternEdits.length === 0 && flags.length === 0 && nullUnions.length === 0 && !indirectRefs) return doc;
  const copy = structuredClone(doc);
  for (const edit of patternEdits) applyPatternEdit(copy, edit);
  for (const path of nullUnions) {
    const schema = nodeAt(copy, path) as Json;
    const key = Array.isArray(schema.oneOf) ? "oneOf" : "anyOf";
    delete schema.type;
    schema[key] = [...(schema[key] as unknown[]), { type: "null" }];
  }
  for (const { path, flag } of flags) {
    const property = nodeAt(copy, path);
    if (isObject(property)) property[flag] = true;
  }
  const names = new SyntheticNames(copy);
  for (let round = 0; round < MAX_ROUNDS && rewriteRound(copy, names); round++);
  return copy;
}

/** True when `ref` names a whole component of the section `kind` lives in (`#/components/schemas/Tag`). */
export function namesComponent(ref: string, kind: NodeKind): boolean {
  const prefix = `#/components/${COMPONENT_SECTION[kind]}/`;
  return ref.startsWith(prefix) && ref.length > prefix.length && !ref.slice(prefix.length).includes("/");
}

interface Survey {
  /**
   * Properties read-only (or write-only) only through what they refer to (`{ $ref: Id }` with `Id`
   * read-only, `allOf: [{ $ref: Connection }]`): the flag is written on the property itself, as 3.1
   * allows beside a `$ref`, so every reader (tool steps, the mock's request check, the types) sees
   * it where it looks.
   */
  flags: Array<{ path: Path; flag: "readOnly" | "writeOnly" }>;
  /** Schemas whose `type` is only null beside a `oneOf`/`anyOf` with no null-typed branch. */
  nullUnions: Path[];
  /** Whether some `$ref` points into a node instead of naming a component. */
  indirectRefs: boolean;
}

/** What normalising has to change, found in one walk of the document (most documents need nothing). */
function survey(doc: Json): Survey {
  const refs = new RefResolver(doc);
  const found: Survey = { flags: [], nullUnions: [], indirectRefs: false };
  walkDocument(doc, {
    schema: (node, at) => {
      if (isObject(node.properties)) {
        for (const [name, property] of Object.entries(node.properties)) {
          if (!isObject(property)) continue;
          for (const flag of ["readOnly", "writeOnly"] as const) {
            if (property[flag] !== true && hasFlag(refs, property, flag))
              found.flags.push({ path: [...at, "properties", name], flag });
          }
        }
      }
      if (nullBesideUnion(node)) found.nullUnions.push(at);
    },
    ref: (ref, kind) => void (found.indirectRefs ||= ref.startsWith("#/") && !namesComponent(ref, kind)),
  });
  return found;
}

const onlyNull = (type: unknown) => type === "null" || (Array.isArray(type) && type.length === 1 && type[0] === "null");

/** A branch that admits null as written (or may: a reference, a schema without a type). */
const admitsNull = (branch: unknown) =>
  !isObject(branch) ||
  typeof branch.$ref === "string" ||
  branch.type === undefined ||
  onlyNull(branch.type) ||
  (Array.isArray(branch.type) && branch.type.includes("null")) ||
  branch.nullable === true;

/** `type: "null"` beside a `oneOf`/`anyOf` none of whose branches admits null. */
function nullBesideUnion(node: Json): boolean {
  const union = Array.isArray(node.oneOf) ? node.oneOf : Array.isArray(node.anyOf) ? node.anyOf : undefined;
  if (!union || !onlyNull(node.type) || node.enum !== undefined || node.const !== undefined) return false;
  return !union.some(admitsNull);
}

function nodeAt(doc: Json, path: Path): unknown {
  let node: unknown = doc;
  for (const key of path)
    node = isObject(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}

function applyPatternEdit(doc: Json, edit: PatternEdit): void {
  const holder = nodeAt(doc, edit.path.slice(0, -1));
  const key = edit.path.at(-1)!;
  if (!isObject(holder)) return;
  if (edit.kind === "pattern") {
    if (edit.value === undefined) delete holder[key];
    else holder[key] = edit.value;
    return;
  }
  // A patternProperties name: renamed in place, so the entries keep their order.
  const entries = Object.entries(holder).flatMap(
    ([name, schema]): Array<[string, unknown]> =>
      name !== key ? [[name, schema]] : edit.value === undefined ? [] : [[edit.value, schema]],
  );
  for (const name of Object.keys(holder)) delete holder[name];
  for (const [name, schema] of entries)
    Object.defineProperty(holder, name, { value: schema, enumerable: true, writable: true, configurable: true });
}

/** Names for moved schemas, from their pointers, unique among the document's schema names (case folded). */
class SyntheticNames {
  private readonly taken = new Set<string>();
  private readonly byRef = new Map<string, string>();
  readonly schemas: Json;

  constructor(doc: Json) {
    const components = isObject(doc.components) ? doc.components : (doc.components = {});
    this.schemas = isObject(components.schemas) ? components.schemas : (components.schemas = {});
    for (const name of Object.keys(this.schemas)) this.taken.add(name.toLowerCase());
  }

  known(ref: string): string | undefined {
    return this.byRef.get(ref);
  }

  /** `#/components/schemas/Tag/allOf/0` → `Tag_allOf_0`; `#/paths/~1pets/get/…` → `paths_pets_get_…`. */
  claim(ref: string): string {
    let segments = ref.slice(2).split("/").map(decodeSegment);
    if (segments[0] === "components") segments = segments.slice(segments[1] === "schemas" ? 2 : 1);
    let base = segments
      .join("_")
      .replace(/[^A-Za-z0-9_]+/g, "_")
      .replace(/_+/g, "_")
      .replace(/^_|_$/g, "");
    if (!/^[A-Za-z]/.test(base)) base = `Schema_${base}`.replace(/_$/, "");
    let name = base;
    for (let i = 2; this.taken.has(name.toLowerCase()); i++) name = `${base}_${i}`;
    this.taken.add(name.toLowerCase());
    this.byRef.set(ref, name);
    return name;
  }
}

interface Holder {
  node: Json;
  ref: string;
}

/** One pass over the document; true when it changed something (another pass may find more). */
function rewriteRound(doc: Json, names: SyntheticNames): boolean {
  const schemaPositions = new Set<string>();
  const schemaRefs: Holder[] = [];
  const otherRefs: Array<{ at: Path; kind: NodeKind }> = [];
  walkDocument(doc, {
    schema: (_node, at) => void schemaPositions.add(toPointer(at)),
    ref: (ref, kind, at) => {
      if (!ref.startsWith("#/") || namesComponent(ref, kind)) return;
      if (kind === "schema") schemaRefs.push({ node: nodeAt(doc, at) as Json, ref });
      else otherRefs.push({ at, kind });
    },
  });
  if (schemaRefs.length === 0 && otherRefs.length === 0) return false;
  const refs = new RefResolver(doc);

  // Non-schema objects: a copy of the target in place of the reference (siblings such as a 3.1
  // `description` win, as the resolver's deref does).
  for (const { at } of otherRefs) {
    const parent = nodeAt(doc, at.slice(0, -1));
    const target = refs.target(nodeAt(doc, at));
    if (!isObject(target) || !(isObject(parent) || Array.isArray(parent))) continue;
    const { $ref: _ref, ...siblings } = nodeAt(doc, at) as Json;
    (parent as Record<string | number, unknown>)[at.at(-1)!] = { ...structuredClone(target), ...siblings };
  }

  // Schemas: every target found before anything moves, then references renamed, then targets moved.
  const moves: Array<{
    parent: Record<string | number, unknown>;
    key: string | number;
    node: unknown;
    name: string;
    depth: number;
    order: number;
  }> = [];
  const copies: Array<{ name: string; node: unknown; order: number }> = [];
  const forwarded = new Map<string, string>();
  for (const ref of new Set(schemaRefs.map((h) => h.ref))) {
    if (names.known(ref) !== undefined) continue;
    const target = resolvePointer(doc, ref);
    if (target === undefined) continue; // a dangling reference: SF107 already
    // A reference to a node that is only a reference: follow it (no alias component).
    if (isObject(target) && typeof target.$ref === "string" && Object.keys(target).length === 1) {
      forwarded.set(ref, target.$ref);
      continue;
    }
    const name = names.claim(ref);
    const path = ref
      .slice(2)
      .split("/")
      .map((s) => decodeSegment(s));
    const parent = nodeAt(doc, path.slice(0, -1));
    if (schemaPositions.has(toPointer(path)) && (isObject(parent) || Array.isArray(parent))) {
      const key = Array.isArray(parent) ? Number(path.at(-1)) : path.at(-1)!;
      moves.push({
        parent: parent as Record<string | number, unknown>,
        key,
        node: target,
        name,
        depth: path.length,
        order: moves.length + copies.length,
      });
    } else copies.push({ name, node: structuredClone(target), order: moves.length + copies.length });
  }
  for (const holder of schemaRefs) {
    const name = names.known(holder.ref);
    if (name !== undefined) holder.node.$ref = `#/components/schemas/${name}`;
    else if (forwarded.has(holder.ref)) holder.node.$ref = forwarded.get(holder.ref)!;
  }
  // Deepest first: a target inside another target moves before its container carries it away.
  for (const move of [...moves].sort((a, b) => b.depth - a.depth))
    move.parent[move.key] = { $ref: `#/components/schemas/${move.name}` };
  // New components in the order their names were claimed (document order).
  for (const { name, node } of [...moves, ...copies].sort((a, b) => a.order - b.order)) names.schemas[name] = node;
  return true;
}

function decodeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // resolvePointer refused such a pointer already
  }
  return text.replace(/~1/g, "/").replace(/~0/g, "~");
}
