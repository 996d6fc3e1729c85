/**
 * The declarations `stepforge diff` hands the checker pass, emitted in memory from the two checked
 * specs for the compared operations only: one pair file (pair-file.ts) when declarations.ts writes
 * both sides' types.ts, else, for a document only openapi-typescript writes, the two clients with
 * openapi-typescript's types.ts.
 */
import type { SurfaceModel } from "../model.js";
import { asObject, isObject } from "../refs.js";
import type { TypedPair } from "./compare.js";
import { writeDeclarations } from "./declarations.js";
import { OLD_NAMESPACE, pairFileParts } from "./pair-file.js";
import type { Declarations } from "./program.js";
import { writeSharedTypes } from "./shared-components.js";
import type { OperationSurface } from "./surface.js";
import type { CheckerInput } from "./typecheck.js";

/**
 * The document openapi-typescript types for the checker: only the paths of the operations it
 * compares (their declarations are all it reads), with the components those reach.
 */
function prunedTypesDocument(
  model: SurfaceModel,
  paths: ReadonlySet<string>,
  methods?: ReadonlySet<string>,
): Record<string, unknown> {
  const doc = model.typesDocument;
  const kept = Object.fromEntries(
    Object.entries(asObject(doc.paths) ?? {})
      .filter(([path]) => paths.has(path))
      .map(([path, item]) => [path, methods ? onlyMethods(path, item, methods) : item]),
  );
  const components = asObject(doc.components) ?? {};
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      const ref = node.$ref;
      if (typeof ref === "string" && ref.startsWith("#/components/") && !reached.has(ref)) {
        reached.add(ref);
        visit(model.refs.pointer(ref));
      }
      for (const value of Object.values(node)) visit(value);
    }
  };
  visit(kept);
  // A component is kept whole when anything inside it is reached (refs may point below its root).
  const keep = (section: string, name: string) =>
    [...reached].some(
      (ref) => ref === `#/components/${section}/${name}` || ref.startsWith(`#/components/${section}/${name}/`),
    );
  const pruned = Object.fromEntries(
    Object.entries(components).map(([section, entries]) => [
      section,
      Object.fromEntries(
        Object.entries(asObject(entries) ?? {}).filter(([name]) =>
          keep(section, name.replace(/~/g, "~0").replace(/\//g, "~1")),
        ),
      ),
    ]),
  );
  return { ...doc, paths: kept, components: pruned };
}

/**
 * Declarations of `model` for the checker, emitted in memory: the compared operations only. types.ts
 * is written from the pruned document by declarations.ts (what openapi-typescript would write, without
 * loading it); a document it does not write goes to openapi-typescript itself.
 */
async function declarationsOf(model: SurfaceModel, pairs: readonly OperationSurface[]): Promise<Declarations> {
  const context = { runtimeImport: "stepforge/runtime", specLabel: model.spec.file };
  const ids = new Set(pairs.map((op) => op.operationId));
  const paths = new Set(pairs.map((op) => op.path));
  const pruned = { ...model, typesDocument: prunedTypesDocument(model, paths) };
  const { emitClient } = await import("../emit/client.js");
  const [client] = await emitClient(
    { ...model, operations: model.operations.filter((op) => ids.has(op.operationId)) },
    context,
  );
  const written = writeDeclarations(pruned.typesDocument);
  if (written !== undefined) {
    const { nameRecursiveSchemasInText } = await import("../emit/recursive-types.js");
    return { types: nameRecursiveSchemasInText(written), client: client!.content };
  }
  const { emitTypes } = await import("../emit/types.js");
  const [types] = await emitTypes(pruned, context);
  return { types: types!.content, client: client!.content };
}

/** One side of a diff: its checked model and the name of its client class. */
export interface SpecSide {
  model: SurfaceModel;
  client: string;
}

/** What the checker pass compares for `pairs`: a pair file when possible (see the header). */
export async function checkerInputOf(old: SpecSide, now: SpecSide, pairs: TypedPair[]): Promise<CheckerInput> {
  const oldOps = pairs.map((p) => p.old);
  const nowOps = pairs.map((p) => p.now);
  // Schemas that reach themselves through a union or array are named on the checker's side
  // (typecheck.ts), where TypeScript is loaded: loading it here too cost this thread a second.
  const written = writeSharedTypes(prunedFor(old.model, oldOps), prunedFor(now.model, nowOps), OLD_NAMESPACE);
  if (written !== undefined) {
    const pairFile = pairFileParts(
      { model: old.model, types: written.oldTypes },
      { model: now.model, types: written.newTypes },
      pairs,
    );
    return { pairFile, pairs };
  }
  const [before, after] = await Promise.all([declarationsOf(old.model, oldOps), declarationsOf(now.model, nowOps)]);
  return { old: before, now: after, oldClass: old.client, newClass: now.client, pairs };
}

/**
 * The types document of the compared operations for the pair file. The other methods of their
 * paths are left out too: the pair file indexes only the compared ones.
 */
function prunedFor(model: SurfaceModel, ops: readonly OperationSurface[]): Record<string, unknown> {
  const methods = new Set(ops.map((op) => `${op.method.toLowerCase()} ${op.path}`));
  return prunedTypesDocument(model, new Set(ops.map((op) => op.path)), methods);
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** A path item without the operations not in `methods` ("get /cards"); its other keys kept. */
function onlyMethods(path: string, item: unknown, methods: ReadonlySet<string>): unknown {
  if (!isObject(item)) return item;
  return Object.fromEntries(
    Object.entries(item).filter(([key]) => !HTTP_METHODS.has(key) || methods.has(`${key} ${path}`)),
  );
}
