/**
 * Comparing two versions of a service: the surface pass (compare.ts) on their surfaces, then the
 * checker pass (typecheck.ts) on the declarations of the operations whose schemas changed. Two
 * entry points: `compareWithDisk` for `generate` (what is about to be written against what is in
 * the output folder) and `compareSpecs` for `stepforge diff` (two spec documents, nothing on disk).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { GeneratedFile } from "../emit/file.js";
import type { ServiceModel, SurfaceModel } from "../model.js";
import type { Change, ServiceReport } from "./change.js";
import { checkInProcess, type CheckPass } from "./checker-thread.js";
import { compareSurfaces, type TypedPair } from "./compare.js";
import type { Declarations } from "./program.js";
import { checkerInputOf } from "./spec-declarations.js";
import { textIds } from "./digest.js";
import { parseSurface, SURFACE_FILE, surfaceOf, surfaceText, type ServiceSurface } from "./surface.js";

export type { Change, ServiceReport } from "./change.js";

/** One side of a comparison. */
export interface Version {
  surface: ServiceSurface;
}

/** The checker pass over the pairs the surface pass found with changed schemas. */
type CheckChanged = (pairs: TypedPair[]) => Promise<Change[]>;

export async function compareVersions(
  service: string,
  old: Version | undefined,
  now: Version | undefined,
  check: CheckChanged = async () => [],
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
  // The compiler is asked only when a schema changed (renames, tool steps and auth need none of it).
  if (pairs.length > 0) changes.push(...(await check(pairs)));
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
      if (!existsSync(join(dir, "client.ts"))) reports.push(await compareVersions(model.id, undefined, { surface }));
      continue;
    }
    const runtimeImport = runtimeImportOf(model.id);
    const declarations = (types?: string, client?: string): Declarations | undefined =>
      types && client ? { types, client: withRuntimeImport(client, runtimeImport) } : undefined;
    const check: CheckChanged = async (pairs) => {
      const old = declarations(read("types.ts"), read("client.ts"));
      const now = declarations(content.get(`${model.id}/types.ts`), content.get(`${model.id}/client.ts`));
      if (!old || !now) return [];
      return checkInProcess({ old, now, oldClass: previous.client, newClass: surface.client, pairs });
    };
    reports.push(await compareVersions(model.id, { surface: previous }, { surface }, check));
  }
  return { reports, surfaces, versions };
}

/** Points the runtime import of a generated client at `stepforge/runtime`, wherever it was generated. */
function withRuntimeImport(client: string, runtimeImport: string): string {
  if (runtimeImport === "stepforge/runtime") return client;
  return client.split(`from ${JSON.stringify(runtimeImport)};`).join('from "stepforge/runtime";');
}

/**
 * `stepforge diff`: two checked specs of one service. `check` runs the checker pass (in this thread
 * unless the caller started checker-thread.ts's worker early).
 */
export async function compareSpecs(
  old: SurfaceModel,
  now: SurfaceModel,
  check: CheckPass = checkInProcess,
): Promise<ServiceReport> {
  // Neither surface is written: their fingerprints need only tell texts apart, not outlive the run.
  const digest = textIds();
  const [oldSurface, nowSurface] = [
    surfaceOf(old, old.spec.file, undefined, digest),
    surfaceOf(now, now.spec.file, undefined, digest),
  ];
  return compareVersions(now.id, { surface: oldSurface }, { surface: nowSurface }, async (pairs) =>
    check(
      await checkerInputOf({ model: old, client: oldSurface.client }, { model: now, client: nowSurface.client }, pairs),
    ),
  );
}
