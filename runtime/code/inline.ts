/**
 * The sandbox on the server's own thread (`sandbox: "inline"`): QuickJS runs where the bridge is,
 * so a call leaves the code and its reply comes back without a message between threads. The worker threads
 * (sandbox.ts) cost two thread hops per call and one for the outcome; under a shared machine's
 * load each hop waited for the other thread to be scheduled (0.2–2.6 ms each, timeline in
 * bench/RESULTS.md, round 10).
 *
 * What a worker gave, kept here:
 * - a builtin QuickJS does not interrupt (`new Array(2 ** 27).join("")`): each entry into QuickJS
 *   that runs the code (loading it, the jobs after a reply) runs under `node:vm`'s timeout, whose watchdog terminates
 *   the server thread's JavaScript and
 *   WebAssembly past the code's CPU time left plus a grace; the run fails as `cpu_time` and its
 *   module (its WebAssembly instance and memory) is dropped, as a worker was;
 * - memory: each engine's WebAssembly memory cannot grow past the budget (as in worker.ts);
 * - a WebAssembly abort (a RuntimeError) fails the run as the sandbox's and drops the module; the
 *   server goes on with a new one.
 * No call leaves during an entry into QuickJS: the code's calls are queued and sent once QuickJS
 * waits, so a watchdog's stop never cuts the bridge or the runtime client short.
 *
 * Each run has a fresh QuickJS runtime and context (no state crosses runs); the next one is
 * prepared once a run is over, off the path of the run that follows.
 *
 * What it costs: the code's own CPU time (up to its budget, 5 s by default; a stuck builtin up to
 * that plus the grace) holds the server's thread, so other requests wait meanwhile. With worker
 * threads only that worker waits. Hence opt-in, for servers with one client (stdio).
 */
import vm from "node:vm";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { MemberPool } from "./pool.js";
import type { BridgeRequest, HostCall, SandboxBudgets, SandboxOutcome, ShapeEntry } from "./protocol.js";
import { NOT_RUN, type CodeSandbox, type RunJob } from "./sandbox.js";
import { prepareRun, StuckInBuiltin, type PreparedRun, type VmEvents } from "./vm.js";

/**
 * How long past the CPU time left one entry into QuickJS may run before it is stopped (as the
 * workers' watchdog, sandbox.ts). A run stopped with its memory at the maximum fails as `memory`:
 * the 4 MiB memory bomb spends about 1 s inside allocation builtins before it runs out.
 */
const GRACE_MS = 1_000;
const PAGE = 65_536;
/** What QuickJS's module starts with (its stack, its own runtime); the code's budget comes on top. */
const BASE_BYTES = 16 * 1024 * 1024;

/** Runs `work` under a watchdog of `timeoutMs`; past it, throws StuckInBuiltin (the work was stopped). */
function guarded<T>(work: () => T, timeoutMs: number): T {
  const context = guardContext();
  let value: T | undefined;
  context.work = () => (value = work());
  try {
    GUARD_SCRIPT.runInContext(context, { timeout: Math.max(1, Math.ceil(timeoutMs)) });
  } catch (error) {
    if ((error as { code?: string })?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new StuckInBuiltin();
    throw error;
  } finally {
    context.work = undefined;
  }
  return value as T;
}
const GUARD_SCRIPT = new vm.Script("work()", { filename: "stepforge-sandbox-guard.js" });
let sharedContext: vm.Context | undefined;
const guardContext = () => (sharedContext ??= vm.createContext({ work: undefined }));

/** One QuickJS module with a memory of its own; one run at a time. */
class Engine {
  readonly ready: Promise<QuickJSWASMModule>;
  readonly memory: WebAssembly.Memory;
  private readonly maximum: number;
  busy = false;
  /** A run left QuickJS in a state the module is not trusted with again. */
  dropped = false;
  /** The next run's runtime, prepared after the last run ended (for the same services and budgets). */
  spare: Spare | undefined;

  constructor(memoryBytes: number) {
    this.maximum = BASE_BYTES + Math.ceil(memoryBytes / PAGE) * PAGE;
    this.memory = new WebAssembly.Memory({ initial: BASE_BYTES / PAGE, maximum: this.maximum / PAGE });
    this.ready = import("quickjs-emscripten").then(({ newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC }) =>
      newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: this.memory })),
    );
    this.ready.catch(() => {});
  }

  /** The memory has grown to its maximum (less a megabyte): a failure now is the code's memory use. */
  exhausted = () => this.memory.buffer.byteLength + 1024 * 1024 >= this.maximum;
}

/** A run prepared before its code arrived: the host and the idle hook it will use are set when it starts. */
interface Spare {
  key: string;
  run: PreparedRun;
  binding: { host: HostCall; onIdle: () => void };
}

function prepareSpare(engine: Engine, module: QuickJSWASMModule, shape: ShapeEntry[], budgets: SandboxBudgets): Spare {
  const binding: Spare["binding"] = { host: async () => "", onIdle: () => {} };
  const events: VmEvents = {
    onIdle: () => binding.onIdle(),
    exhausted: engine.exhausted,
    guard: (work, cpuLeftMs) => guarded(work, cpuLeftMs + GRACE_MS),
  };
  const run = prepareRun(module, shape, (request, signal) => binding.host(request, signal), budgets, events);
  return { key: JSON.stringify([shape, budgets]), run, binding };
}

