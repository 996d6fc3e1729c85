/**
 * `stepforge generate [--check] [--watch] [--fail-on-breaking] [--changelog] [--spec FILE... --out DIR [--service ID]]`
 *
 * Without --spec: every spec in specs/ into generated/, plus the package `exports` map.
 * With --spec: one spec (even a foreign one) into DIR; with --package NAME also DIR/package.json
 * and DIR/tsconfig.json (generator/package-manifest.ts). --check writes nothing and exits 1 when a
 * file would change, listing each one.
 *
 * Without --spec, generate also compiles the generated modules that changed into dist/
 * (cli/compile-generated.ts), so the CLI and the package entries never run stale code.
 *
 * Before writing, it prints the API changes per service against what the output folder holds
 * (cli/generate-report.ts); --fail-on-breaking then refuses to write a breaking one, --changelog
 * adds a CHANGELOG.md section. --watch regenerates on every save of a spec (cli/watch.ts).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { remember, unchangedSince, type CacheKey } from "../../generator/cache.js";
import { formatDiagnostic } from "../../generator/diagnostics.js";
import { packageManifest, packageNameProblem, packageTsconfig } from "../../generator/package-manifest.js";
import { packageRoot } from "../../generator/package-root.js";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { compileGenerated } from "../compile-generated.js";
import { projectSpecs } from "../project.js";
import { UsageError } from "../usage.js";

function summary(services: readonly { id: string; operations: number }[]): string {
  return services.map((s) => `${s.id} (${s.operations} operations)`).join(", ");
}

export async function generateCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      check: { type: "boolean", default: false },
      spec: { type: "string", multiple: true },
      out: { type: "string" },
      service: { type: "string" },
      timings: { type: "boolean", default: false },
      "no-cache": { type: "boolean", default: false },
      strict: { type: "boolean", default: false },
      package: { type: "string" },
      watch: { type: "boolean", default: false },
      "fail-on-breaking": { type: "boolean", default: false },
      changelog: { type: "boolean", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if ((values.spec === undefined) !== (values.out === undefined)) throw new UsageError("--spec and --out go together: stepforge generate --spec FILE --out DIR");
  if (values.service !== undefined && values.spec?.length !== 1) throw new UsageError("--service goes with one --spec (it names that spec's service)");
  if (values.watch && values.check) throw new UsageError("--watch writes on every save; --check writes nothing: use one");
  if (values.watch && values["fail-on-breaking"]) throw new UsageError("--fail-on-breaking is a gate for one run (CI); --watch keeps writing: use one");
  if (values.strict && values.spec === undefined) throw new UsageError("--strict goes with --spec (the project's specs are always strict)");
  if (values.package !== undefined && values.spec === undefined) throw new UsageError("--package goes with --spec FILE --out DIR");
  const nameProblem = values.package === undefined ? undefined : packageNameProblem(values.package);
  if (nameProblem) throw new UsageError(`--package "${values.package}": a package name ${nameProblem}`);

  const root = packageRoot();
  const ownSpecs = values.spec === undefined;
  // An installed copy has no generated/ sources or build config: regenerating its own integrations
  // there would rewrite node_modules/stepforge. Only a checkout of stepforge does that.
  if (ownSpecs && !existsSync(join(root, "tsconfig.build.json"))) {
    throw new UsageError("without --spec, generate rebuilds stepforge's own integrations, which only a checkout of stepforge can do; for your spec: stepforge generate --spec FILE --out DIR");
  }
  const specFiles = ownSpecs ? projectSpecs(root) : values.spec!.map((file) => resolve(file));
  const outDir = ownSpecs ? join(root, "generated") : resolve(values.out!);
  const started = performance.now();
  const cacheKey: CacheKey = { specFiles, outDir, projectRoot: root, ...(values.service ? { serviceId: values.service } : {}) };
  if (values.watch) {
    requirePackages("code generation", ["openapi-typescript", "handlebars"]);
    const { watchGenerate } = await import("../watch.js");
    return watchGenerate({ specFiles, outDir, projectRoot: root, ownSpecs, strict: values.strict, changelog: values.changelog, ...(values.service ? { serviceId: values.service } : {}) }, out, err);
  }
  // --check always runs the whole pipeline: it is the proof, not a shortcut. --package needs the
  // list of generated modules, which only a run of the pipeline gives; --strict must see the repairs.
  if (!values.check && !values.timings && !values["no-cache"] && !values.strict && values.package === undefined) {
    const unchanged = unchangedSince(cacheKey);
    if (unchanged) {
      const ms = Math.round(performance.now() - started);
      out.write(`generated ${summary(unchanged)} into ${outDir}: 0 files changed (inputs unchanged since the last run), ${ms} ms\n`);
      if (ownSpecs) await reportDist(root, out);
      return 0;
    }
  }
  // openapi-typescript and Handlebars are optional peer dependencies (an application importing a
  // generated client does not need them): name them before the pipeline fails to load.
  requirePackages("code generation", ["openapi-typescript", "handlebars"]);
  // The pipeline loads the TypeScript compiler, so it is imported only when it has work to do.
  const { compare, generate, packageJsonWithExports, write } = await import("../../generator/pipeline.js");
  const result = await generate({ specFiles, outDir, projectRoot: root, strict: values.strict, ...(values.service ? { serviceId: values.service } : {}) });
  // Repairs of a foreign spec and ignored keywords: each with its place, before the summary.
  for (const warning of result.warnings) out.write(`${formatDiagnostic(warning)}\n`);

  // For the project's own specs the package exports map is generated output too.
  const pkgPath = join(root, "package.json");
  const pkgFile = ownSpecs ? { path: pkgPath, content: packageJsonWithExports(readFileSync(pkgPath, "utf8"), result.models, result.files) } : undefined;

  // The change report: what is about to be written against what the output folder holds. Its
  // surface.json files are output too (so --check also proves them fresh).
  const { reportRun, writeChangelog, packageVersion } = await import("../generate-report.js");
  const run = await reportRun(outDir, root, result.models, result.files);
  result.files.push(...run.surfaces);

  let drift: ReturnType<typeof compare>;
  if (values.check) {
    drift = compare(outDir, result.files, { wholeOutDir: ownSpecs });
    if (pkgFile && readFileSync(pkgFile.path, "utf8") !== pkgFile.content) drift.changed.push("../package.json (exports)");
    const stale = [
      ...drift.changed.map((p) => `changed  ${p}`),
      ...drift.missing.map((p) => `missing  ${p}`),
      ...drift.extra.map((p) => `extra    ${p}`),
      ...drift.stray.map((p) => `stray    ${p} (no spec generates it; remove it)`),
    ];
    if (stale.length > 0) {
      out.write(`generated code is stale (${stale.length} file${stale.length === 1 ? "" : "s"}); run \`stepforge generate\` and commit:\n`);
      for (const line of stale) out.write(`  ${line}\n`);
      return 1;
    }
    out.write(`generated code is fresh (${result.files.length} files from ${result.models.length} spec${result.models.length === 1 ? "" : "s"})\n`);
    return 0;
  }

  out.write(run.text);
  if (values["fail-on-breaking"] && run.breaking > 0) {
    err.write(`stepforge generate: ${run.breaking} breaking change${run.breaking === 1 ? "" : "s"} (listed above); nothing was written (--fail-on-breaking)\n`);
    return 1;
  }
  // Built before anything is written, so a package.json it cannot update stops the run cleanly.
  const packageFiles = values.package === undefined ? undefined : packageFilesFor(outDir, values.package, result.models.map((m) => m.id), result.files, root);
  drift = write(outDir, result.files, { wholeOutDir: ownSpecs });
  if (pkgFile && (!existsSync(pkgFile.path) || readFileSync(pkgFile.path, "utf8") !== pkgFile.content)) writeFileSync(pkgFile.path, pkgFile.content);
  remember(cacheKey, result.models.map((m) => ({ id: m.id, operations: m.operations.length })), pkgFile ? [pkgFile.path] : []);
  const touched = drift.changed.length + drift.missing.length + drift.extra.length;
  const ms = Math.round(performance.now() - started);
  out.write(`generated ${summary(result.models.map((m) => ({ id: m.id, operations: m.operations.length })))} into ${outDir}: ${touched} file${touched === 1 ? "" : "s"} changed, ${ms} ms\n`);
  if (values.timings) {
    const t = result.timings;
    const split = Object.entries(t.emitters).map(([name, ms]) => `${name.replace(/^emit/, "").toLowerCase()} ${ms.toFixed(0)}`).join(", ");
    out.write(`  load ${t.load.toFixed(0)} ms · check ${t.check.toFixed(0)} ms · emit ${t.emit.toFixed(0)} ms (${split})\n`);
  }
  if (packageFiles) {
    for (const file of packageFiles) if (file.content !== undefined) writeFileSync(file.path, file.content);
    out.write(`package ${values.package}: ${packageFiles[0]!.path} (build it with \`npx tsc -p ${packageFiles[1]!.path}\`)\n`);
  }
  if (values.changelog) {
    const home = ownSpecs ? root : outDir;
    const heading = writeChangelog(join(home, "CHANGELOG.md"), run, packageVersion(home, run));
    out.write(heading ? `changelog: ${join(home, "CHANGELOG.md")} [${heading}]\n` : "changelog: no API changes, CHANGELOG.md left as it was\n");
  }
  if (ownSpecs) await reportDist(root, out);
  return 0;
}

/** Compiles what changed in generated/ into dist/ and says so (silent when dist/ was in step). */
export async function reportDist(root: string, out: NodeJS.WritableStream): Promise<void> {
  const started = performance.now();
  const sync = await compileGenerated(root);
  if (sync.compiled.length + sync.removed.length === 0) return;
  const ms = Math.round(performance.now() - started);
  const removed = sync.removed.length > 0 ? `, ${sync.removed.length} stale file${sync.removed.length === 1 ? "" : "s"} removed` : "";
  out.write(`compiled ${sync.compiled.length} generated module${sync.compiled.length === 1 ? "" : "s"} into dist/${removed}, ${ms} ms\n`);
}

/**
 * `--package NAME`: DIR/package.json (updated in place when it exists) and DIR/tsconfig.json
 * (written only when absent); `content` is undefined where nothing needs writing.
 */
function packageFilesFor(outDir: string, name: string, serviceIds: string[], files: { path: string; ownEntry?: boolean }[], root: string): Array<{ path: string; content?: string }> {
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; devDependencies?: Record<string, string> };
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
