/**
 * The worker thread of checker-thread.ts. Loading `typescript` and parsing the library and runtime
 * declarations start as soon as the thread does, while the main thread is still reading and
 * checking the specs; each message is then one checker pass, answered with its changes.
 */
import { parentPort } from "node:worker_threads";
import { checkPairs, type CheckerInput } from "./typecheck.js";
import { pairProgram } from "./program.js";

try {
  // Parses and binds the library and the runtime's declarations, kept for the pass (program.ts).
  pairProgram("export {};\n");
} catch {
  // A runtime whose declarations do not resolve fails the pass itself, with its own message.
}

parentPort!.on("message", (input: CheckerInput) => {
  try {
    parentPort!.postMessage({ changes: checkPairs(input) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
