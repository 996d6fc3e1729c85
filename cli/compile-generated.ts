/**
 * Keeps dist/generated/ in step with generated/ in a checkout of stepforge, so that right after
 * `stepforge generate` the CLI (`tools list`, `call`, `mock`) and every package entry
 * (`stepforge/trello`) see the new output, with no second command to remember.
 *
 * Why compile here rather than point the entries at something that cannot go stale: the package
 * entries and the CLI must be plain JavaScript for Node and for consumers (no loader, no tsx), so
 * dist/ has to exist; compiling only the generated modules whose source is newer than their
 * JavaScript costs a few seconds when something changed and a few file stats when nothing did.
 * The runtime and CLI sources are the developer's to build (`npm run build`, `make build`).
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { filesBelow, toPosix } from "../generator/files.js";
import { againstBuiltRuntime } from "./built-runtime-host.js";

export interface DistSync {
  /** Generated modules compiled (their .js and .d.ts were missing or older than the .ts). */
  compiled: string[];
  /** Compiled files removed because their generated module no longer exists. */
  removed: string[];
}

const mtime = (file: string) => statSync(file).mtimeMs;

/** The generated modules whose compiled form is missing or older than the source. */
export function staleGeneratedModules(root: string): string[] {
  return filesBelow(join(root, "generated"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .filter((source) => {
      const base = join(root, "dist", relative(root, source)).replace(/\.ts$/, "");
      return [`${base}.js`, `${base}.d.ts`].some((out) => !existsSync(out) || mtime(out) < mtime(source));
    });
}

/** Compiled files under dist/generated/ whose source module was removed from generated/. */
function orphans(root: string): string[] {
  return filesBelow(join(root, "dist", "generated")).filter((out) => {
    const source = join(root, relative(join(root, "dist"), out)).replace(/(\.d\.ts|\.js|\.js\.map)$/, ".ts");
    return !existsSync(source);
  });
}

export async function compileGenerated(root: string): Promise<DistSync> {
  const removed = orphans(root);
  for (const file of removed) rmSync(file);
  const stale = staleGeneratedModules(root);
  if (stale.length === 0) return { compiled: [], removed: removed.map((f) => toPosix(relative(root, f))) };

  // TypeScript is a devDependency, present in every checkout that can run generate.
  const ts = (await import("typescript")).default;
  const configFile = join(root, "tsconfig.build.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram({
    rootNames: stale,
    options: parsed.options,
    host: againstBuiltRuntime(ts, root, parsed.options),
  });
  const sources = stale.map((file) => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`cannot compile ${relative(root, file)}: not part of the build`);
    return source;
  });
  // Code that does not compile is not emitted: dist/ keeps the last good build and the message says why.
  const problems = sources.flatMap((source) => [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ]);
  if (problems.length === 0) for (const source of sources) problems.push(...program.emit(source).diagnostics);
  if (problems.length > 0) {
    const text = problems
      .slice(0, 3)
      .map(
        (d) =>
          `${d.file ? `${toPosix(relative(root, d.file.fileName))}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
      );
    throw new Error(
      `compiling generated code into dist/ failed (${problems.length} problem${problems.length === 1 ? "" : "s"}): ${text.join("; ")}`,
    );
  }
  return {
    compiled: stale.map((f) => toPosix(relative(root, f))),
    removed: removed.map((f) => toPosix(relative(root, f))),
  };
}

/** Compiles what changed in generated/ into dist/ and says so (silent when dist/ was in step). */
export async function reportDist(root: string, out: NodeJS.WritableStream): Promise<void> {
  const started = performance.now();
  const sync = await compileGenerated(root);
  if (sync.compiled.length + sync.removed.length === 0) return;
  const ms = Math.round(performance.now() - started);
  const removed =
    sync.removed.length > 0 ? `, ${sync.removed.length} stale file${sync.removed.length === 1 ? "" : "s"} removed` : "";
  out.write(
    `compiled ${sync.compiled.length} generated module${sync.compiled.length === 1 ? "" : "s"} into dist/${removed}, ${ms} ms\n`,
  );
}
