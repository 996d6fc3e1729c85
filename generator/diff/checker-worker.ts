/**
 * The worker thread of checker-thread.ts. Loading `typescript` and parsing the library and runtime
 * declarations start as soon as the thread does, while the main thread is still reading and
 * checking the specs; then, until the first message, warm-up passes (checker-warm-up.ts) get V8 to
 * compile the parser and checker. Each message is one checker pass, answered with its changes.
 */
import { parentPort } from "node:worker_threads";
import { warmUpInput } from "./checker-warm-up.js";
import { checkPairs, type CheckerInput } from "./typecheck.js";
import { pairProgram } from "./program.js";

/**
 * At most this many warm-up passes (about 20–40 ms each): 20 take the first real pass on the Trello
 * spec from ~470 to ~250 ms of CPU, and a diff that never needs the checker (a rename only) should
 * not spend a core on them for long.
 */
const WARM_UP_PASSES = 20;

/**
 * Warm up only when the process has had two cores to itself while this thread parsed the library
 * (its CPU time at least 1.6× the wall time, the main thread checking the specs meanwhile): on a
 * busy or one-core machine a warm-up pass would take CPU from the main thread instead of idle time.
 */
const PARALLEL_ENOUGH = 1.6;

const started = { wall: performance.now(), cpu: process.cpuUsage() };
let warming = true;
try {
  // Parses and binds the library and the runtime's declarations, kept for the pass (program.ts).
  pairProgram("export {};\n");
} catch {
  // A runtime whose declarations do not resolve fails the pass itself, with its own message.
  warming = false;
}

/** One warm-up pass per turn of the event loop, so a message waits for one pass at most. */
function warmUp(input: CheckerInput, left: number): void {
  if (!warming || left === 0) return;
  try {
    checkPairs(input);
  } catch {
    return; // a warm-up that fails only warms less; the real pass reports its own errors
  }
  setImmediate(() => warmUp(input, left - 1));
}
const cpu = process.cpuUsage(started.cpu);
const parallelism = (cpu.user + cpu.system) / 1000 / (performance.now() - started.wall);
if (warming && parallelism >= PARALLEL_ENOUGH) setImmediate(() => warmUp(warmUpInput(), WARM_UP_PASSES));

parentPort!.on("message", (input: CheckerInput) => {
  warming = false;
  try {
    parentPort!.postMessage({ changes: checkPairs(input) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
