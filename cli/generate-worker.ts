/**
 * The worker thread of generate-thread.ts. It loads openapi-typescript (and with it the compiler)
 * as soon as it starts, and in a checkout the compile's options and type blanker after it, while
 * the main thread reads and checks the specs; each message is then one job: a spec's types.ts, or
 * the generated modules to compile into dist/.
 */
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { SpecError } from "../generator/diagnostics.js";
import { typesFile } from "../generator/emit/types.js";
import { compileAhead, compileModules, prepareCompile } from "./compile-generated.js";
import type { Job, Reply } from "./generate-thread.js";

const { root } = workerData as { root: string | undefined };

// Warming up only (the types jobs need these first): a failure here is the job's to report.
try {
  createRequire(import.meta.url)("openapi-typescript");
  await import("../generator/emit/recursive-types.js");
} catch {}

async function run(job: Job): Promise<Reply> {
  try {
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
