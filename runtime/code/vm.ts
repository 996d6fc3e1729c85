/**
 * One run in QuickJS (quickjs-emscripten: a separate JavaScript engine compiled to WebAssembly,
 * whose heap is a byte array), inside the sandbox's worker thread (worker.ts). Nothing of Node is
 * reachable from it: its global object has the ECMAScript built-ins only (no `require`, `process`,
 * `fetch`, timers, module loader), and `eval`/`Function` compile more QuickJS code into the same
 * heap. The one way out is the host function the prelude closes over: it takes strings (service,
 * account, method, the JSON text of the argument) and answers a JSON string, and behind it the
 * server's thread calls the runtime client of the named account. No host object is handed in.
 *
 * Budgets enforced here, each ending the run with its own failure kind:
 * - CPU time: QuickJS's interrupt handler counts the time spent inside QuickJS (an interrupt
 *   cannot be caught by the code); a builtin that never consults the handler is the server
 *   thread's watchdog's to stop (sandbox.ts);
 * - wall time: a timer ends the run and cancels the calls still in flight;
 * - memory: the worker's WebAssembly memory cannot grow past the budget (worker.ts), and QuickJS
 *   reports an allocation beyond it as "out of memory";
 * - stack: QuickJS's stack limit ("stack overflow"), or Node's under QuickJS's frames;
 * - calls and output (console text and the returned value): counted as they happen.
 *
 * A run that ends by interrupting QuickJS is not freed: freeing a runtime interrupted mid-flight
 * aborted the whole module once (an assertion in JS_FreeRuntime), so its worker is replaced.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten";
import { setMaxListeners } from "node:events";
import { ThreadCpuSince } from "../internal/thread-cpu.js";
import { PRELUDE } from "./prelude.js";
import { StuckInBuiltin, type PreparedRun, type VmEvents, type VmRun } from "./vm-types.js";

export { StuckInBuiltin, type PreparedRun, type VmEvents, type VmRun };
import type {
  BridgeRequest,
  HostCall,
  SandboxBudgets,
  SandboxFailure,
  SandboxFailureKind,
  SandboxOutcome,
  ShapeEntry,
  ThrownError,
} from "./protocol.js";

/** The largest reply handed into the sandbox, in characters; a larger one is answered as an error. */
const MAX_REPLY_CHARS = 16 * 1024 * 1024;

// Failures that interrupt QuickJS mid-flight: its runtime is not freed, its worker is replaced. Not
// `discarded` (a failed check): its message is read only while QuickJS waits, between jobs.
const INTERRUPTING: ReadonlySet<SandboxFailureKind> = new Set([
  ...(["cpu_time", "wall_time", "memory", "stack", "calls", "output", "cancelled", "sandbox"] as const),
]);

class Run {
  private readonly rt: QuickJSRuntime;
  private readonly vm: QuickJSContext;
  private readonly owned: QuickJSHandle[] = [];
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private readonly controller = new AbortController();
  private wallDeadline = Number.POSITIVE_INFINITY;
  /** How far the wall deadline was moved for calls waiting on the code's check. */
  private wallExtension = 0;
  /** The prelude's `run(main)`, once prepared. */
  private runner: QuickJSHandle | undefined;
  private stop: SandboxFailure | undefined;
  private cpuUsed = 0;
  private segment: number | undefined;
  /** The thread's CPU time since the run began: see `interrupt`. */
  private threadCpu: ThreadCpuSince | undefined;
  private output = 0;
  private closed = false;
  private wake: () => void = () => {};
  readonly logs: string[] = [];
  calls = 0;

  constructor(
    module: QuickJSWASMModule,
    private readonly budgets: SandboxBudgets,
    private readonly host: HostCall,
    private readonly events: VmEvents,
  ) {
    // Every call of the run listens on its signal (up to the calls budget at once).
    setMaxListeners(0, this.controller.signal);
    this.rt = module.newRuntime();
    this.rt.setMaxStackSize(budgets.stackBytes);
    this.rt.setInterruptHandler(() => this.interrupt());
    this.vm = this.rt.newContext();
  }

