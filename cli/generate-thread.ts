/**
 * A cold `generate` from the built CLI puts the TypeScript side of its work on a worker thread
 * started before the pipeline: the types emitter (openapi-typescript, which loads the 9 MB compiler
 * and Redocly's bundler) and, in a checkout, the compile into dist/. The thread loads all that while
 * the main thread reads, checks and emits the specs, types each spec as soon as its model is sent,
 * and the main thread never loads the compiler. On two cores that is wall time saved; the CPU is the
 * same (each module is loaded once, on one thread). The output is the same: the thread runs the
 * very typesFile and compileModules the in-process pipeline runs.
 *
 * From the TypeScript sources (tests run them through a loader a worker does not inherit), and on a
 * machine with one core, all of it runs in-process instead; the built CLI always has the compiled
 * worker beside this file.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { SpecError, type Diagnostic } from "../generator/diagnostics.js";
import type { GeneratedFile } from "../generator/emit/file.js";
import type { TypesInput } from "../generator/emit/types.js";
import { codeCacheDir } from "../generator/code-cache.js";
import type { CompileModules } from "./compile-generated.js";

/** A module to compile ahead: its absolute source path and the text it is about to be written with. */
export interface ModuleText {
  source: string;
  text: string;
}

export type Job =
  | { id: number; types: TypesInput }
  | { id: number; ahead: readonly ModuleText[] }
  | { id: number; compile: readonly string[] }
  /** The last job: the thread writes the compiler's code cache if it had none (code-cache.ts). */
  | { id: number; finish: true };
export type Reply = { id: number; file?: GeneratedFile; error?: string; diagnostics?: Diagnostic[] };

export interface GenerateThread {
  types: (input: TypesInput) => Promise<GeneratedFile>;
  /** Starts compiling modules before they are written (the compile then checks the text on disk). */
  compileAhead: (modules: readonly ModuleText[]) => void;
  compile: CompileModules;
  /** Ends the worker (also when a job was never sent, or the pipeline failed), saving its code cache. */
  stop: () => Promise<void>;
}

/**
 * `root` is given in a checkout, where the thread also readies the compile into dist/. `codeCache`:
 * the folder of the compiler's V8 code cache (code-cache.ts), or false to load it as usual.
 */
export function startGenerateThread(
  root: string | undefined,
  cores: number = availableParallelism(),
  codeCache: string | false = codeCacheDir("generate"),
): GenerateThread | undefined {
  if (!import.meta.url.endsWith(".js")) return undefined;
  // The thread saves wall time only beside a free core; on one it costs ~0.5 s of CPU and ~50 MB.
  if (cores < 2) return undefined;
  const worker = new Worker(new URL("./generate-worker.js", import.meta.url), {
    workerData: { root, codeCache },
  });
  // Idle, it must not keep the process alive; jobs in flight hold it until their replies.
  worker.unref();
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const job of pending.values()) job.reject(error);
    pending.clear();
    worker.unref();
  };
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`the generate thread exited (code ${code})`)));
  worker.on("message", (reply: Reply) => {
    const job = pending.get(reply.id);
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    job?.resolve(reply);
  });
  let next = 0;
  const send = (job: Job) =>
    new Promise<Reply>((resolve, reject) => {
      if (failure) return reject(failure);
      pending.set(job.id, { resolve, reject });
      worker.ref();
      worker.postMessage(job);
    }).then((reply) => {
      if (reply.diagnostics) throw new SpecError(reply.diagnostics);
      if (reply.error !== undefined) throw new Error(reply.error);
      return reply;
    });
  return {
    types: async (types) => (await send({ id: next++, types })).file!,
    compileAhead: (modules) => void send({ id: next++, ahead: modules }).catch(() => undefined),
    compile: async (stale) => void (await send({ id: next++, compile: stale })),
    stop: async () => {
      // Only after a clean run: a failed thread has nothing worth keeping, and does not answer.
      if (!failure) await send({ id: next++, finish: true }).catch(() => undefined);
      await worker.terminate();
    },
  };
}
