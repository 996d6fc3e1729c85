/**
 * The pipeline: load → check (builds the model) → emit, for one spec or the project's specs, then write the files
 * or compare them with what is on disk (`--check`). Output is byte-identical on a rerun: emitters
 * are pure and files are written only when their content changes.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { emitClient } from "./emit/client.js";
import { emitDescriptor, emitTriggers } from "./emit/descriptor.js";
import type { EmitContext, Emitter, GeneratedFile } from "./emit/file.js";
import { emitRootIndex, emitServiceIndex } from "./emit/index.js";
import { emitMock } from "./emit/mock.js";
import { emitReadme } from "./emit/readme.js";
import { emitTools } from "./emit/tools.js";
import { emitTypes, typesInput, type TypesInput } from "./emit/types.js";
import { SpecError, type Diagnostic } from "./diagnostics.js";
import { filesBelow, toPosix } from "./files.js";
import { loadSpecFile } from "./load.js";
import { checkProjectSpec, type SpecOverrides } from "./project-spec.js";
import type { ServiceModel } from "./model.js";

/** Every per-service emitter, in output order. A new artefact is a new entry here. */
export const SERVICE_EMITTERS: Emitter[] = [
  emitTypes,
  emitDescriptor,
  emitClient,
  emitTools,
  emitTriggers,
  emitReadme,
  emitMock,
];

export type { SpecOverrides } from "./project-spec.js";

export interface GenerateRequest {
  specFiles: string[];
  outDir: string;
  /** The stepforge package root (holds runtime/ and package.json). */
  projectRoot: string;
  /** Service id for a foreign spec without x-stepforge. */
  serviceId?: string;
  /** Per spec file (absolute path): what a project's config changes about its service. */
  overrides?: Record<string, SpecOverrides>;
  /** Refuse what a foreign spec would have repaired. */
  strict?: boolean;
  /** The package the output is published as (`--package`, or the config's `package`): docs import from it. */
  packageName?: string;
  /** For output outside this package: how the user regenerates it and points commands at it (README). */
  commands?: { generate: string; scope: string };
  /** The user's project folder (the config's, else the working directory): relative paths in docs start here. */
  userRoot?: string;
  /**
   * Makes a spec's types.ts elsewhere (the CLI's generate thread, cli/generate-thread.ts): each
   * spec's job is sent as soon as it is checked, and its file awaited after the other emitters ran.
   * Without it types.ts is made in this thread, as the other modules are.
   */
  typesElsewhere?: (input: TypesInput) => Promise<GeneratedFile>;
  /** Told each service's files as soon as they are emitted (the CLI starts compiling them). */
  emitted?: (files: readonly GeneratedFile[]) => void;
}

