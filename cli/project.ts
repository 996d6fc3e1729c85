/**
 * Which services a command works on. In order:
 * 1. `--spec FILE` (repeatable): those specs, whatever else there is;
 * 2. the project's config (`stepforge.config.*` in the working directory, or `--project DIR`);
 * 3. without a config: the four services bundled with stepforge.
 * The bundled services stay reachable by id from a project (`mock trello`) unless the project
 * uses the same id, which then means the project's service.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { packageRoot } from "../generator/package-root.js";
import { declaredId, idFromFileName, loadProject, SERVICE_ID, SERVICE_ID_RULE, type ProjectConfig } from "./config/load.js";
import { UsageError } from "./usage.js";

/** The bundled specs (stepforge's own specs/), in a fixed order. */
export function projectSpecs(root = packageRoot()): string[] {
  const dir = join(root, "specs");
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => resolve(dir, f));
}

export interface ServiceSource {
  id: string;
  specFile: string;
  /** bundled: compiled into this package (generated/); project and spec: built from the spec here. */
  origin: "bundled" | "project" | "spec";
  /** The config's base URL for it (project services). */
  baseUrl?: string;
  /** The config's mock port for it. */
  mockPort?: number;
}

export interface Scope {
  /** The project's config, when one was found (and no --spec given). */
  project?: ProjectConfig;
  /** What the command works on when it is not told which service. */
  services: ServiceSource[];
  /** The bundled services, reachable by id. */
  bundled: ServiceSource[];
}

export interface ScopeOptions {
  /** `--project DIR`: where the config is (default: the working directory). */
  project?: string | undefined;
  /** `--spec FILE`s. */
  specs?: readonly string[] | undefined;
}

let bundledCache: ServiceSource[] | undefined;

/** The bundled services: every spec in stepforge's specs/ declares its id. */
export function bundledServices(): ServiceSource[] {
  bundledCache ??= projectSpecs().map((file) => ({ id: declaredId(file) ?? idFromFileName(file)!, specFile: file, origin: "bundled" as const }));
  return bundledCache;
}

/** A `--spec FILE` as a service: its x-stepforge.id, else its file name (`library.yaml` → `library`). */
export function specSource(file: string, serviceId?: string): ServiceSource {
  const specFile = resolve(file);
  const id = declaredId(specFile) ?? serviceId ?? idFromFileName(specFile);
  if (id === undefined || !SERVICE_ID.test(id)) {
    throw new UsageError(`--spec ${file}: no service id can be made from the file name; rename the file (${SERVICE_ID_RULE})`);
  }
  return { id, specFile, origin: "spec" };
}

export async function resolveScope(options: ScopeOptions = {}): Promise<Scope> {
  const bundled = bundledServices();
  if (options.specs?.length) {
    const services = options.specs.map((file) => specSource(file));
    const seen = new Map<string, string>();
    for (const s of services) {
      if (seen.has(s.id)) throw new UsageError(`--spec ${s.specFile} and --spec ${seen.get(s.id)} are both service "${s.id}"`);
      seen.set(s.id, s.specFile);
    }
    return { services, bundled };
  }
  const project = await loadProject(options.project ?? process.cwd());
  if (!project) {
    if (options.project !== undefined) {
      throw new UsageError(`--project ${options.project}: no stepforge.config.* there; create one with stepforge init`);
    }
    return { services: bundled, bundled };
  }
  const services = project.specs.map((spec) => ({
    id: spec.id,
    specFile: spec.file,
    origin: "project" as const,
    ...(spec.baseUrl !== undefined ? { baseUrl: spec.baseUrl } : {}),
    ...(spec.mockPort !== undefined ? { mockPort: spec.mockPort } : {}),
  }));
  return { project, services, bundled };
}

/** Every service a command can name: the scope's, then the bundled ones it does not shadow. */
export function reachable(scope: Scope): ServiceSource[] {
  const own = new Set(scope.services.map((s) => s.id));
  return [...scope.services, ...scope.bundled.filter((s) => !own.has(s.id))];
}

/** The service named `id`, or a usage error listing what there is. */
export function pickService(scope: Scope, id: string, flag = "service"): ServiceSource {
  const found = reachable(scope).find((s) => s.id === id);
  if (found) return found;
  throw new UsageError(`unknown ${flag} "${id}" (${describeServices(scope)})`);
}

/** "services: bookshelf, news (from stepforge.config.ts); bundled: contentsnare, …" */
export function describeServices(scope: Scope): string {
  const own = scope.services.filter((s) => s.origin !== "bundled").map((s) => s.id);
  const bundled = reachable(scope).filter((s) => s.origin === "bundled").map((s) => s.id);
  const where = scope.project ? ` (from ${scope.project.file})` : "";
  return [own.length ? `services: ${own.join(", ")}${where}` : "", bundled.length ? `bundled: ${bundled.join(", ")}` : ""]
    .filter(Boolean)
    .join("; ");
}
