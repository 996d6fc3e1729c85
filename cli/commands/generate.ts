/**
 * `stepforge generate [--check] [--watch] [--fail-on-breaking] [--changelog] [--project DIR]`
 * `stepforge generate --spec FILE... --out DIR [--service ID] [--package NAME] [...]`
 *
 * Without --spec: the project's config (stepforge.config.*: its specs into its output folder,
 * with its package name), or, in a checkout of stepforge without one, every spec in specs/ into
 * generated/ plus the package `exports` map (and the changed modules compiled into dist/, by
 * cli/compile-generated.ts, so the CLI and the package entries never run stale code).
 * With --spec: those specs (even foreign ones) into DIR; with --package NAME also DIR/package.json
 * and DIR/tsconfig.json (generator/package-manifest.ts). A spec's service id is its x-stepforge.id,
 * else the config's id, else its file's base name. --check writes nothing and exits 1 when a file
 * would change, listing each one. Outside the checkout, files an earlier run wrote that this one no
 * longer writes (a renamed service's folder) are removed, unless edited since (generator/owned.ts).
 *
 * Before writing, it prints the API changes per service against what the output folder holds
 * (cli/generate-report.ts); --fail-on-breaking then refuses to write a breaking one, --changelog
 * adds a CHANGELOG.md section. --watch regenerates on every save of a spec (cli/watch.ts).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { remember, unchangedSince, type CacheKey } from "../../generator/cache.js";
import { formatDiagnostic } from "../../generator/diagnostics.js";
import { packageManifest, packageNameProblem, packageTsconfig } from "../../generator/package-manifest.js";
import { packageRoot } from "../../generator/package-root.js";
import { locateCompilerApi } from "../../runtime/internal/compiler-api.js";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { COMMAND_PACKAGES, overridesFirst } from "../command-packages.js";
import { reportDist } from "../compile-generated.js";
import { startGenerateThread, type GenerateThread } from "../generate-thread.js";
import type { GeneratedFile } from "../../generator/emit/file.js";
import type { GenerateRequest } from "../../generator/pipeline.js";
import { toPosix } from "../../generator/files.js";
import type { ServiceModel } from "../../generator/model.js";
import { settleOwned, specKey, staleFiles, type OwnedFile } from "../../generator/owned.js";
import type { SpecOverrides } from "../../generator/project-spec.js";
import { idFromFileName, loadProject } from "../config/load.js";
import { projectSpecs } from "../project.js";
import { UsageError } from "../usage.js";
import { flagsOf } from "../flags.js";

function summary(services: readonly { id: string; operations: number }[]): string {
  return services.map((s) => `${s.id} (${s.operations} operations)`).join(", ");
}

/** What one run of generate works on: the checkout's own specs, a project's config, or --spec files. */
interface Target {
  mode: "own" | "project" | "specs";
  specFiles: string[];
  outDir: string;
  overrides: Record<string, SpecOverrides>;
  packageName?: string;
  /** Where the user's relative paths start (the config's folder, else the working directory). */
  userRoot: string;
  /** Regenerate command and the flags that point other commands at these services (the README shows them). */
  commands?: { generate: string; scope: string };
}

