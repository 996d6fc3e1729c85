/**
 * The types between a QuickJS run (vm.ts) and what drives it: a worker thread (worker.ts) or the
 * server's thread (inline.ts).
 */
import type { SandboxFailureKind, SandboxOutcome } from "./protocol.js";

/** A guard stopped QuickJS inside one builtin operation, past the CPU time left (see VmEvents.guard). */
export class StuckInBuiltin extends Error {
  override name = "StuckInBuiltin";
}

/** What the worker learns from a run, and what the run asks it. */
export interface VmEvents {
  /** The code waits for calls (QuickJS is not running); its CPU time so far. */
  onIdle(cpuMs: number): void;
  /** The module's memory is at its maximum. */
  exhausted(): boolean;
  /**
   * Runs one entry into QuickJS, `cpuLeftMs` the code's CPU time left. Where no other thread can
   * stop a builtin QuickJS does not interrupt (the sandbox on the server's thread, inline.ts), it
   * ends the entry past that time plus a grace by throwing {@link StuckInBuiltin}; the run then
   * fails as `cpu_time` and is not clean (its module is dropped).
   */
  guard?: (<T>(work: () => T, cpuLeftMs: number) => T) | undefined;
}

export interface VmRun {
  /** Ends the run (the client cancelled it) if QuickJS is not stuck in a builtin. */
  cancel(kind: SandboxFailureKind, message: string): void;
  /** Moves the wall deadline on by a call's wait for the code's check (see Run.extendWall). */
  extendWall(ms: number): void;
  /** The outcome, and whether QuickJS was left in a state its module can be reused from. */
  done: Promise<{ outcome: SandboxOutcome; clean: boolean }>;
  /**
   * Frees a clean run's runtime (after its outcome is on its way: freeing is not the run's wait).
   * False when freeing failed, and the module is not to be trusted with another run.
   */
  dispose(): boolean;
}

/** A run prepared ahead of its code (a fresh runtime with the prelude loaded). */
export interface PreparedRun {
  /** Runs `js` (a script declaring the function `main`). */
  start(js: string, main: string): VmRun;
}
