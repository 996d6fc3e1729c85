/**
 * A V8 code cache for one large CommonJS file (the 9 MB TypeScript compiler the generate thread
 * loads). Node 20 has no `module.enableCompileCache`, so a cold `generate` compiled the compiler's
 * source from scratch every time: its top level at load, then each function on first call. Here
 * the file is compiled through `vm.Script` with the bytes V8 handed out after the previous run had
 * used the compiler (`script.createCachedData()` at the end of the work, so the functions compiled
 * lazily along the way are in it too), and the module is put in `require.cache` so every later
 * `require("typescript")` (openapi-typescript's, the generator's) gets this very instance.
 *
 * v8-compile-cache-lib does the same for every module, but produces its data when a file is
 * compiled, before any function has run: it took ~20 ms off the compiler's load here, this ~120 ms
 * of CPU (and more once the compiler has run). Written by hand, in ~100 lines, for that reason.
 *
 * Safe to lose: the data is keyed by the file's path, size and mtime, Node's and V8's versions and
 * the architecture; V8 itself rejects data that does not fit the source (then the file is compiled
 * as usual and the data rewritten). A folder that cannot be read or written only costs the speed-up.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { packageRoot } from "./package-root.js";

/** What became of a file's cached data: used, missing (first run), or refused by V8 or by its key. */
export type CacheState = "accepted" | "missing" | "rejected";

export interface CachedModule {
  exports: unknown;
  state: CacheState;
  /** Writes the code V8 holds for the file now, unless the cache was accepted; never throws. */
  save(): void;
}

const MAGIC = "stepforge-code-cache 1";

/**
 * The folder of the compiler's code caches: the package's own, beside generate's no-change record.
 * Each user of the compiler keeps its own file under it (`generate`, `diff`): V8 keeps what the
 * first run compiled, and generate's emitters and diff's checker use different parts of it.
 */
export const codeCacheDir = (purpose: "generate" | "diff"): string =>
  join(packageRoot(), "node_modules", ".cache", "stepforge", purpose === "generate" ? "" : purpose);

/** The cache file of `filename` in `cacheDir`: one per source path and runtime, rewritten in place. */
export function cacheFileOf(cacheDir: string, filename: string): string {
  const runtime = `${filename}\0${process.version}\0${process.versions.v8}\0${process.arch}`;
  return join(cacheDir, `code-${createHash("sha256").update(runtime).digest("hex").slice(0, 16)}.bin`);
}

/** The header a cache file starts with: it must match the source's size and mtime to be used. */
export function cacheHeaderOf(filename: string): string {
  const { size, mtimeMs } = statSync(filename);
  return `${MAGIC} ${JSON.stringify({ filename, size, mtimeMs })}\n`;
}

/**
 * The file's text. The compiler's 9 MB are ASCII, and decoding them as UTF-8 cost ~160 ms of the
 * thread's start against ~90 ms read as bytes and taken one byte a character (the same text for
 * ASCII: Node's UTF-8 decoding of a large file is the slow part). Any other byte: UTF-8 as before.
 */
function sourceText(filename: string): string {
  const bytes = readFileSync(filename);
  return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
}

function readCache(file: string, header: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    const end = bytes.indexOf(10); // the header's newline
    if (end < 0 || bytes.toString("utf8", 0, end + 1) !== header) return undefined;
    return bytes.subarray(end + 1);
  } catch {
    return undefined;
  }
}

/**
 * Loads the CommonJS file `filename` as `require` would, with its code cache from `cacheDir`.
 * When the file is already in `require.cache` (loaded earlier another way) that module is returned.
 */
export function requireWithCodeCache(filename: string, cacheDir: string): CachedModule {
  const require = createRequire(filename);
  const loaded = require.cache[filename];
  if (loaded) return { exports: loaded.exports, state: "accepted", save: () => {} };
  const source = sourceText(filename);
  const header = cacheHeaderOf(filename);
  const file = cacheFileOf(cacheDir, filename);
  const cachedData = readCache(file, header);
  const script = new Script(Module.wrap(source), { filename, ...(cachedData ? { cachedData } : {}) });
  const state: CacheState = !cachedData ? "missing" : script.cachedDataRejected ? "rejected" : "accepted";
  const module = new Module(filename);
  module.filename = filename;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(filename));
  require.cache[filename] = module;
  try {
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename));
  } catch (error) {
    delete require.cache[filename]; // as require does: a failed load is not a module
    throw error;
  }
  module.loaded = true;
  return {
    exports: module.exports,
    state,
    save() {
      if (state === "accepted") return;
      try {
        mkdirSync(cacheDir, { recursive: true });
        // Written aside and renamed: a generate running at the same time reads all or nothing.
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, Buffer.concat([Buffer.from(header), script.createCachedData()]));
        renameSync(partial, file);
      } catch {
        // A read-only install or a full disk: the next run compiles the file as usual.
      }
    },
  };
}