export async function generateCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const { values } = flagsOf(argv, {
    check: { type: "boolean", default: false },
    spec: { type: "string", multiple: true },
    out: { type: "string" },
    service: { type: "string" },
    project: { type: "string" },
    timings: { type: "boolean", default: false },
    "no-cache": { type: "boolean", default: false },
    strict: { type: "boolean", default: false },
    package: { type: "string" },
    watch: { type: "boolean", default: false },
    "fail-on-breaking": { type: "boolean", default: false },
    changelog: { type: "boolean", default: false },
  });
  if ((values.spec === undefined) !== (values.out === undefined))
    throw new UsageError("--spec and --out go together: stepforge generate --spec FILE --out DIR");
  if (values.service !== undefined && values.spec?.length !== 1)
    throw new UsageError("--service goes with one --spec (it names that spec's service)");
  if (values.project !== undefined && values.spec !== undefined)
    throw new UsageError("--project reads the project's config; --spec FILE --out DIR generates without one: use one");
  if (values.watch && values.check)
    throw new UsageError("--watch writes on every save; --check writes nothing: use one");
  if (values.watch && values["fail-on-breaking"])
    throw new UsageError("--fail-on-breaking is a gate for one run (CI); --watch keeps writing: use one");
  if (values.package !== undefined && values.spec === undefined)
    throw new UsageError("--package goes with --spec FILE --out DIR (in a project, the config's package names it)");
  const nameProblem = values.package === undefined ? undefined : packageNameProblem(values.package);
  if (nameProblem) throw new UsageError(`--package "${values.package}": a package name ${nameProblem}`);

  const root = packageRoot();
  const target = await targetOf(values, root);
  const ownSpecs = target.mode === "own";
  if (values.strict && ownSpecs)
    throw new UsageError("--strict goes with --spec or a project (the package's own specs are always strict)");
  const { specFiles, outDir } = target;
  const packageName = target.packageName;
  const started = performance.now();
  const variant = JSON.stringify({
    overrides: target.overrides,
    packageName: packageName ?? null,
    commands: target.commands ?? null,
    userRoot: target.userRoot,
  });
  const cacheKey: CacheKey = {
    specFiles,
    outDir,
    projectRoot: root,
    ...(values.service ? { serviceId: values.service } : {}),
    variant,
  };
  const request = {
    specFiles,
    outDir,
    projectRoot: root,
    strict: values.strict,
    overrides: target.overrides,
    userRoot: target.userRoot,
    ...(values.service ? { serviceId: values.service } : {}),
    ...(packageName ? { packageName } : {}),
    ...(target.commands ? { commands: target.commands } : {}),
  };
  if (values.watch) {
    requireGenerator();
    const { watchGenerate } = await import("../watch.js");
    return watchGenerate({ ...request, ownSpecs, changelog: values.changelog }, out, err);
  }
  // --check always runs the whole pipeline: it is the proof, not a shortcut. --package needs the
  // list of generated modules, which only a run of the pipeline gives; --strict must see the repairs.
  if (!values.check && !values.timings && !values["no-cache"] && !values.strict && packageName === undefined) {
    const unchanged = unchangedSince(cacheKey);
    if (unchanged) {
      const ms = Math.round(performance.now() - started);
      out.write(
        `generated ${summary(unchanged)} into ${outDir}: 0 files changed (inputs unchanged ` +
          `since the last run), ${ms} ms\n`,
      );
      if (ownSpecs) await reportDist(root, out);
      return 0;
    }
  }
  // The types emitter and, in the checkout, the compile into dist/ run on a thread that loads the
  // TypeScript compiler while this one reads and checks the specs (generate-thread.ts).
  const thread = startGenerateThread(ownSpecs && !values.check ? root : undefined);
  try {
    return await runPipeline({ values, target, root, request, cacheKey, started }, out, err, thread);
  } finally {
    await thread?.stop();
  }
}

interface GenerateValues {
  check: boolean;
  timings: boolean;
  changelog: boolean;
  "fail-on-breaking": boolean;
}

