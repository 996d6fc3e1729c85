/**
 * The server's side of the sandbox: a few worker threads (worker.ts), each running one QuickJS run
 * at a time. A run's service calls arrive here as messages and are answered by the bridge (the
 * runtime client, credentials and network never leave this thread).
 *
 * Two watchdogs back the budgets QuickJS enforces itself, for code stuck inside one builtin where
 * QuickJS never checks its interrupt handler: while the worker runs code (between handing it work
 * and hearing it wait) it has the CPU time left plus a grace period; and the whole run has its
 * wall time plus the grace. A worker that overstays is terminated and replaced, and the run fails
 * with that budget's kind. So does a worker whose run was interrupted mid-flight (freeing that
 * QuickJS runtime could abort the module; a new thread is cheaper than the doubt).
 *
 * A run may start before its code's type-check is over (`RunOptions.checked`): its calls are held
 * here, where the worker cannot reach past, until the check passes; a failed check cancels it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setMaxListeners } from "node:events";
import { Worker } from "node:worker_threads";
import { ThreadCpuSince } from "../internal/thread-cpu.js";
import { MemberPool } from "./pool.js";
import type {
  BridgeRequest,
  FromWorker,
  HostCall,
  SandboxBudgets,
  SandboxFailureKind,
  SandboxOutcome,
  ShapeEntry,
  ToWorker,
} from "./protocol.js";

/** How long past its budget a silent worker is given before it is terminated. */
const GRACE_MS = 1_000;
/**
 * How long a run whose check failed is given to notice its cancel. A worker reads the cancel once
 * QuickJS waits (for a held call: within a millisecond or so); one still running code then (a loop
 * the check caught) is terminated and replaced rather than left to burn its CPU budget.
 */
const DISCARD_GRACE_MS = 100;

function spawnWorker(memoryBytes: number): Worker {
  const workerData = { memoryBytes };
  const compiled = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, { workerData });
  // From the TypeScript sources (tests, tsx): the worker loads through tsx's loader.
  const source = new URL("./worker.ts", import.meta.url).href;
  const tsx = typeof import.meta.resolve === "function" ? import.meta.resolve("tsx/esm/api") : "tsx/esm/api";
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); });`,
    { eval: true, workerData },
  );
}

class Slot {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** The worker is ready: a run can be handed to it at once. */
  started = false;
  /** The worker's OS thread id, to read its CPU time (undefined off Linux). */
  thread: number | undefined;
  busy = false;
  dead = false;
  /** The shape and budgets this worker has (the objects last sent): a run for the same ones sends neither. */
  private shape: ShapeEntry[] | undefined;
  private budgets: SandboxBudgets | undefined;
  /** Setups sent to this worker so far. */
  setups = 0;

  constructor(memoryBytes: number) {
    this.worker = spawnWorker(memoryBytes);
    this.worker.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== "ready") return;
        this.thread = message.thread;
        this.worker.off("error", onError);
        this.started = true;
        resolve();
      };
      const onError = (error: Error) => {
        this.dead = true;
        reject(
          new Error(
            `the code mode's sandbox could not start: ${error.message}. It needs the packages quickjs-emscripten ` +
              `(0.32) and typescript (5.x) installed beside stepforge.`,
          ),
        );
      };
      this.worker.once("error", onError);
      this.worker.on("message", onMessage);
    });
    // Never an unhandled rejection: a caller awaits `ready` before using the slot.
    this.ready.catch(() => {});
    this.worker.on("exit", () => (this.dead = true));
  }

  post(message: ToWorker): void {
    if (!this.dead) this.worker.postMessage(message);
  }

  /** Hands a run to the worker, with its shape and budgets when they are not the ones it has. */
  postRun(js: string, main: string, shape: ShapeEntry[], budgets: SandboxBudgets): void {
    if (this.dead) return;
    // Compared by identity: a code mode passes the same objects to every run (cheaper than comparing them).
    const same = shape === this.shape && budgets === this.budgets;
    if (!same) {
      this.shape = shape;
      this.budgets = budgets;
      this.setups++;
    }
    this.post({ type: "run", js, main, ...(same ? {} : { setup: { shape, budgets } }) });
  }

  kill(): void {
    this.dead = true;
    void this.worker.terminate();
  }
}

export interface SandboxOptions {
  /** Runs at once, each on its own worker thread (default 2); more wait their turn. */
  workers?: number | undefined;
  /** The memory budget of a run: each worker's QuickJS memory is this much over its base. */
  memoryBytes: number;
}

