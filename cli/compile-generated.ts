/**
 * Keeps dist/generated/ in step with generated/ in a checkout of stepforge, so that right after
 * `stepforge generate` the CLI (`tools list`, `call`, `mock`) and every package entry
 * (`stepforge/trello`) see the new output, with no second command to remember.
 *
 * Why compile here rather than point the entries at something that cannot go stale: the package
 * entries and the CLI must be plain JavaScript for Node and for consumers (no loader, no tsx), so
 * dist/ has to exist. Only the generated modules whose source is newer than their output are
 * compiled, and each one on its own: its JavaScript by blanking out its types (ts-blank-space), its
 * declarations by `transpileDeclaration`, which needs no program, no lib files and no runtime
 * types, because the emitters write every exported value's type out (`isolatedDeclarations`;
 * test/generator/pipeline.test.ts holds every generated module to it). A program that type-checked
 * the modules first cost about 2 s of a cold `generate`; what that check protected is covered
 * elsewhere: test/project.test.ts type-checks generated/ under strict settings with the rest of the
 * checkout, and `npm run build` compiles it all. What still stops a compile here, before anything
 * is written (so dist/ keeps the last good build), is what one file shows: a syntax error, or an
 * export whose type would have to be inferred.
 * The runtime and CLI sources are the developer's to build (`npm run build`, `make build`).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import { dirname, join, relative } from "node:path";
import type TypeScript from "typescript";
import { filesBelow, toPosix } from "../generator/files.js";
// Code mode's loader of the optional ts-blank-space, and its type: one place knows how to find it.
import { loadTypeBlanker } from "../runtime/code/load.js";
import type { TypeBlanker } from "../runtime/code/typecheck.js";

/**
 * The compiler, loaded by the first compile that has something to do: a `generate` that finds
 * dist/ in step (the no-change rerun) must not pay TypeScript's load (about 0.6 s).
 */
let ts: typeof TypeScript;

export interface DistSync {
  /** Generated modules compiled (their .js and .d.ts were missing or older than the .ts). */
  compiled: string[];
  /** Compiled files removed because their generated module no longer exists. */
  removed: string[];
}

const mtime = (file: string) => statSync(file).mtimeMs;
const outBase = (root: string, source: string) => join(root, "dist", relative(root, source)).replace(/\.ts$/, "");

/** The generated modules whose compiled form is missing or older than the source. */
export function staleGeneratedModules(root: string): string[] {
  return staleCompiledModules(root, "generated");
}