/** One run of the pipeline after the no-change shortcut: generate, report, write or compare, compile. */
async function runPipeline(
  setup: {
    values: GenerateValues;
    target: Target;
    root: string;
    request: GenerateRequest;
    cacheKey: CacheKey;
    started: number;
  },
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
  thread: GenerateThread | undefined,
): Promise<number> {
  const { values, target, root, request, cacheKey, started } = setup;
  const ownSpecs = target.mode === "own";
  const { outDir, packageName } = target;
  requireGenerator();
  // The pipeline loads the TypeScript compiler, so it is imported only when it has work to do.
  const { compare, generate, packageJsonWithExports, write } = await import("../../generator/pipeline.js");
  // In the checkout the thread also compiles each service's modules while the next ones are emitted.
  const compileAhead = thread && ownSpecs && !values.check ? thread.compileAhead : undefined;
  const result = await generate({
    ...request,
    ...(thread ? { typesElsewhere: thread.types } : {}),
    ...(compileAhead
      ? {
          emitted: (files: readonly GeneratedFile[]) =>
            compileAhead(
              files
                .filter((f) => f.path.endsWith(".ts") && !f.path.endsWith(".d.ts"))
                .map((f) => ({ source: join(outDir, f.path), text: f.content })),
            ),
        }
      : {}),
  });
  // Repairs of a foreign spec and ignored keywords: each with its place, before the summary.
  for (const warning of result.warnings) out.write(`${formatDiagnostic(warning)}\n`);

  // For the project's own specs the package exports map is generated output too.
  const pkgPath = join(root, "package.json");
  const pkgFile = ownSpecs
    ? { path: pkgPath, content: packageJsonWithExports(readFileSync(pkgPath, "utf8"), result.models, result.files) }
    : undefined;

  // The change report: what is about to be written against what the output folder holds. Its
  // surface.json files are output too (so --check also proves them fresh).
  const { reportRun, writeChangelog, packageVersion } = await import("../generate-report.js");
  const run = await reportRun(outDir, root, result.models, result.files);
  result.files.push(...run.surfaces);

  // Outside the checkout, what earlier runs wrote and this one no longer writes (an old service id's folder).
  const owned = ownSpecs ? undefined : ownedFiles(target, result.models, result.files);
  let drift: ReturnType<typeof compare>;
  if (values.check) {
    drift = compare(outDir, result.files, { wholeOutDir: ownSpecs });
    if (owned) drift.extra.push(...owned.stale.remove, ...owned.stale.edited);
    if (pkgFile && readFileSync(pkgFile.path, "utf8") !== pkgFile.content)
      drift.changed.push("../package.json (exports)");
    const stale = [
      ...drift.changed.map((p) => `changed  ${p}`),
      ...drift.missing.map((p) => `missing  ${p}`),
      ...drift.extra.map((p) => `extra    ${p}`),
      ...drift.stray.map((p) => `stray    ${p} (no spec generates it; remove it)`),
    ];
    if (stale.length > 0) {
      out.write(
        `generated code is stale (${stale.length} file${stale.length === 1 ? "" : "s"}); ` +
          `run \`stepforge generate\` and commit:\n`,
      );
      for (const line of stale) out.write(`  ${line}\n`);
      return 1;
    }
    out.write(
      `generated code is fresh (${result.files.length} files from ${result.models.length} ` +
        `spec${result.models.length === 1 ? "" : "s"})\n`,
    );
    return 0;
  }

  out.write(run.text);
  if (values["fail-on-breaking"] && run.breaking > 0) {
    err.write(
      `stepforge generate: ${run.breaking} breaking change${run.breaking === 1 ? "" : "s"} ` +
        `(listed above); nothing was written (--fail-on-breaking)\n`,
    );
    return 1;
  }
  // Built before anything is written, so a package.json it cannot update stops the run cleanly.
  const packageFiles =
    packageName === undefined
      ? undefined
      : packageFilesFor(
          outDir,
          packageName,
          result.models.map((m) => m.id),
          result.files,
          root,
        );
  drift = write(outDir, result.files, { wholeOutDir: ownSpecs });
  if (owned) {
    settleOwned(outDir, owned.files, owned.stale, owned.scope);
    drift.extra.push(...owned.stale.remove);
    for (const path of owned.stale.edited)
      err.write(
        `stepforge generate: kept ${join(outDir, path)}: no spec generates it any more, but ` +
          `it was edited since; remove it yourself\n`,
      );
  }
  if (pkgFile && (!existsSync(pkgFile.path) || readFileSync(pkgFile.path, "utf8") !== pkgFile.content))
    writeFileSync(pkgFile.path, pkgFile.content);
  remember(
    cacheKey,
    result.models.map((m) => ({ id: m.id, operations: m.operations.length })),
    pkgFile ? [pkgFile.path] : [],
  );
  const touched = drift.changed.length + drift.missing.length + drift.extra.length;
  const ms = Math.round(performance.now() - started);
  out.write(
    `generated ${summary(result.models.map((m) => ({ id: m.id, operations: m.operations.length })))} ` +
      `into ${outDir}: ${touched} file${touched === 1 ? "" : "s"} changed, ${ms} ms\n`,
  );
  if (values.timings) {
    const t = result.timings;
    const split = Object.entries(t.emitters)
      .map(([name, ms]) => `${name.replace(/^emit/, "").toLowerCase()} ${ms.toFixed(0)}`)
      .join(", ");
    out.write(
      `  load ${t.load.toFixed(0)} ms · check ${t.check.toFixed(0)} ms · emit ${t.emit.toFixed(0)} ms (${split})\n`,
    );
  }
  if (packageFiles) {
    for (const file of packageFiles) if (file.content !== undefined) writeFileSync(file.path, file.content);
    out.write(
      `package ${packageName}: ${packageFiles[0]!.path} (build it with \`npx tsc -p ${packageFiles[1]!.path}\`)\n`,
    );
  }
  if (values.changelog) {
    const home = ownSpecs ? root : outDir;
    const heading = writeChangelog(join(home, "CHANGELOG.md"), run, packageVersion(home, run));
    out.write(
      heading
        ? `changelog: ${join(home, "CHANGELOG.md")} [${heading}]\n`
        : "changelog: no API changes, CHANGELOG.md left as it was\n",
    );
  }
  if (ownSpecs) await reportDist(root, out, thread?.compile);
  return 0;
}

/**
 * The run's target. --spec files: their ids default to the file's base name (`library.yaml` →
 * `library`) unless the spec declares one or --service names it. No --spec: the project's config
 * (in the working directory or --project DIR), else, in a checkout of stepforge, its own specs.
 */