  private interrupt(): boolean {
    if (this.stop) return true;
    const now = performance.now();
    // The time the code ran on the wall clock counts its waits for a core on a busy machine; the thread's
    // CPU time since the run began does not, but counts the thread's other work (the server's, in the
    // inline sandbox). Both are at least the code's CPU time: it is stopped when both are over.
    const ran = this.segment === undefined ? 0 : this.cpuUsed + (now - this.segment);
    if (ran > this.budgets.cpuMs && (this.threadCpu?.over(this.budgets.cpuMs, now) ?? true)) {
      this.fail(
        "cpu_time",
        `The code used more than ${this.budgets.cpuMs} ms of CPU time and was stopped (a loop that never ends?). ` +
          `Do less work in one run.`,
      );
      return true;
    }
    if (now > this.wallDeadline) {
      this.fail(
        "wall_time",
        `The run took longer than ${this.budgets.wallMs} ms and was stopped; calls still waiting were cancelled.`,
      );
      return true;
    }
    return false;
  }

  /** Ends the run with this failure (the first one wins): QuickJS is interrupted, calls cancelled. */
  fail(kind: SandboxFailureKind, message: string): void {
    if (this.stop) return;
    this.stop = { kind, message };
    this.controller.abort();
    this.wake();
  }

  /** A call waited `ms` for the code's check: that wait is not the run's wall time (the longest one counts). */
  extendWall(ms: number): void {
    if (ms <= this.wallExtension) return;
    this.wallDeadline += ms - this.wallExtension;
    this.wallExtension = ms;
  }

  /**
   * `work` (anything that may run code in QuickJS) with its time counted as the code's CPU time.
   * `runsCode`: it runs the agent's code (loading it, the jobs after a reply), and goes through the
   * events' guard when there is one (see VmEvents.guard); the rest (a reply handed in, a promise's
   * state, the prelude) runs none, and a guard costs a watchdog thread each time.
   */
  private timed<T>(work: () => T, runsCode = false): T {
    const outer = this.segment === undefined;
    if (outer) this.segment = performance.now();
    try {
      const guard = this.events.guard;
      return outer && runsCode && guard ? guard(work, Math.max(0, this.budgets.cpuMs - this.cpuUsed)) : work();
    } finally {
      if (outer) {
        this.cpuUsed += performance.now() - this.segment!;
        this.segment = undefined;
      }
    }
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.owned.push(handle);
    return handle;
  }

  /** A string's length in characters; undefined for any other value. */
  private stringLength(handle: QuickJSHandle): number | undefined {
    if (this.vm.typeof(handle) !== "string") return undefined;
    const length = this.vm.getProp(handle, "length");
    const n = this.vm.getNumber(length);
    length.dispose();
    return n;
  }

  /** A string argument's text; undefined for any other value (its `toString` is never run). */
  private text(handle: QuickJSHandle): string | undefined {
    return this.vm.typeof(handle) === "string" ? this.vm.getString(handle) : undefined;
  }

  private hostFunction(): QuickJSHandle {
    return this.vm.newFunction("host", (...args) => this.startCall(args));
  }

  private startCall(args: QuickJSHandle[]): QuickJSHandle | undefined {
    if (this.stop) return undefined;
    const [service, account, method, init] = args.map((a) => (a ? this.text(a) : undefined));
    if (service === undefined || method === undefined || account === undefined || init === undefined) return undefined;
    this.calls++;
    if (this.calls > this.budgets.calls) {
      this.fail(
        "calls",
        `The code made more than ${this.budgets.calls} service calls, the most one run may make. Work in smaller ` +
          `batches; the writes already done are listed.`,
      );
      return undefined;
    }
    const deferred = this.vm.newPromise();
    this.pending.add(deferred);
    const request: BridgeRequest = {
      service,
      account: account === "" ? undefined : account,
      method,
      init: init === "" ? undefined : init,
    };
    void this.host(request, this.controller.signal).then(
      (reply) => this.settle(deferred, reply),
      (error: unknown) =>
        this.settle(
          deferred,
          JSON.stringify({
            ok: false,
            error: { kind: "internal", message: `the call failed unexpectedly: ${(error as Error)?.message}` },
          }),
        ),
    );
    return deferred.handle;
  }

  private settle(deferred: QuickJSDeferredPromise, reply: string): void {
    this.pending.delete(deferred);
    if (this.closed) return;
    const max = Math.min(MAX_REPLY_CHARS, Math.floor(this.budgets.memoryBytes / 4));
    const text =
      reply.length > max
        ? JSON.stringify({
            ok: false,
            error: {
              kind: "too_large",
              message:
                `the answer is ${reply.length} characters, more than the sandbox takes (${max}); ask for ` +
                `fewer records (filters, a smaller page)`,
            },
          })
        : reply;
    try {
      this.timed(() => {
        const handle = this.vm.newString(text);
        deferred.resolve(handle);
        handle.dispose();
      });
      deferred.dispose();
    } catch (error) {
      this.broken(error);
    }
    this.wake();
  }

