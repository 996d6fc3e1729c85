/**
 * The sandbox's worker thread: one QuickJS module, one run at a time. The server's thread sends
 * the code; every service call comes back to it as a message (the credentials, the runtime
 * client and the network stay there) and its reply is handed into QuickJS as a string.
 *
 * A worker of its own because QuickJS's interrupt handler is not consulted inside a builtin: a
 * single `"x".repeat(2 ** 28)` ran 80 s without one check. Here such a run blocks only this
 * thread; the server's thread notices that the worker went quiet past the CPU budget and
 * terminates it (sandbox.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { currentThreadId } from "../internal/thread-cpu.js";
import type { BridgeRequest, FromWorker, RunSetup, ToWorker } from "./protocol.js";
import { PutOff } from "./put-off.js";
import { prepareRun, type PreparedRun, type VmEvents, type VmRun } from "./vm.js";

const port = parentPort;
if (!port) throw new Error("runtime/code/worker.ts runs as a worker thread of the code mode's sandbox");

const send = (message: FromWorker) => port.postMessage(message);
/** How long a finished run's recycling waits for the server's thread to answer its outcome. */
const RECYCLE_DELAY_MS = 3;

/**
 * The memory budget is the WebAssembly memory's own maximum. QuickJS's memory limit is not enough
 * here: this build has no malloc_usable_size, so QuickJS counts each allocation as 8 bytes and a
 * program of large arrays grew past 290 MB under a 32 MB limit. A memory that cannot grow past its
 * maximum makes every allocation beyond it fail, which QuickJS reports as "out of memory".
 */
const { memoryBytes } = workerData as { memoryBytes: number };
const PAGE = 65_536;
/** What QuickJS's module starts with (its stack, its own runtime); the code's budget comes on top. */
const BASE_BYTES = 16 * 1024 * 1024;
const maximum = BASE_BYTES + Math.ceil(memoryBytes / PAGE) * PAGE;
const memory = new WebAssembly.Memory({ initial: BASE_BYTES / PAGE, maximum: maximum / PAGE });
const { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } = await import("quickjs-emscripten");
const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
/** The memory has grown to its maximum (less a megabyte): a failure now is the code's memory use. */
const exhausted = () => memory.buffer.byteLength + 1024 * 1024 >= maximum;
let nextId = 0;
const waiting = new Map<number, (text: string) => void>();
/**
 * Calls the code made while QuickJS ran, sent when it waits. QuickJS holds this thread until then,
 * so a call waits for nothing it would not have waited for; under load each message between the
 * threads cost about a millisecond of scheduling.
 */
const outbox: Array<{ id: number; request: BridgeRequest }> = [];
const events: VmEvents = { onIdle: (cpuMs) => send({ type: "idle", cpuMs, calls: outbox.splice(0) }), exhausted };
let running: VmRun | undefined;
/** The services and budgets runs are for: the last ones the server's thread sent. */
let setup: RunSetup = {
  shape: [],
  budgets: { cpuMs: 0, wallMs: 0, memoryBytes, stackBytes: 0, calls: 0, outputBytes: 0 },
};
/**
 * Freeing a finished run's runtime and preparing the next, put off for a few milliseconds: the server's
 * thread answers the outcome meanwhile (the answer takes it about half a millisecond; an agent's next
 * execute comes seconds later).
 */
const recycling = new PutOff(RECYCLE_DELAY_MS);
/** The next run, prepared while the worker waited (for `setup`, the object it was prepared for). */
let spare: { setup: RunSetup; run: PreparedRun } | undefined;

function hostCall(request: BridgeRequest, signal: AbortSignal): Promise<string> {
  const id = ++nextId;
  return new Promise<string>((resolve) => {
    const abandon = () => {
      waiting.delete(id);
      const queued = outbox.findIndex((call) => call.id === id);
      if (queued >= 0) outbox.splice(queued, 1);
      resolve(
        JSON.stringify({
          ok: false,
          error: { kind: "aborted", message: "the run ended before the call's answer came" },
        }),
      );
    };
    if (signal.aborted) return abandon();
    signal.addEventListener("abort", abandon, { once: true });
    waiting.set(id, (text) => {
      signal.removeEventListener("abort", abandon);
      resolve(text);
    });
    outbox.push({ id, request });
  });
}

port.on("message", (message: ToWorker) => {
  if (message.type === "reply") {
    if (message.heldMs) running?.extendWall(message.heldMs);
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message.text);
  } else if (message.type === "cancel") {
    running?.cancel(message.kind, message.message);
  } else if (message.type === "run") {
    // The last run's runtime is freed and the next one prepared before this run takes it.
    recycling.now();
    if (message.setup) setup = message.setup;
    const current = setup;
    const prepared =
      spare?.setup === current ? spare.run : prepareRun(module, current.shape, hostCall, current.budgets, events);
    spare = undefined;
    const run = prepared.start(message.js, message.main);
    running = run;
    void run.done.then(({ outcome, clean }) => {
      running = undefined;
      waiting.clear();
      // Calls the code started and never awaited before it ended are not sent.
      outbox.length = 0;
      send({ type: "done", outcome: { ...outcome, heapBytes: memory.buffer.byteLength }, clean });
      // The outcome goes first: freeing this runtime and making the next one are off the run's path,
      // put off until the server's thread has likely answered (PutOff), or done at once by the next run.
      if (!clean) return;
      recycling.later(() => {
        if (!run.dispose()) {
          // Freeing failed: the module is not trusted with another run. The server's thread sees this
          // thread end and starts another (a run sent meanwhile fails as the sandbox's, to be re-run).
          process.exit(1);
        }
        spare ??= { setup: current, run: prepareRun(module, current.shape, hostCall, current.budgets, events) };
      });
    });
  }
});

// One small run before the first real one: QuickJS's WebAssembly is compiled lazily, and the first
// run paid ~400 ms of it against its CPU budget.
const warmBudgets = {
  cpuMs: 60_000,
  wallMs: 60_000,
  memoryBytes: memoryBytes,
  stackBytes: 256 * 1024,
  calls: 0,
  outputBytes: 1024,
};
await prepareRun(module, [], hostCall, warmBudgets, { onIdle: () => {}, exhausted }).start(
  "async function main(s) { return JSON.stringify([1, { a: 'b' }]).length; }",
  "main",
).done;
send({ type: "ready", thread: currentThreadId() });