/** The modules below `folder` (runtime, cli, …) whose .js or .d.ts in dist/ is missing or older than the source. */
export function staleCompiledModules(root: string, folder: string): string[] {
  return filesBelow(join(root, folder))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .filter((source) => {
      const base = outBase(root, source);
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

/**
 * Lets ts-blank-space's import of `typescript` get the compiler required above (compiler-hooks.ts)
 * instead of loading it a second way. From the built CLI only: the hooks run on a thread of their
 * own, which cannot load TypeScript sources (tests run those through a loader); there
 * ts-blank-space loads its own import, with the same result.
 */
function shareCompilerWithBlanker(): void {
  if (hooksRegistered || !import.meta.url.endsWith(".js")) return;
  hooksRegistered = true;
  register(new URL("./compiler-hooks.js", import.meta.url));
}

let hooksRegistered = false;

/** The build's compiler options (tsconfig.build.json), as `tsc -p tsconfig.build.json` uses them. */
function buildOptions(root: string): TypeScript.CompilerOptions {
  const configFile = join(root, "tsconfig.build.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error(`cannot read ${configFile}`);
  return parsed.options;
}

/** Node16, Node18, NodeNext: a file's format follows its package.json. */
const nodeModules = (options: TypeScript.CompilerOptions) =>
  options.module !== undefined && options.module >= ts.ModuleKind.Node16 && options.module <= ts.ModuleKind.NodeNext;

/** Whether the build emits `source` as an ES module (under NodeNext: by its package.json `type`). */
function emitsEsm(source: string, options: TypeScript.CompilerOptions): boolean {
  if (!nodeModules(options)) return (options.module ?? ts.ModuleKind.CommonJS) >= ts.ModuleKind.ES2015;
  return ts.getImpliedNodeFormatForFile(source as TypeScript.Path, undefined, ts.sys, options) === ts.ModuleKind.ESNext;
}

/**
 * transpileModule sees one file, so it cannot look up the package.json `type` that decides a .ts
 * file's format under NodeNext: name the format the build would find.
 */
function moduleOptions(esm: boolean, options: TypeScript.CompilerOptions): TypeScript.CompilerOptions {
  if (!nodeModules(options)) return options;
  // Resolution plays no part in a one-file compile; NodeNext resolution would insist on NodeNext modules.
  return esm
    ? { ...options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }
    : { ...options, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
}

interface Output {
  path: string;
  text: string;
}

/**
 * One module's JavaScript: its text with the types blanked out when ts-blank-space can (a few times
 * faster than the emitter, which transforms and prints the whole tree; lines and columns stay those
 * of the source, so no source map is needed), else what transpileModule emits, with its source map
 * pointing back from dist/ as the build's maps do.
 */
function javascript(
  source: string,
  text: string,
  options: TypeScript.CompilerOptions,
  blank: TypeBlanker | undefined,
  outDir: string,
  /** The module parsed, where the build emits ES modules (blanking keeps `import` and `export` as written). */
  esmFile: TypeScript.SourceFile | undefined,
): { js: string; map?: string } {
  if (blank && esmFile) {
    const file = esmFile;
    let unsupported = false;
    const js = blank(file, () => {
      unsupported = true;
    });
    if (!unsupported) return { js };
  }
  const out = ts.transpileModule(text, {
    compilerOptions: moduleOptions(esmFile !== undefined, options),
    fileName: source,
  });
  if (out.sourceMapText === undefined) return { js: out.outputText };
  const map = JSON.parse(out.sourceMapText) as { sources: string[] };
  return { js: out.outputText, map: JSON.stringify({ ...map, sources: [toPosix(relative(outDir, source))] }) };
}

/**
 * One module's .js and .d.ts, or the problems that stop it: transpileDeclaration reports syntax
 * errors and every export whose type it would have to infer.
 */
function compileOne(
  root: string,
  source: string,
  text: string,
  options: TypeScript.CompilerOptions,
  blank: TypeBlanker | undefined,
): Compiled {
  const base = outBase(root, source);
  // Parsed once, for the types-only test and the blanker.
  const esmFile = emitsEsm(source, options)
    ? ts.createSourceFile(source, text, { languageVersion: ts.ScriptTarget.Latest }, false)
    : undefined;
  if (esmFile && declaresTypesOnly(esmFile)) {
    // Its declarations are its own text, and it has nothing to run (an ES module all the same).
    return {
      outputs: [
        { path: `${base}.js`, text: "export {};\n" },
        { path: `${base}.d.ts`, text },
      ],
      problems: [],
    };
  }
  const dts = ts.transpileDeclaration(text, { compilerOptions: options, fileName: source, reportDiagnostics: true });
  if (dts.diagnostics!.length > 0) return { outputs: [], problems: dts.diagnostics! };
  const { js, map } = javascript(source, text, options, blank, dirname(base), esmFile);
  const outputs = [
    { path: `${base}.js`, text: js },
    { path: `${base}.d.ts`, text: dts.outputText },
  ];
  if (map !== undefined) outputs.push({ path: `${base}.js.map`, text: map });
  return { outputs, problems: [] };
}

/**
 * A module of interfaces and type aliases only, as the types emitter writes types.ts (a third of
 * the generated text, and over half of the declaration emit's time): written with no syntax error
 * (the parser's own diagnostics, which the compiler keeps on the file), it is its own .d.ts.
 */
function declaresTypesOnly(file: TypeScript.SourceFile): boolean {
  const syntax = (file as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics;
  if (syntax === undefined || syntax.length > 0) return false;
  return file.statements.every(
    (s) =>
      ts.isInterfaceDeclaration(s) ||
      ts.isTypeAliasDeclaration(s) ||
      (ts.isImportDeclaration(s) && s.importClause?.isTypeOnly === true) ||
      (ts.isExportDeclaration(s) && s.isTypeOnly),
  );
}

interface Compiled {
  outputs: Output[];
  problems: readonly TypeScript.Diagnostic[];
}

/**
 * Modules compiled ahead, in memory, with the text they were compiled from: the generate thread
 * compiles each service's modules while the main thread still emits the next ones, and the compile
 * after writing takes a module from here when the file on disk holds that same text.
 */
const ahead = new Map<string, { text: string; compiled: Compiled }>();

/** Compiles `modules` (absolute source paths and their text) into memory, for compileModules to write. */
export async function compileAhead(root: string, modules: readonly { source: string; text: string }[]): Promise<void> {
  const { options, blank } = await prepareCompile(root);
  for (const { source, text } of modules)
    ahead.set(source, { text, compiled: compileOne(root, source, text, options, blank) });
}

/** TS9005–TS9039: a declaration needs a type a per-file compile cannot infer (isolatedDeclarations). */
const needsWrittenType = (d: TypeScript.Diagnostic) => d.code >= 9005 && d.code < 9040;

function describe(root: string, problems: readonly TypeScript.Diagnostic[]): string {
  const text = problems.slice(0, 3).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : undefined;
    const where = d.file ? `${toPosix(relative(root, d.file.fileName))}${line ? `:${line}` : ""}: ` : "";
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
  const fix = problems.some(needsWrittenType)
    ? " (the emitter must write the type of each exported value, function return and class member)"
    : "";
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  return `compiling generated code into dist/ failed (${count}): ${text.join("; ")}${fix}`;
}

/** What a compile needs loaded: the build's options and the type blanker (and with them the compiler). */
interface Toolchain {
  options: TypeScript.CompilerOptions;
  blank: TypeBlanker | undefined;
}

const toolchains = new Map<string, Promise<Toolchain>>();

/**
 * Loads the compiler, the build's options and the blanker, once per process and root: the generate
 * thread (generate-thread.ts) calls it as soon as it starts, so that loading overlaps the pipeline.
 */
export function prepareCompile(root: string): Promise<Toolchain> {
  let toolchain = toolchains.get(root);
  if (toolchain === undefined) {
    toolchain = (async () => {
      ts ??= (await import("../generator/compiler.js")).ts;
      shareCompilerWithBlanker();
      return { options: buildOptions(root), blank: await loadTypeBlanker() };
    })();
    toolchains.set(root, toolchain);
  }
  return toolchain;
}

/**
 * Compiles the generated modules `stale` (absolute paths) into dist/. Code that does not compile
 * is not written: dist/ keeps the last good build and the error says why.
 */
export async function compileModules(root: string, stale: readonly string[]): Promise<void> {
  const { options, blank } = await prepareCompile(root);
  const results = stale.map((source) => {
    const text = readFileSync(source, "utf8");
    const early = ahead.get(source);
    return early?.text === text ? early.compiled : compileOne(root, source, text, options, blank);
  });
  const problems = results.flatMap((r) => r.problems);
  if (problems.length > 0) throw new Error(describe(root, problems));
  for (const { outputs } of results) {
    const js = outputs[0]!.path;
    mkdirSync(dirname(js), { recursive: true });
    // A map the build wrote for an earlier .js would mislead a debugger about this one.
    if (!outputs.some((o) => o.path.endsWith(".map"))) rmSync(`${js}.map`, { force: true });
    for (const out of outputs) writeFileSync(out.path, out.text);
  }
}

/** Compiles modules into dist/: in this thread (compileModules) or on the generate thread. */
export type CompileModules = (stale: readonly string[]) => Promise<void>;

/**
 * Brings dist/generated/ in step with generated/: removes what no module compiles to any more and
 * compiles what is missing or older than its source, by `compile` (by default in this thread).
 */
export async function compileGenerated(root: string, compile?: CompileModules): Promise<DistSync> {
  const removed = orphans(root);
  for (const file of removed) rmSync(file);
  const stale = staleGeneratedModules(root);
  const removedPaths = removed.map((f) => toPosix(relative(root, f)));
  if (stale.length === 0) return { compiled: [], removed: removedPaths };
  await (compile ?? ((modules) => compileModules(root, modules)))(stale);
  return { compiled: stale.map((f) => toPosix(relative(root, f))), removed: removedPaths };
}

/** Compiles what changed in generated/ into dist/ and says so (silent when dist/ was in step). */
export async function reportDist(root: string, out: NodeJS.WritableStream, compile?: CompileModules): Promise<void> {
  const started = performance.now();
  const sync = await compileGenerated(root, compile);
  if (sync.compiled.length + sync.removed.length === 0) return;
  const ms = Math.round(performance.now() - started);
  const count = sync.removed.length;
  const removed = count > 0 ? `, ${count} stale file${count === 1 ? "" : "s"} removed` : "";
  const modules = `${sync.compiled.length} generated module${sync.compiled.length === 1 ? "" : "s"}`;
  out.write(`compiled ${modules} into dist/${removed}, ${ms} ms\n`);
}