  private logFunction(): QuickJSHandle {
    return this.vm.newFunction("log", (levelHandle, textHandle) => {
      if (this.stop || !levelHandle || !textHandle) return;
      const level = this.text(levelHandle);
      const length = this.stringLength(textHandle);
      if (level === undefined || length === undefined) return;
      // Counted before it is copied out: a text over the budget is never read.
      if (this.output + length > this.budgets.outputBytes) {
        this.fail(
          "output",
          `The code's output passed ${this.budgets.outputBytes} bytes (console text and the returned value) and ` +
            `was stopped. Log and return less: pick fields, count instead of listing.`,
        );
        return;
      }
      const text = this.text(textHandle)!;
      this.output += Buffer.byteLength(text);
      this.logs.push(level === "log" ? text : `[${level}] ${text}`);
    });
  }

  /** The WebAssembly module itself failed (or Node's own stack ran out under QuickJS's frames). */
  broken(error: unknown): void {
    const message = (error as Error)?.message ?? String(error);
    if (this.events.exhausted()) {
      this.fail("memory", this.memoryMessage());
      return;
    }
    // Stopped by the guard: a builtin ran past the CPU time (memory at its maximum is the cause above).
    if (error instanceof StuckInBuiltin) {
      this.fail(
        "cpu_time",
        `The code used more than ${this.budgets.cpuMs} ms of CPU time (inside one builtin operation, which ` +
          `QuickJS cannot interrupt) and its sandbox was stopped. Do less work in one run.`,
      );
      return;
    }
    if (error instanceof RangeError && /call stack/.test(message)) {
      this.fail("stack", `The code nested calls too deeply (the stack ran out). Use a loop instead of deep recursion.`);
      return;
    }
    this.fail("sandbox", `The sandbox failed (${message}); nothing more of this run was executed. Run the code again.`);
  }

  /**
   * Loads the prelude: `services`, `console` and the runner exist before any code arrives, so a
   * worker can prepare its next run while it waits. False when QuickJS failed doing it.
   */
  prepare(shape: readonly ShapeEntry[]): boolean {
    try {
      this.timed(() => {
        const vm = this.vm;
        const prelude = this.keep(vm.unwrapResult(vm.evalCode(PRELUDE, "prelude.js")));
        const host = this.keep(this.hostFunction());
        const log = this.keep(this.logFunction());
        const shapeText = this.keep(vm.newString(JSON.stringify(shape)));
        this.runner = this.keep(vm.unwrapResult(vm.callFunction(prelude, vm.undefined, host, log, shapeText)));
      });
      // Its time is not the code's.
      this.cpuUsed = 0;
      return true;
    } catch (error) {
      this.broken(error);
      return false;
    }
  }

  async execute(js: string, main: string): Promise<SandboxOutcome> {
    this.wallDeadline = performance.now() + this.budgets.wallMs;
    this.threadCpu = new ThreadCpuSince();
    try {
      if (!this.runner) throw new Error("the run was not prepared");
      const promise = this.timed(() => this.start(js, main), true);
      return promise ? await this.loop(this.keep(promise)) : this.outcome(undefined);
    } catch (error) {
      if (!this.stop) this.broken(error);
      return this.outcome(undefined);
    }
  }

  /** Loads the code and calls it through the runner; the promise of its outcome, or undefined when loading failed. */
  private start(js: string, main: string): QuickJSHandle | undefined {
    const vm = this.vm;
    const loaded = vm.evalCode(js, "agent.js");
    if (loaded.error) {
      this.thrownFailure(loaded.error);
      loaded.error.dispose();
      return undefined;
    }
    loaded.value.dispose();
    const fn = this.keep(vm.getProp(vm.global, main));
    const called = vm.callFunction(this.runner!, vm.undefined, fn);
    if (called.error) {
      this.thrownFailure(called.error);
      called.error.dispose();
      return undefined;
    }
    return called.value;
  }

  private wallTime(): void {
    this.fail(
      "wall_time",
      `The run took longer than ${this.budgets.wallMs} ms and was stopped; calls still waiting were cancelled.`,
    );
  }