export interface GenerateResult {
  models: ServiceModel[];
  files: GeneratedFile[];
  /** Repairs and ignored keywords of every spec, in order. */
  warnings: Diagnostic[];
  /** Milliseconds per stage, summed over specs; `emitters` splits `emit` by emitter. */
  timings: Record<"load" | "check" | "emit", number> & { emitters: Record<string, number> };
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** How generated code imports the runtime: relatively inside this package, by name elsewhere. */
export function runtimeImportFor(outDir: string, serviceId: string, projectRoot: string): string {
  if (!isInside(resolve(outDir), resolve(projectRoot))) return "stepforge/runtime";
  const from = join(resolve(outDir), serviceId);
  const rel = toPosix(relative(from, join(resolve(projectRoot), "runtime", "index.js")));
  return rel.startsWith(".") ? rel : `./${rel}`;
}

export async function generate(request: GenerateRequest): Promise<GenerateResult> {
  const timings = { load: 0, check: 0, emit: 0, emitters: {} as Record<string, number> };
  const models: ServiceModel[] = [];
  const typesJobs = new Map<ServiceModel, Promise<GeneratedFile>>();
  const diagnostics = [];
  for (const specFile of request.specFiles) {
    let t = performance.now();
    try {
      const spec = loadSpecFile(specFile);
      timings.load += performance.now() - t;
      t = performance.now();
      const model = checkProjectSpec(spec, request.overrides?.[resolve(specFile)] ?? {}, request);
      models.push(model);
      timings.check += performance.now() - t;
      if (request.typesElsewhere) {
        const job = request.typesElsewhere(typesInput(model, specLabel(model.spec.file, request.projectRoot)));
        // Awaited by emitService; until then a failure must not count as unhandled (another spec may fail first).
        job.catch(() => undefined);
        typesJobs.set(model, job);
      }
    } catch (error) {
      if (error instanceof SpecError) diagnostics.push(...error.diagnostics);
      else throw error;
    }
  }
  if (diagnostics.length > 0) throw new SpecError(diagnostics);
  const ids = new Map<string, string>();
  for (const model of models) {
    const other = ids.get(model.id);
    if (other) {
      throw new SpecError([
        model.spec.diagnostic(
          "SF141",
          ["x-stepforge", "id"],
          `service id "${model.id}" is also used by ${other}; each spec needs its own id`,
        ),
      ]);
    }
    ids.set(model.id, model.spec.file);
  }

  const t = performance.now();
  const files: GeneratedFile[] = [];
  for (const model of models) {
    const own = await emitService(model, request, timings.emitters, typesJobs.get(model));
    request.emitted?.(own);
    files.push(...own);
  }
  if (models.length > 0) files.push(emitRoot(models, request));
  timings.emit += performance.now() - t;
  return { models, files, warnings: models.flatMap((m) => m.warnings), timings };
}

/**
 * Every file of one service, its index last; `emitters` adds each emitter's milliseconds (for one
 * made elsewhere, `types`, the time this thread waited for it).
 */
export async function emitService(
  model: ServiceModel,
  request: GenerateRequest,
  emitters: Record<string, number> = {},
  types?: Promise<GeneratedFile>,
): Promise<GeneratedFile[]> {
  const ownPackage = isInside(resolve(request.outDir), resolve(request.projectRoot));
  const context: EmitContext = {
    runtimeImport: runtimeImportFor(request.outDir, model.id, request.projectRoot),
    specLabel: specLabel(model.spec.file, request.projectRoot),
    ...(ownPackage ? {} : { moduleImport: moduleImportFor(request, model.id) }),
    ...(ownPackage || !request.commands ? {} : { commands: request.commands }),
  };
  const byEmitter: GeneratedFile[][] = [];
  for (const emit of SERVICE_EMITTERS) emitters[emit.name] ??= 0; // --timings lists them in output order
  for (const emit of SERVICE_EMITTERS) {
    if (types && emit === emitTypes) continue; // awaited last: the other emitters run meanwhile
    const started = performance.now();
    byEmitter[SERVICE_EMITTERS.indexOf(emit)] = await emit(model, context);
    emitters[emit.name] = (emitters[emit.name] ?? 0) + performance.now() - started;
  }
  if (types) {
    const started = performance.now();
    byEmitter[SERVICE_EMITTERS.indexOf(emitTypes)] = [await types];
    emitters[emitTypes.name] = (emitters[emitTypes.name] ?? 0) + performance.now() - started;
  }
  const own = byEmitter.flat();
  // The index comes last: it re-exports every module the emitters wrote for this service.
  const modules = own
    .filter((f) => !f.ownEntry)
    .map((f) => f.path.slice(model.id.length + 1))
    .filter((p) => p.endsWith(".ts") && p !== "types.ts" && !p.includes("/"))
    .map((p) => p.replace(/\.ts$/, ""));
  return [...own, emitServiceIndex(model, context, modules)];
}

/**
 * How a user's code imports a service generated outside this package: from the package the output
 * is published as, else by the output folder's path from the project folder.
 */
export function moduleImportFor(
  request: Pick<GenerateRequest, "outDir" | "packageName" | "userRoot">,
  serviceId: string,
): string {
  if (request.packageName) return `${request.packageName}/${serviceId}`;
  const rel = toPosix(
    relative(resolve(request.userRoot ?? process.cwd()), join(resolve(request.outDir), serviceId, "index.js")),
  );
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/** The root index over every service (one namespace per spec). */
export function emitRoot(models: readonly ServiceModel[], request: GenerateRequest): GeneratedFile {
  const label = models
    .map((m) => specLabel(m.spec.file, request.projectRoot))
    .sort()
    .join(", ");
  return emitRootIndex([...models], { runtimeImport: "", specLabel: label });
}

export function specLabel(file: string, projectRoot: string): string {
  const abs = resolve(file);
  return toPosix(
    isInside(abs, resolve(projectRoot)) ? relative(resolve(projectRoot), abs) : relative(process.cwd(), abs),
  );
}

export interface Drift {
  /** Files whose content differs from what the specs generate. */
  changed: string[];
  /** Files the specs generate that are not on disk. */
  missing: string[];
  /** Generated files on disk that no spec generates any more. */
  extra: string[];
  /** Files in the output folder that no spec generates and that carry no stepforge header (never removed). */
  stray: string[];
}

/** Files on disk, split by whether they carry the stepforge header (only those are ours to remove). */
function existingFiles(outDir: string): { generated: string[]; other: string[] } {
  const generated: string[] = [];
  const other: string[] = [];
  for (const abs of filesBelow(outDir)) {
    const ours = readFileSync(abs, "utf8").slice(0, 200).includes("Generated by stepforge");
    (ours ? generated : other).push(toPosix(relative(outDir, abs)));
  }
  return { generated, other };
}

export function compare(outDir: string, files: GeneratedFile[], options: { wholeOutDir: boolean }): Drift {
  const drift: Drift = { changed: [], missing: [], extra: [], stray: [] };
  for (const file of files) {
    const abs = join(outDir, file.path);
    if (!existsSync(abs)) drift.missing.push(file.path);
    else if (readFileSync(abs, "utf8") !== file.content) drift.changed.push(file.path);
  }
  if (options.wholeOutDir) {
    const expected = new Set(files.map((f) => f.path));
    const existing = existingFiles(outDir);
    drift.extra = existing.generated.filter((p) => !expected.has(p));
    drift.stray = existing.other.filter((p) => !expected.has(p));
  }
  return drift;
}

/** Writes changed files only (so mtimes and watchers see real changes) and removes stale ones. */
export function write(outDir: string, files: GeneratedFile[], options: { wholeOutDir: boolean }): Drift {
  const drift = compare(outDir, files, options);
  const toWrite = new Set([...drift.changed, ...drift.missing]);
  for (const file of files) {
    if (!toWrite.has(file.path)) continue;
    const abs = join(outDir, file.path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, file.content);
  }
  for (const path of drift.extra) rmSync(join(outDir, path));
  return drift;
}

/** Runtime modules with their own entry (`stepforge/runtime/<module>`). */
export const RUNTIME_ENTRIES = ["code", "mcp", "mock", "observe", "state", "tools", "triggers", "zod"] as const;

/**
 * One package entry: types, then the ES module for `import` and, as `default`, for everything else.
 * `default` is what `require("stepforge/…")` from CommonJS resolves to: Node 20.19 and later load
 * an ES module with require() (no top-level await anywhere in dist/), so one build serves both.
 */
export interface PackageEntry {
  types: string;
  import: string;
  default: string;
}

/**
 * The `exports` map of the package: the root, the runtime and its modules, `stepforge/config`
 * (defineConfig for a project's stepforge.config.ts), one entry per service, and one per module a
 * service keeps out of its index (`stepforge/trello/mock`).
 */
export function packageExports(models: ServiceModel[], files: GeneratedFile[]): Record<string, PackageEntry> {
  const entry = (path: string) => ({
    types: `./dist/${path}.d.ts`,
    import: `./dist/${path}.js`,
    default: `./dist/${path}.js`,
  });
  const exports: Record<string, PackageEntry> = {
    ".": entry("generated/index"),
    "./config": entry("cli/config/define"),
    "./runtime": entry("runtime/index"),
  };
  for (const module of RUNTIME_ENTRIES) exports[`./runtime/${module}`] = entry(`runtime/${module}/index`);
  for (const id of models.map((m) => m.id).sort()) {
    exports[`./${id}`] = entry(`generated/${id}/index`);
    for (const file of files
      .filter((f) => f.ownEntry && f.path.startsWith(`${id}/`))
      .sort((a, b) => a.path.localeCompare(b.path))) {
      const module = file.path.replace(/\.ts$/, "");
      exports[`./${module}`] = entry(`generated/${module}`);
    }
  }
  return exports;
}

/** package.json with its `exports` replaced; every other key kept in place. */
export function packageJsonWithExports(text: string, models: ServiceModel[], files: GeneratedFile[]): string {
  const pkg = JSON.parse(text) as Record<string, unknown>;
  pkg.exports = packageExports(models, files);
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
