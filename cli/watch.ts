/**
 * `stepforge generate --watch`: one full run, then a round per saved spec. A round loads and
 * checks only the saved spec, emits only its service (plus the root index, which names every
 * service), prints that service's change report, and writes what changed. Everything else stays
 * in memory from the rounds before, as do the loaded compilers, so a round costs a fraction of a
 * cold `generate` (bench/regen.ts measures it).
 *
 * Specs are watched through their folders: editors often save by writing a new file and renaming
 * it over the old one, which a watch on the file itself would lose. A save that leaves the text
 * as it was (several events for one save) does nothing. A spec that does not check prints its
 * diagnostics and keeps the last good output; the watch goes on.
 */
import { watch, type FSWatcher } from "node:fs";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { remember } from "../generator/cache.js";
import { checkProjectSpec } from "../generator/project-spec.js";
import { formatDiagnostic, SpecError } from "../generator/diagnostics.js";
import type { GeneratedFile } from "../generator/emit/file.js";
import { loadSpecFile } from "../generator/load.js";
import type { ServiceModel } from "../generator/model.js";
import { emitRoot, emitService, packageJsonWithExports, write, type GenerateRequest } from "../generator/pipeline.js";
import { reportDist } from "./compile-generated.js";
import { packageVersion, reportRun, writeChangelog } from "./generate-report.js";

export interface WatchOptions extends GenerateRequest {
  /** The checkout's own specs: also the package exports map and dist/. */
  ownSpecs: boolean;
  changelog: boolean;
}

/** Quiet time after the last event of a save before the round starts. */
const SETTLE_MS = 40;

export async function watchGenerate(
  options: WatchOptions,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const models = new Map<string, ServiceModel>();
  const serviceFiles = new Map<string, GeneratedFile[]>();
  const texts = new Map<string, string>();

  const check = (file: string): ServiceModel | undefined => {
    try {
      return checkProjectSpec(loadSpecFile(file), options.overrides?.[file] ?? {}, {
        ...(options.serviceId ? { serviceId: options.serviceId } : {}),
        strict: options.strict === true,
      });
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
      for (const d of error.diagnostics) err.write(`${formatDiagnostic(d)}\n`);
      err.write(
        `${file}: ${error.diagnostics.length} problem${error.diagnostics.length === 1 ? "" : "s"}; ` +
          `the last good output stays\n`,
      );
      return undefined;
    }
  };

  const round = async (files: readonly string[]): Promise<void> => {
    const started = performance.now();
    const fresh: ServiceModel[] = [];
    for (const file of files) {
      const model = check(file);
      if (!model) return;
      const clash = [...models].find(([other, m]) => other !== file && m.id === model.id);
      if (clash) {
        err.write(`${file}: service id "${model.id}" is also used by ${clash[0]}; each spec needs its own id\n`);
        return;
      }
      fresh.push(model);
      models.set(file, model);
    }
    const emitted: GeneratedFile[] = [];
    for (const model of fresh) {
      const own = await emitService(model, options);
      emitted.push(...own);
    }
    const run = await reportRun(options.outDir, options.projectRoot, fresh, emitted);
    out.write(run.text);
    for (const model of fresh) {
      const own = [
        ...emitted.filter((f) => f.path.startsWith(`${model.id}/`)),
        ...run.surfaces.filter((f) => f.path.startsWith(`${model.id}/`)),
      ];
      serviceFiles.set(model.spec.file, own);
    }
    const ordered = options.specFiles.flatMap((f) => (models.has(f) ? [models.get(f)!] : []));
    const all = [...options.specFiles.flatMap((f) => serviceFiles.get(f) ?? []), emitRoot(ordered, options)];
    const drift = write(options.outDir, all, { wholeOutDir: options.ownSpecs });
    const extra: string[] = [];
    if (options.ownSpecs) {
      const pkg = join(options.projectRoot, "package.json");
      const text = packageJsonWithExports(readFileSync(pkg, "utf8"), ordered, all);
      if (readFileSync(pkg, "utf8") !== text) writeFileSync(pkg, text);
      extra.push(pkg);
    }
    if (models.size === options.specFiles.length) {
      remember(
        {
          specFiles: options.specFiles,
          outDir: options.outDir,
          projectRoot: options.projectRoot,
          ...(options.serviceId ? { serviceId: options.serviceId } : {}),
        },
        ordered.map((m) => ({ id: m.id, operations: m.operations.length })),
        extra,
      );
    }
    const touched = drift.changed.length + drift.missing.length + drift.extra.length;
    const ms = Math.round(performance.now() - started);
    out.write(
      `[${new Date().toISOString().slice(11, 19)}] generated ${fresh.map((m) => m.id).join(", ")} ` +
        `into ${options.outDir}: ${touched} file${touched === 1 ? "" : "s"} written, ${ms} ` +
        `ms\n`,
    );
    if (options.changelog) {
      const home = options.ownSpecs ? options.projectRoot : options.outDir;
      const heading = writeChangelog(join(home, "CHANGELOG.md"), run, packageVersion(home, run));
      if (heading) out.write(`changelog: ${join(home, "CHANGELOG.md")} [${heading}]\n`);
    }
    if (options.ownSpecs) await reportDist(options.projectRoot, out);
  };

  for (const file of options.specFiles) texts.set(file, existsSync(file) ? readFileSync(file, "utf8") : "");
  await round(options.specFiles);

  // Rounds run one at a time; saves during a round wait for it and then run once.
  const pending = new Set<string>();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const drain = async () => {
    while (pending.size > 0) {
      const files = options.specFiles.filter((f) => pending.has(f));
      pending.clear();
      const changed = files.filter((f) => {
        const text = existsSync(f) ? readFileSync(f, "utf8") : undefined;
        if (text === undefined || text === texts.get(f)) return false;
        texts.set(f, text);
        return true;
      });
      if (changed.length > 0)
        await round(changed).catch((error: Error) => err.write(`stepforge generate --watch: ${error.message}\n`));
    }
    running = undefined;
  };
  const schedule = (file: string) => {
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      running ??= drain();
    }, SETTLE_MS);
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set(options.specFiles.map((f) => dirname(f)))) {
    const inDir = new Map(options.specFiles.filter((f) => dirname(f) === dir).map((f) => [basename(f), f]));
    watchers.push(
      watch(dir, (_event, name) => {
        const file = name === null ? undefined : inDir.get(name.toString());
        if (file) schedule(file);
      }),
    );
  }
  out.write(`watching ${options.specFiles.length} spec${options.specFiles.length === 1 ? "" : "s"} (Ctrl-C stops)\n`);
  return new Promise((resolve) => {
    const stop = () => {
      for (const w of watchers) w.close();
      clearTimeout(timer);
      void (running ?? Promise.resolve()).then(() => resolve(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