  private async loop(promise: QuickJSHandle): Promise<SandboxOutcome> {
    for (;;) {
      if (!this.stop) {
        const jobs = this.timed(() => this.rt.executePendingJobs(), true);
        if (jobs.error) {
          this.thrownFailure(jobs.error);
          jobs.error.dispose();
        } else {
          jobs.dispose();
        }
      }
      if (this.stop) return this.outcome(undefined);
      const state = this.timed(() => this.vm.getPromiseState(promise));
      if (state.type === "fulfilled") {
        const value = this.timed(() => this.finished(state.value));
        state.value.dispose();
        return value;
      }
      if (state.type === "rejected") {
        this.thrownFailure(state.error);
        state.error.dispose();
        return this.outcome(undefined);
      }
      if (this.pending.size === 0) {
        this.fail(
          "stalled",
          "The code awaits something that never settles (a promise nothing resolves; there are no timers here) " +
            "and was stopped.",
        );
        return this.outcome(undefined);
      }
      // Until a call settles, the run fails, or the wall time is up.
      this.events.onIdle(this.cpuUsed);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.wallTime(), Math.max(0, this.wallDeadline - performance.now()));
        this.wake = () => {
          clearTimeout(timer);
          this.wake = () => {};
          resolve();
        };
      });
    }
  }

  private memoryMessage(): string {
    return (
      `The code used more than ${Math.round(this.budgets.memoryBytes / 1048576)} MiB of memory and was ` +
      `stopped. Work on fewer records at once.`
    );
  }

  /** A thrown error's failure: running out of memory or stack has its own kind. */
  private classify(thrown: ThrownError): SandboxFailure {
    const { name, message } = thrown;
    if (message === "out of memory") return { kind: "memory", message: this.memoryMessage() };
    if (message === "stack overflow" || (name === "RangeError" && /call stack/.test(message ?? ""))) {
      return {
        kind: "stack",
        message:
          `The code nested calls too deeply (stack overflow at ` +
          `${Math.round(this.budgets.stackBytes / 1024)} KiB). Use a loop instead of deep recursion.`,
      };
    }
    return { kind: "error", message: `${name ?? "Error"}: ${message ?? "(no message)"}`, thrown };
  }

  /** What the code threw past the prelude: an interrupt (the budget already set), memory, stack, or an error. */
  private thrownFailure(handle: QuickJSHandle): void {
    if (this.stop) return;
    const thrown = this.timed(() => {
      const read = (key: string) => {
        if (this.vm.typeof(handle) !== "object") return undefined;
        const value = this.vm.getProp(handle, key);
        const out = this.text(value);
        value.dispose();
        return out;
      };
      return { name: read("name"), message: read("message") };
    });
    this.stop = this.classify(thrown);
    this.controller.abort();
  }

  private finished(value: QuickJSHandle): SandboxOutcome {
    const text = this.text(value) ?? "u";
    if (this.output + Buffer.byteLength(text) - 1 > this.budgets.outputBytes) {
      this.fail(
        "output",
        `The returned value passed the output budget of ${this.budgets.outputBytes} bytes (console text ` +
          `included). Return less: pick fields, count instead of listing.`,
      );
      return this.outcome(undefined);
    }
    if (text.startsWith("v")) return this.outcome(text.slice(1));
    if (text.startsWith("e")) {
      this.stop = this.classify(JSON.parse(text.slice(1)) as ThrownError);
      this.controller.abort();
    }
    return this.outcome(undefined);
  }

  private outcome(value: string | undefined): SandboxOutcome {
    return { value, failure: this.stop, logs: this.logs, calls: this.calls, cpuMs: Math.round(this.cpuUsed * 10) / 10 };
  }

  /** True when the run ended without interrupting QuickJS, so its runtime can be freed and the module reused. */
  get clean(): boolean {
    return !this.stop || !INTERRUPTING.has(this.stop.kind);
  }

  dispose(): void {
    this.closed = true;
    this.controller.abort();
    for (const deferred of this.pending) deferred.dispose();
    this.pending.clear();
    for (const handle of this.owned.reverse()) if (handle.alive) handle.dispose();
    this.vm.dispose();
    this.rt.dispose();
  }
}

/**
 * A new runtime of `module` with `services` built from `shape`, ready for one program. An unclean
 * run's runtime is not freed: freeing one that was interrupted mid-flight can abort the whole
 * module, so the caller drops the module (its worker) instead.
 */
export function prepareRun(
  module: QuickJSWASMModule,
  shape: readonly ShapeEntry[],
  host: HostCall,
  budgets: SandboxBudgets,
  events: VmEvents,
): PreparedRun {
  const run = new Run(module, budgets, host, events);
  run.prepare(shape);
  return {
    start(js, main) {
      const done = run.execute(js, main).then((outcome) => ({ outcome, clean: run.clean }));
      const dispose = () => {
        if (!run.clean) return false;
        try {
          run.dispose();
          return true;
        } catch {
          return false;
        }
      };
      return { cancel: (k, m) => run.fail(k, m), extendWall: (ms) => run.extendWall(ms), done, dispose };
    },
  };
}
