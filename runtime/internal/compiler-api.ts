/**
 * Which TypeScript gives stepforge the compiler's JavaScript API (`ts.createProgram`, the checker,
 * `ts.factory`): code mode's check, and generate's types (openapi-typescript prints them with it),
 * its naming of recursive schemas and diff's checker pass.
 *
 * TypeScript 7, npm's `latest` since late 2026, is the native compiler: its package holds a `tsc`
 * binary and no JavaScript API (`require("typescript")` answers the version and nothing else). A
 * project that compiles with it keeps its `typescript` as it is; stepforge then uses the TypeScript
 * 5.9 that ts-morph carries inside it (`@ts-morph/common`, no `tsc` of its own, so nothing in the
 * project changes), when ts-morph is installed. Without it the feature stops with one sentence
 * that says so and names both ways out.
 *
 * The version is read from the package's manifest before anything is loaded: loading TypeScript 7's
 * entry to find out would be harmless, but a 9 MB TypeScript 5 loaded only to be inspected would not.
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";
import type * as TS from "typescript";
import { installCommand } from "./package-bin.js";

/** The first TypeScript major without the JavaScript compiler API. */
export const NATIVE_MAJOR = 7;

/** No TypeScript with the compiler API can be found; the message names both ways to add one. */
export class CompilerApiError extends Error {
  override name = "CompilerApiError";
  constructor(
    message: string,
    /** No `typescript` at all, or one without the API (TypeScript 7) and no ts-morph beside it. */
    readonly reason: "missing" | "native",
  ) {
    super(message);
  }
}

export interface CompilerApi {
  ts: typeof TS;
  /** The compiler's main file (the CommonJS module `ts` was loaded from). */
  file: string;
  version: string;
  /** The project's own `typescript`, or the copy inside ts-morph (the project's is TypeScript 7+). */
  from: "typescript" | "ts-morph";
  /** A library file's text by its name (`lib.es5.d.ts`), wherever this compiler keeps them. */
  readLib(name: string): string | undefined;
}

/** Where a compiler with the API is, without loading it. */
export interface CompilerApiLocation {
  file: string;
  version: string;
  from: CompilerApi["from"];
}

const ownRequire = createRequire(import.meta.url);
/** `require` as seen from a folder of the project (default: this package's own place in it). */
const requireFrom = (from: string | undefined) => (from ? createRequire(join(from, "noop.js")) : ownRequire);

function manifestVersion(require: NodeJS.Require, name: string): string | undefined {
  try {
    const file = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

const major = (version: string) => Number.parseInt(version, 10);

/** The version of the `typescript` Node finds from `from` (default: this package), unloaded. */
export function installedTypeScriptVersion(from?: string): string | undefined {
  return manifestVersion(requireFrom(from), "typescript");
}

/** The major of installedTypeScriptVersion, or undefined when no typescript is installed. */
export function installedTypeScriptMajor(from?: string): number | undefined {
  const version = installedTypeScriptVersion(from);
  return version === undefined ? undefined : major(version);
}

/**
 * The compiler `feature` is to use, found from `from` (a file or folder; default this package):
 * the project's `typescript` when it has the API, else ts-morph's copy. Throws CompilerApiError
 * when neither is there.
 */
export function locateCompilerApi(
  feature: string,
  options: { from?: string | undefined; dependency?: "dev" | "runtime" } = {},
): CompilerApiLocation {
  const { from, dependency = "dev" } = options;
  const require = requireFrom(from);
  const version = manifestVersion(require, "typescript");
  if (version !== undefined && major(version) < NATIVE_MAJOR) {
    return { file: require.resolve("typescript"), version, from: "typescript" };
  }
  const morphed = tsMorphCompiler(require);
  if (morphed) return morphed;
  if (version === undefined) {
    throw new CompilerApiError(
      `${feature} needs the TypeScript compiler, which is not installed; add it to your project: ` +
        installCommand(["typescript"], dependency),
      "missing",
    );
  }
  throw new CompilerApiError(
    `${feature} needs TypeScript's JavaScript compiler API, and this project's typescript ${version} is the ` +
      `native compiler, which has none. Keep it and add ts-morph, whose TypeScript 5.9 stepforge then uses: ` +
      `${installCommand(["ts-morph"], dependency)} (or ${installCommand(["typescript"], dependency)} in its place)`,
    "native",
  );
}

/** TypeScript inside ts-morph (its `@ts-morph/common`), when ts-morph is installed. */
function tsMorphCompiler(require: NodeJS.Require): CompilerApiLocation | undefined {
  try {
    const common = createRequire(require.resolve("ts-morph")).resolve("@ts-morph/common");
    const file = join(dirname(common), "typescript.js");
    // The bundled compiler states its version near the top (`version = "5.9.2"`, at 124 KB in 5.9).
    const head = Buffer.alloc(256 * 1024);
    const fd = openSync(file, "r");
    let length: number;
    try {
      length = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    const version = /\bversion = "(\d+\.\d+\.\d+[^"]*)"/.exec(head.toString("latin1", 0, length))?.[1] ?? "5";
    return { file, version, from: "ts-morph" };
  } catch {
    return undefined;
  }
}

/** Loads the compiler `locateCompilerApi` finds (once per file; `require` caches it). */
export function loadCompilerApi(feature: string, options: Parameters<typeof locateCompilerApi>[1] = {}): CompilerApi {
  const location = locateCompilerApi(feature, options);
  const ts = createRequire(location.file)(location.file) as typeof TS;
  return { ...location, ts, readLib: libReader(location, ts) };
}

function libReader(location: CompilerApiLocation, ts: typeof TS): (name: string) => string | undefined {
  if (location.from === "typescript") {
    const dir = dirname(ts.getDefaultLibFilePath({}));
    return (name) => ts.sys.readFile(join(dir, name));
  }
  // ts-morph keeps the library files as text in its common module, not as files.
  let files: Map<string, string> | undefined;
  return (name) => {
    if (!files) {
      const common = createRequire(location.file)("./ts-morph-common.js") as {
        getLibFiles(): Array<{ fileName: string; text: string }>;
      };
      files = new Map(common.getLibFiles().map((f) => [f.fileName, f.text]));
    }
    return files.get(name);
  };
}

/**
 * Makes `require("typescript")` from inside `packageName` (openapi-typescript, whose peer it is)
 * answer the compiler `locateCompilerApi` finds, when the `typescript` that package would load has
 * no API. The module goes into Node's CommonJS cache under that file's name, for this process only:
 * nothing on disk changes. A no-op when the package finds a compiler with the API itself.
 */
export function lendCompilerApi(
  packageName: string,
  feature: string,
  options: { from?: string | undefined } = {},
): CompilerApiLocation | undefined {
  const require = requireFrom(options.from);
  let packageRequire: NodeJS.Require;
  let target: string;
  try {
    packageRequire = createRequire(require.resolve(packageName));
    target = packageRequire.resolve("typescript");
  } catch {
    return undefined; // not installed: the feature's own check names the package
  }
  const version = manifestVersion(packageRequire, "typescript");
  if (version !== undefined && major(version) < NATIVE_MAJOR) return undefined;
  const api = loadCompilerApi(feature, options);
  // A module already there is TypeScript 7's entry (loaded by someone before): no use to anyone.
  if (target !== api.file && packageRequire.cache[target]?.exports !== api.ts) {
    const module = new Module(target);
    module.filename = target;
    module.exports = api.ts;
    module.loaded = true;
    packageRequire.cache[target] = module;
  }
  return api;
}