export interface RunOptions {
  /** The client's cancel. */
  signal?: AbortSignal | undefined;
  /**
   * The run's type-check, still going: true once it passed. Until then each call the code makes is
   * held here (nothing reaches the host: no network, limiter, token or service); false cancels the
   * run and sends none of them. Waiting for it is not counted in the run's budgets (see runOn).
   */
  checked?: Promise<boolean> | undefined;
}

/** What runs the code: worker threads (Sandbox) or the server's own thread (InlineSandbox, inline.ts). */
export interface CodeSandbox {
  /** Runs handed to QuickJS so far. */
  readonly started: number;
  /** Gets one QuickJS module ready, so the first run does not wait for it to load. */
  warm(): Promise<void>;
  /** Runs the job's code; never rejects. */
  run(job: RunJob): Promise<SandboxOutcome>;
  close(): Promise<void>;
}

/** One run: its code, what it calls and what it may spend, as handed on to the slot or engine that takes it. */
export interface RunJob extends RunOptions {
  /** A script declaring the function `main`, which is called with `services`. */
  js: string;
  main: string;
  /** What `services` is built from. */
  shape: ShapeEntry[];
  host: HostCall;
  budgets: SandboxBudgets;
}

/** A run that was never started because its check failed first. */
export const NOT_RUN: SandboxOutcome = {
  failure: { kind: "discarded", message: "The code did not type-check; it was not run." },
  logs: [],
  calls: 0,
  cpuMs: 0,
};

export class Sandbox implements CodeSandbox {
  private readonly pool: MemberPool<Slot>;
  /** The workers, for the tests that reach one to end it or count what it was sent. */
  get slots(): readonly Slot[] {
    return this.pool.members;
  }
  /** Runs handed to a worker so far. */
  started = 0;

  constructor(options: SandboxOptions) {
    this.pool = new MemberPool<Slot>({
      size: Math.max(1, options.workers ?? 2),
      make: () => new Slot(options.memoryBytes),
      usable: (slot) => !slot.dead,
      // A worker that ended between runs (its runtime could not be freed) gives its place up.
      discard: (slot) => slot.dead && !slot.busy,
    });
  }

  /** Starts one worker now, so the first run does not wait for QuickJS to load. */
  async warm(): Promise<void> {
    const slot = this.pool.members.find((s) => !s.dead) ?? this.pool.add();
    await slot.ready;
  }

  /** A worker ended: a new one starts loading now, so the next run does not wait for it. */
  private replace(slot: Slot): void {
    this.pool.remove(slot);
    if (!this.pool.closed) this.pool.add();
  }

  /**
   * Runs the job's code; never rejects. With a worker free and ready the code is handed to it
   * before this returns, so it runs while the caller goes on synchronously (checking it, with
   * `job.checked`).
   */
  run(job: RunJob): Promise<SandboxOutcome> {
    const free = this.pool.closed ? undefined : this.pool.members.find((s) => s.started && !s.busy && !s.dead);
    if (free) {
      free.busy = true;
      return this.runClaimed(free, job);
    }
    return this.runQueued(job);
  }

  private async runQueued(job: RunJob): Promise<SandboxOutcome> {
    // No worker to start at once: the check is over before one is free, and a failed one runs nothing.
    const { checked } = job;
    if (checked && !(await checked.catch(() => false))) return NOT_RUN;
    return this.runClaimed(await this.pool.acquire(), job);
  }

  private async runClaimed(slot: Slot, job: RunJob): Promise<SandboxOutcome> {
    try {
      if (!slot.started) await slot.ready;
      return await this.runOn(slot, job);
    } catch (error) {
      slot.kill();
      return { failure: { kind: "sandbox", message: (error as Error).message }, logs: [], calls: 0, cpuMs: 0 };
    } finally {
      if (slot.dead) this.replace(slot);
      this.pool.release(slot);
    }
  }

