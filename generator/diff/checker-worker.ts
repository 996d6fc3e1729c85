/**
 * The worker thread of checker-thread.ts. Loading `typescript` (with its V8 code cache when the
 * thread was given a folder: code-cache.ts) and parsing the library and runtime declarations start
 * as soon as the thread does, while the main thread is still reading and checking the specs; each
 * message is then one checker pass, answered with its changes, and `finish` saves the code cache.
 */
import { parentPort, workerData } from "node:worker_threads";
import { locateCompilerApi } from "../../runtime/internal/compiler-api.js";
import { requireWithCodeCache, type CachedModule } from "../code-cache.js";
import type { CheckerInput } from "./typecheck.js";

const { codeCache } = (workerData ?? {}) as { codeCache?: string };

/** The compiler loaded through its code cache, before typecheck.js (and compiler.ts) require it. */
let compiler: CachedModule | undefined;
try {
  if (codeCache) compiler = requireWithCodeCache(locateCompilerApi("stepforge diff").file, codeCache);
} catch {
  // Loaded as usual below; a compiler that cannot load fails the pass with its own message.
}
const { checkPairs } = await import("./typecheck.js");
const { pairProgram } = await import("./program.js");

try {
  // Parses and binds the library and the runtime's declarations, kept for the pass (program.ts).
  pairProgram("export {};\n");
} catch {
  // A runtime whose declarations do not resolve fails the pass itself, with its own message.
}

parentPort!.on("message", (input: CheckerInput | { finish: true }) => {
  if ("finish" in input) {
    compiler?.save();
    parentPort!.postMessage({ finished: true });
    return;
  }
  try {
    parentPort!.postMessage({ changes: checkPairs(input) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
