/**
 * Comparing two versions of a service: the surface pass (compare.ts) on their surfaces, then the
 * checker pass (typecheck.ts) on the declarations of the operations whose schemas changed. Two
 * entry points: `compareWithDisk` for `generate` (what is about to be written against what is in
 * the output folder) and `compareSpecs` for `stepforge diff` (two spec documents, nothing on disk).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { GeneratedFile } from "../emit/file.js";
import type { ServiceModel } from "../model.js";
import { asObject, isObject } from "../refs.js";
import type { Change, ServiceReport } from "./change.js";
import { checkInProcess, type CheckPass } from "./checker-thread.js";
import { compareSurfaces, type TypedPair } from "./compare.js";
import { writeDeclarations } from "./declarations.js";
import type { Declarations } from "./program.js";
import {
  parseSurface,
  SURFACE_FILE,
  surfaceOf,
  surfaceText,
  type OperationSurface,
  type ServiceSurface,
} from "./surface.js";

export type { Change, ServiceReport } from "./change.js";

/** One side of a comparison: its surface and, when the checker needs them, its declarations. */
export interface Version {
  surface: ServiceSurface;
  declarations: (pairs: TypedPair[], side: "old" | "now") => Promise<Declarations | undefined>;
}

export async function compareVersions(
  service: string,
  old: Version | undefined,
  now: Version | undefined,
  check: CheckPass = checkInProcess,
): Promise<ServiceReport> {
  if (!old || !now) {
    const surface = (now ?? old)!.surface;
    const verb = now ? "added" : "removed";
    const changes: Change[] = [
      {
        kind: now ? "operation-added" : "operation-removed",
        breaking: !now,
        decidedBy: "model",
        target: service,
        detail: `service ${verb} (${surface.operations.length} operations, ${surface.tools.length} tool steps)`,
      },
    ];
    return { service, status: now ? "added" : "removed", changes, checked: 0 };
  }
  const { changes, pairs } = compareSurfaces(old.surface, now.surface);
  if (pairs.length > 0) {
    const [before, after] = await Promise.all([old.declarations(pairs, "old"), now.declarations(pairs, "now")]);
    // In process, the compiler loads only when a schema changed (renames, tool steps and auth need none of it).
    if (before && after)
      changes.push(
        ...(await check({ old: before, now: after, oldClass: old.surface.client, newClass: now.surface.client, pairs })),
      );
  }
  return { service, status: "changed", changes, checked: pairs.length };
}

/**
 * `generate`: each service about to be written against its surface and declarations in `outDir`.
 * Also returns the surface files to write with the rest (names carried over from the old ones).
 */
export async function compareWithDisk(
  outDir: string,
  models: readonly ServiceModel[],
  files: readonly GeneratedFile[],
  runtimeImportOf: (serviceId: string) => string,
  labelOf: (model: ServiceModel) => string,
): Promise<{ reports: ServiceReport[]; surfaces: GeneratedFile[]; versions: Map<string, string> }> {
  const reports: ServiceReport[] = [];
  const surfaces: GeneratedFile[] = [];
  const versions = new Map<string, string>();
  const content = new Map(files.map((f) => [f.path, f.content]));
  for (const model of models) {
    const dir = join(outDir, model.id);
    const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : undefined);
    const previous = parseSurface(read(SURFACE_FILE) ?? "");
    const surface = surfaceOf(model, labelOf(model), previous);
    surfaces.push({ path: `${model.id}/${SURFACE_FILE}`, content: surfaceText(surface) });
    if (previous) versions.set(model.id, previous.version);
    if (!previous) {
      // A first run (or an output folder from before surfaces): there is nothing to compare with.
      if (!existsSync(join(dir, "client.ts")))
        reports.push(await compareVersions(model.id, undefined, { surface, declarations: async () => undefined }));
      continue;
    }
    const runtimeImport = runtimeImportOf(model.id);
    const fromDisk = async (): Promise<Declarations | undefined> => {
      const [types, client] = [read("types.ts"), read("client.ts")];
      return types && client ? { types, client: withRuntimeImport(client, runtimeImport) } : undefined;
    };
    const fromRun = async (): Promise<Declarations | undefined> => {
      const [types, client] = [content.get(`${model.id}/types.ts`), content.get(`${model.id}/client.ts`)];
      return types && client ? { types, client: withRuntimeImport(client, runtimeImport) } : undefined;
    };
    reports.push(
      await compareVersions(
        model.id,
        { surface: previous, declarations: fromDisk },
        { surface, declarations: fromRun },
      ),
    );
  }
  return { reports, surfaces, versions };
}

/** Points the runtime import of a generated client at `stepforge/runtime`, wherever it was generated. */
function withRuntimeImport(client: string, runtimeImport: string): string {
  if (runtimeImport === "stepforge/runtime") return client;
  return client.split(`from ${JSON.stringify(runtimeImport)};`).join('from "stepforge/runtime";');
}

/**
 * The document openapi-typescript types for the checker: only the paths of the operations it
 * compares (their declarations are all it reads), with the components those reach.
 */
function prunedTypesDocument(model: ServiceModel, paths: ReadonlySet<string>): Record<string, unknown> {
  const doc = model.typesDocument;
  const kept = Object.fromEntries(Object.entries(asObject(doc.paths) ?? {}).filter(([path]) => paths.has(path)));
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
async function declarationsOf(model: ServiceModel, pairs: readonly OperationSurface[]): Promise<Declarations> {
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
  if (written !== undefined) return { types: written, client: client!.content };
  const { emitTypes } = await import("../emit/types.js");
  const [types] = await emitTypes(pruned, context);
  return { types: types!.content, client: client!.content };
}

/**
 * `stepforge diff`: two checked specs of one service. `check` runs the checker pass (in this thread
 * unless the caller started checker-thread.ts's worker early).
 */
export async function compareSpecs(
  old: ServiceModel,
  now: ServiceModel,
  check: CheckPass = checkInProcess,
): Promise<ServiceReport> {
  const version = (model: ServiceModel, surface: ServiceSurface): Version => ({
    surface,
    declarations: (pairs, side) =>
      declarationsOf(
        model,
        pairs.map((p) => (side === "old" ? p.old : p.now)),
      ),
  });
  const oldSurface = surfaceOf(old, old.spec.file);
  return compareVersions(now.id, version(old, oldSurface), version(now, surfaceOf(now, now.spec.file)), check);
}