export interface InlineSandboxOptions {
  /** Runs at once, each in a QuickJS module of its own (default 2); more wait their turn. */
  engines?: number | undefined;
  memoryBytes: number;
}

export class InlineSandbox implements CodeSandbox {
  private readonly pool: MemberPool<Engine>;
  private readonly memoryBytes: number;
  started = 0;

  constructor(options: InlineSandboxOptions) {
    this.memoryBytes = options.memoryBytes;
    this.pool = new MemberPool<Engine>({
      size: Math.max(1, options.engines ?? 2),
      make: () => new Engine(options.memoryBytes),
      usable: (engine) => !engine.dropped,
      discard: (engine) => engine.dropped,
    });
  }

  /** Loads one module and runs a small program in it (QuickJS's WebAssembly is compiled lazily). */
  async warm(): Promise<void> {
    const engine = this.pool.members.find((e) => !e.dropped) ?? this.pool.add();
    const module = await engine.ready;
    if (engine.busy) return;
    const budgets = { cpuMs: 60_000, wallMs: 60_000, memoryBytes: this.memoryBytes, stackBytes: 256 * 1024 };
    const events: VmEvents = { onIdle: () => {}, exhausted: engine.exhausted };
    const run = prepareRun(module, [], async () => "", { ...budgets, calls: 0, outputBytes: 1024 }, events).start(
      "async function main(s) { return JSON.stringify([1, { a: 'b' }]).length; }",
      "main",
    );
    await run.done;
    run.dispose();
  }

  /** Runs the job's code; never rejects. */
  async run(job: RunJob): Promise<SandboxOutcome> {
    // On this thread the check is over before the run could start: a failed one runs nothing.
    if (job.checked && !(await job.checked.catch(() => false))) return NOT_RUN;
    let engine: Engine;
    try {
      engine = await this.pool.acquire();
    } catch (error) {
      return { failure: { kind: "cancelled", message: (error as Error).message }, logs: [], calls: 0, cpuMs: 0 };
    }
    let module: QuickJSWASMModule;
    try {
      module = await engine.ready;
    } catch (error) {
      engine.dropped = true;
      this.pool.release(engine);
      const message =
        `the code mode's sandbox could not start: ${(error as Error).message}. It needs the package ` +
        `quickjs-emscripten (0.32) installed beside stepforge.`;
      return { failure: { kind: "sandbox", message }, logs: [], calls: 0, cpuMs: 0 };
    }
    return this.runOn(engine, module, job);
  }

  private async runOn(engine: Engine, module: QuickJSWASMModule, job: RunJob): Promise<SandboxOutcome> {
    const { shape, host, budgets, signal } = job;
    /** Calls the code made during an entry into QuickJS, sent once it waits (see the module comment). */
    const outbox: Array<() => void> = [];
    let ended = false;
    const queued: HostCall = (request: BridgeRequest, runSignal: AbortSignal) =>
      new Promise<string>((resolve) => outbox.push(() => void host(request, runSignal).then(resolve, resolve)));
    if (signal?.aborted) {
      this.pool.release(engine);
      const message = "The call was cancelled by the client before it ran.";
      return { failure: { kind: "cancelled", message }, logs: [], calls: 0, cpuMs: 0 };
    }
    const key = JSON.stringify([shape, budgets]);
    let spare: Spare;
    try {
      spare = engine.spare?.key === key ? engine.spare : prepareSpare(engine, module, shape, budgets);
    } catch (error) {
      // QuickJS could not make a runtime (its module failed): the next run gets a new module.
      engine.dropped = true;
      this.pool.release(engine);
      const message = `The sandbox failed (${(error as Error).message}); nothing was run. Run the code again.`;
      return { failure: { kind: "sandbox", message }, logs: [], calls: 0, cpuMs: 0 };
    }
    engine.spare = undefined;
    spare.binding.host = queued;
    spare.binding.onIdle = () => {
      if (!ended) for (const send of outbox.splice(0)) send();
    };
    const prepared = spare.run;
    this.started++;
    const run = prepared.start(job.js, job.main);
    const cancel = () =>
      run.cancel("cancelled", "The call was cancelled by the client; calls still waiting were cancelled.");
    signal?.addEventListener("abort", cancel, { once: true });
    const { outcome, clean } = await run.done;
    ended = true;
    // Calls the code started and never awaited before it ended are not sent.
    outbox.length = 0;
    signal?.removeEventListener("abort", cancel);
    // A module QuickJS was interrupted in is dropped before anything else could use it.
    if (!clean) engine.dropped = true;
    // The outcome goes first: freeing this runtime and preparing the next one are off the run's path.
    // The engine stays busy until both are done.
    setImmediate(() => {
      if (clean && !run.dispose()) engine.dropped = true;
      try {
        if (!engine.dropped && !this.pool.closed) engine.spare = prepareSpare(engine, module, shape, budgets);
      } catch {
        engine.dropped = true;
      }
      this.pool.release(engine);
    });
    return { ...outcome, heapBytes: engine.memory.buffer.byteLength };
  }

  /** Stops taking runs (the server is shutting down); runs waiting for an engine fail as cancelled. */
  async close(): Promise<void> {
    this.pool.close();
  }
}
