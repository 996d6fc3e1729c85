/**
 * Where `stepforge diff` runs its checker pass: on a worker thread started when the command starts.
 * Loading `typescript` (one 9 MB CommonJS file) is about a quarter of a diff and is needed only
 * at its end; on the worker it overlaps with reading and checking the two specs on the main thread,
 * and so do parsing the library's and the runtime's declarations and warming the parser and checker.
 * The verdicts are the same: the worker runs the very checkPairs the in-process pass runs.
 *
 * From the TypeScript sources (tests run them through a loader a worker does not inherit) the pass
 * runs in-process instead; the built CLI always has the compiled worker beside this file.
 */
import { Worker } from "node:worker_threads";
import { codeCacheDir } from "../code-cache.js";
import type { Change } from "./change.js";
import type { CheckerInput } from "./typecheck.js";

export type CheckPass = (input: CheckerInput) => Promise<Change[]>;

export interface CheckerThread {
  check: CheckPass;
  /**
   * Ends the worker (also when the pass was never needed: a rename-only diff), after it saved the
   * compiler's code cache when it had none (a first run, or a new compiler).
   */
  stop: () => Promise<void>;
}

/** The checker pass in this thread: loads the compiler on first use. */
export const checkInProcess: CheckPass = async (input) => (await import("./typecheck.js")).checkPairs(input);

type Reply = { changes: Change[] } | { error: string };

/** `codeCache`: the folder of the compiler's V8 code cache (code-cache.ts), or false to load it as usual. */
export function startCheckerThread(codeCache: string | false = codeCacheDir("diff")): CheckerThread {
  if (!import.meta.url.endsWith(".js")) return { check: checkInProcess, stop: async () => undefined };
  const worker = new Worker(new URL("./checker-worker.js", import.meta.url), {
    workerData: { codeCache: codeCache === false ? undefined : codeCache },
  });
  // Idle, it must not keep the process alive; a pass in flight holds it with the pending reply.
  worker.unref();
  let failure: Error | undefined;
  worker.on("error", (error) => (failure = error));
  let passed = false;
  const check: CheckPass = (input) =>
    new Promise<Change[]>((resolve, reject) => {
      passed = true;
      if (failure) return reject(failure);
      const done = () => {
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        worker.unref();
      };
      const onMessage = (reply: Reply) => {
        done();
        if ("error" in reply) reject(new Error(reply.error));
        else resolve(reply.changes);
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`the checker thread exited (code ${code})`));
      };
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.ref();
      worker.postMessage(input);
    });
  const stop = async () => {
    // Only a pass that ran has compiled what the cache should hold: a rename-only diff ends at once.
    if (passed && !failure) {
      worker.ref();
      await new Promise<void>((resolve) => {
        worker.once("message", () => resolve()).once("exit", () => resolve());
        worker.postMessage({ finish: true });
      });
    }
    await worker.terminate();
  };
  return { check, stop };
}