async function targetOf(
  values: {
    spec?: string[] | undefined;
    out?: string | undefined;
    service?: string | undefined;
    project?: string | undefined;
    package?: string | undefined;
  },
  root: string,
): Promise<Target> {
  const cwd = process.cwd();
  if (values.spec !== undefined) {
    const specFiles = values.spec.map((file) => resolve(file));
    const overrides: Record<string, SpecOverrides> = {};
    // A spec's own x-stepforge.id wins over this (the check stage uses it only for a plain spec).
    for (const file of specFiles) {
      const id = values.service ?? idFromFileName(file);
      if (id !== undefined) overrides[file] = { id };
    }
    const scope = values.spec.map((f) => `--spec ${toPosix(relative(cwd, resolve(f)))}`).join(" ");
    const generateCommand =
      `npx stepforge generate ${scope} --out ` +
      `${toPosix(relative(cwd, resolve(values.out!))) || "."}` +
      `${values.package ? ` --package ${values.package}` : ""}`;
    return {
      mode: "specs",
      specFiles,
      outDir: resolve(values.out!),
      overrides,
      userRoot: cwd,
      ...(values.package !== undefined ? { packageName: values.package } : {}),
      commands: { generate: generateCommand, scope },
    };
  }
  const project = await loadProject(values.project ?? cwd);
  if (project) {
    const overrides = Object.fromEntries(
      project.specs.map((s) => [s.file, { id: s.id, ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}) }]),
    );
    return {
      mode: "project",
      specFiles: project.specs.map((s) => s.file),
      outDir: project.output,
      overrides,
      userRoot: project.root,
      ...(project.package !== undefined ? { packageName: project.package } : {}),
      commands: { generate: "npx stepforge generate", scope: "" },
    };
  }
  if (values.project !== undefined)
    throw new UsageError(`--project ${values.project}: no stepforge.config.* there; create one with stepforge init`);
  // An installed copy has no generated/ sources or build config: regenerating its own integrations
  // there would rewrite node_modules/stepforge. Only a checkout of stepforge does that.
  if (!existsSync(join(root, "tsconfig.build.json"))) {
    throw new UsageError(
      "no stepforge.config.* in this folder: create one with `stepforge init --spec FILE` " +
        "(then `stepforge generate`), " +
        "or generate one spec without a project: stepforge generate --spec FILE --out DIR",
    );
  }
  return { mode: "own", specFiles: projectSpecs(root), outDir: join(root, "generated"), overrides: {}, userRoot: root };
}

/** What this run writes, by spec, and what earlier runs wrote into the folder that it no longer does. */
function ownedFiles(target: Target, models: readonly ServiceModel[], files: readonly GeneratedFile[]) {
  const specOf = new Map(models.map((m) => [m.id, specKey(target.outDir, m.spec.file)]));
  const ownedList: OwnedFile[] = files.map((f) => ({
    path: f.path,
    content: f.content,
    spec: specOf.get(f.path.split("/")[0]!) ?? "",
  }));
  const scope: ReadonlySet<string> | "all" = target.mode === "project" ? "all" : new Set(specOf.values());
  return { files: ownedList, scope, stale: staleFiles(target.outDir, ownedList, scope) };
}

/**
 * `--package NAME`: DIR/package.json (updated in place when it exists) and DIR/tsconfig.json
 * (written only when absent); `content` is undefined where nothing needs writing.
 */
function packageFilesFor(
  outDir: string,
  name: string,
  serviceIds: string[],
  files: { path: string; ownEntry?: boolean }[],
  root: string,
): Array<{ path: string; content?: string }> {
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    version: string;
    devDependencies?: Record<string, string>;
  };
  const manifestPath = join(outDir, "package.json");
  const existing = existsSync(manifestPath) ? readFileSync(manifestPath, "utf8") : undefined;
  const manifest = packageManifest({
    packageName: name,
    serviceIds,
    files,
    stepforgeVersion: own.version,
    typescriptVersion: own.devDependencies?.typescript ?? "5.9.3",
    ...(existing !== undefined ? { existing } : {}),
  });
  const tsconfigPath = join(outDir, "tsconfig.json");
  return [
    { path: manifestPath, ...(manifest !== existing ? { content: manifest } : {}) },
    { path: tsconfigPath, ...(existsSync(tsconfigPath) ? {} : { content: packageTsconfig() }) },
  ];
}

/**
 * openapi-typescript and Handlebars are optional peer dependencies (an application importing a
 * generated client does not need them), and openapi-typescript needs a compiler with the JavaScript
 * API (runtime/internal/compiler-api.ts): each is named before the pipeline fails to load.
 */
function requireGenerator(): void {
  requirePackages("code generation", COMMAND_PACKAGES.generate.packages, "dev", overridesFirst);
  locateCompilerApi("code generation (openapi-typescript)");
}
