/**
 * The worker thread of generate-thread.ts. It loads openapi-typescript (and with it the compiler)
 * as soon as it starts, and in a checkout the compile's options and type blanker after it, while
 * the main thread reads and checks the specs; each message is then one job: a spec's types.ts, or
 * the generated modules to compile into dist/.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { SpecError } from "../generator/diagnostics.js";
import { lendCompilerApi, locateCompilerApi } from "../runtime/internal/compiler-api.js";
import { requireWithCodeCache, type CachedModule } from "../generator/code-cache.js";
import { typesFile } from "../generator/emit/types.js";
import { compileAhead, compileModules, prepareCompile } from "./compile-generated.js";
import type { Job, Reply } from "./generate-thread.js";

const { root, codeCache } = workerData as { root: string | undefined; codeCache: string | false };

/** The compiler loaded with its V8 code cache; saved by the last job when it had none. */
let compiler: CachedModule | undefined;

// Warming up only (the types jobs need these first): a failure here is the job's to report.
try {
  const require = createRequire(import.meta.url);
  // The compiler openapi-typescript requires, so that its `require("typescript")` gets this one
  // (in a project on TypeScript 7, ts-morph's copy, lent to it: runtime/internal/compiler-api.ts).
  const from = dirname(require.resolve("openapi-typescript"));
  const typescript = locateCompilerApi("code generation (openapi-typescript)", { from }).file;
  if (codeCache !== false) compiler = requireWithCodeCache(typescript, codeCache);
  lendCompilerApi("openapi-typescript", "code generation (openapi-typescript)");
  require("openapi-typescript");
  await import("../generator/emit/recursive-types.js");
} catch {}

async function run(job: Job): Promise<Reply> {
  try {
    if ("finish" in job) {
      compiler?.save();
      return { id: job.id };
    }
    if ("types" in job) return { id: job.id, file: await typesFile(job.types) };
    if ("ahead" in job) {
      await compileAhead(root!, job.ahead);
      return { id: job.id };
    }
    await compileModules(root!, job.compile);
    return { id: job.id };
  } catch (error) {
    if (error instanceof SpecError) return { id: job.id, diagnostics: error.diagnostics };
    return { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on("message", (job: Job) => {
  void run(job).then((reply) => parentPort!.postMessage(reply));
});

// The compile's blanker and options next, between the types jobs (prepareCompile keeps one load).
if (root !== undefined) setImmediate(() => prepareCompile(root).catch(() => undefined));