  /**
   * Hands the run to `slot` and answers its outcome. With `job.checked` still going, calls are
   * held until it passes; the time they wait for it counts in no budget: QuickJS is idle meanwhile
   * (its CPU clock stopped), and the wall clocks, here and in the worker, move on by that wait.
   */
  private runOn(slot: Slot, job: RunJob): Promise<SandboxOutcome> {
    const { js, main, shape, host, budgets, signal, checked } = job;
    return new Promise<SandboxOutcome>((resolve) => {
      const calls = new AbortController();
      // Every call of the run listens on it (up to the calls budget at once): no leak warning.
      setMaxListeners(0, calls.signal);
      let cpuReported = 0;
      let callCount = 0;
      let watch: NodeJS.Timeout | undefined;
      let ending: NodeJS.Timeout | undefined;
      let finished = false;
      /** Calls may leave: there is no check, or it passed. */
      let released = checked === undefined;
      /** Calls made before the check passed, each sent once it has (with how long it waited). */
      const held: Array<() => void> = [];
      const finish = (outcome: SandboxOutcome, clean: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(watch);
        clearTimeout(wall);
        clearTimeout(ending);
        signal?.removeEventListener("abort", cancel);
        slot.worker.off("message", onMessage);
        slot.worker.off("exit", onExit);
        calls.abort();
        held.length = 0;
        if (!clean) slot.kill();
        resolve(outcome);
      };
      const kill = (kind: SandboxFailureKind, message: string) =>
        finish({ failure: { kind, message }, logs: [], calls: callCount, cpuMs: cpuReported }, false);
      // The worker's CPU time from the hand-over (read before it starts, so it counts the run whole).
      const workerCpu = new ThreadCpuSince(slot.thread);
      const cpuLimit = budgets.cpuMs + GRACE_MS;
      const watchFor = (ms: number) => {
        clearTimeout(watch);
        watch = setTimeout(overBudget, ms);
      };
      // The wall clock says the worker could be past its budget and the grace. On a busy machine it may
      // have waited for a core instead: its own CPU time decides, and the watch goes on for what is left.
      const overBudget = () => {
        const used = workerCpu.used();
        if (used < cpuLimit) return watchFor(cpuLimit - used);
        kill(
          "cpu_time",
          `The code used more than ${budgets.cpuMs} ms of CPU time (inside one builtin operation, which ` +
            `QuickJS cannot interrupt) and its sandbox was stopped. Do less work in one run.`,
        );
      };
      // The worker is running code: it has the CPU time left, and the grace.
      const busy = () => watchFor(Math.max(0, budgets.cpuMs - cpuReported) + GRACE_MS);
      const wallTime = () =>
        setTimeout(
          () =>
            kill(
              "wall_time",
              `The run took longer than ${budgets.wallMs} ms and its sandbox was stopped; calls still waiting were ` +
                `cancelled.`,
            ),
          budgets.wallMs + GRACE_MS,
        );
      let wall = wallTime();
      const cancel = () => {
        slot.post({
          type: "cancel",
          kind: "cancelled",
          message: "The call was cancelled by the client; calls still waiting were cancelled.",
        });
        calls.abort();
        setTimeout(() => kill("cancelled", "The call was cancelled by the client."), GRACE_MS).unref();
      };
      const send = (call: { id: number; request: BridgeRequest }, heldMs: number) => {
        if (finished || calls.signal.aborted) return;
        void host(call.request, calls.signal).then((text) => {
          if (finished) return;
          slot.post({ type: "reply", id: call.id, text, ...(heldMs > 0 ? { heldMs } : {}) });
          busy();
        });
      };
      const release = () => {
        if (finished) return;
        released = true;
        // The wall time starts over: the run waited for the check, not for its calls.
        clearTimeout(wall);
        wall = wallTime();
        for (const sendHeld of held.splice(0)) sendHeld();
      };
      // The check failed: the run ends unseen (its outcome is not the answer), no held call is sent.
      const discard = () => {
        if (finished) return;
        held.length = 0;
        calls.abort();
        slot.post({ type: "cancel", kind: "discarded", message: NOT_RUN.failure!.message });
        ending = setTimeout(() => kill("discarded", NOT_RUN.failure!.message), DISCARD_GRACE_MS);
      };
      checked?.then(
        (passed) => (passed ? release() : discard()),
        () => discard(),
      );
      const onExit = () => kill("sandbox", "The sandbox's worker stopped unexpectedly; run the code again.");
      const onMessage = (message: FromWorker) => {
        if (message.type === "idle") {
          cpuReported = message.cpuMs;
          clearTimeout(watch);
          for (const call of message.calls) {
            callCount++;
            if (released) {
              send(call, 0);
            } else {
              const arrived = performance.now();
              held.push(() => send(call, performance.now() - arrived));
            }
          }
        } else if (message.type === "done") {
          finish(message.outcome, message.clean);
        }
      };
      slot.worker.on("message", onMessage);
      slot.worker.once("exit", onExit);
      if (signal?.aborted) return kill("cancelled", "The call was cancelled by the client before it ran.");
      signal?.addEventListener("abort", cancel, { once: true });
      this.started++;
      slot.postRun(js, main, shape, budgets);
      busy();
    });
  }

  /** Stops every worker (the server is shutting down); runs still going fail as cancelled. */
  async close(): Promise<void> {
    this.pool.close();
    await Promise.allSettled(this.pool.members.map((s) => s.worker.terminate()));
  }
}
