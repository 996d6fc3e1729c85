/**
 * What the sandbox's two sides share: the budgets, the shape of `services`, a call crossing the
 * bridge, a run's outcome, and the messages between the server's thread and the sandbox's worker.
 */

export interface SandboxBudgets {
  /** CPU time of the code, in milliseconds. */
  cpuMs: number;
  /** The whole run, waiting for calls included, in milliseconds. */
  wallMs: number;
  memoryBytes: number;
  /** QuickJS's stack limit. */
  stackBytes: number;
  /** Service calls per run. */
  calls: number;
  /** Console text and the returned value's JSON together, in bytes. */
  outputBytes: number;
}

export const DEFAULT_BUDGETS: SandboxBudgets = {
  cpuMs: 5_000,
  wallMs: 60_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  calls: 100,
  outputBytes: 1024 * 1024,
};

/** One client the code may call: its service, its accounts when several, its methods. */
export interface ShapeEntry {
  id: string;
  accounts?: string[] | undefined;
  methods: string[];
}

export interface BridgeRequest {
  service: string;
  /** Set when the service has several accounts (`services.trello.work.getCard`). */
  account: string | undefined;
  method: string;
  /** The argument's JSON text; undefined when the method was called without one. */
  init: string | undefined;
}

/** The host side of a call: answers `{"ok":true,"data":…}` or `{"ok":false,"error":{…}}`; never rejects. */
export type HostCall = (request: BridgeRequest, signal: AbortSignal) => Promise<string>;

export type SandboxFailureKind =
  | "cpu_time"
  | "wall_time"
  | "memory"
  | "stack"
  | "calls"
  | "output"
  | "stalled"
  | "cancelled"
  /** The code's check failed while it ran: the run's outcome is not the answer (never shown). */
  | "discarded"
  | "error"
  | "sandbox";

export interface ThrownError {
  name?: string | undefined;
  message?: string | undefined;
  /** The first lines of its stack (QuickJS's, positions in the JavaScript that ran). */
  stack?: string | undefined;
  /** A service error's fields (kind, status, outcome, …). */
  [field: string]: unknown;
}

export interface SandboxFailure {
  kind: SandboxFailureKind;
  message: string;
  thrown?: ThrownError | undefined;
}

export interface SandboxOutcome {
  /** The returned value's JSON text; undefined when nothing was returned or the run failed. */
  value?: string | undefined;
  failure?: SandboxFailure | undefined;
  logs: string[];
  calls: number;
  cpuMs: number;
  /** The size of the sandbox's memory when the run ended (its budget plus QuickJS's base at most). */
  heapBytes?: number | undefined;
}

/** What a worker prepares its runs for: `services` built from `shape`, and the budgets. */
export interface RunSetup {
  shape: ShapeEntry[];
  budgets: SandboxBudgets;
}

/** The server's thread to the worker. */
export type ToWorker =
  /**
   * `setup`: the services and budgets the run is for, sent only when they are not the worker's
   * already (a code mode's are the same for every run): a run's message with the shape of every
   * service's methods took the server's thread 22–35 µs before the check, without it 3–5 µs.
   */
  | { type: "run"; js: string; main: string; setup?: RunSetup | undefined }
  /** `heldMs`: how long the call waited for the code's check; the run's wall time moves on by it. */
  | { type: "reply"; id: number; text: string; heldMs?: number | undefined }
  | { type: "cancel"; kind: SandboxFailureKind; message: string };

/** The worker to the server's thread. */
export type FromWorker =
  /** `thread`: the worker's OS thread id, whose CPU time the server's watchdog reads (undefined off Linux). */
  | { type: "ready"; thread?: number | undefined }
  /**
   * The code waits for calls: QuickJS is not running. It carries the calls the code made since it
   * last waited, so a call and the wait after it cost one message between the threads, not two.
   */
  | { type: "idle"; cpuMs: number; calls: Array<{ id: number; request: BridgeRequest }> }
  | { type: "done"; outcome: SandboxOutcome; clean: boolean };
