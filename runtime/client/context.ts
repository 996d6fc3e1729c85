/**
 * What the parts of the request pipeline share: the client's context (built once per client by
 * `createClientContext` in client.ts) and one call's state (built per call, changed by the loop).
 * The context holds two stages that also take it (admission and the answer check), so their shapes
 * are said here and the stages implement them: the stages import this file, never the reverse.
 */
import type { OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import type { Connection } from "../credentials/auth.js";
import type { Credentials } from "../credentials/placing.js";
import type { Hooks } from "../hooks.js";
import type { PlannedLimit, QuotaRefusal, Ticket } from "../limits/limits.js";
import type { Events } from "./observer.js";
import type { RequestBuilder } from "./request.js";
import type { ResolvedRetry } from "./retry.js";

export interface ClientContext {
  readonly descriptor: ServiceDescriptor;
  readonly connection: Connection;
  readonly baseUrl: string;
  readonly send: typeof fetch;
  readonly retry: ResolvedRetry;
  /** Cancels every call of the client. */
  readonly signal: AbortSignal | undefined;
  /** The client's default bound on limit waits (a call may pass its own). */
  readonly maxLimitWaitMs: number | undefined;
  readonly events: Events;
  readonly requests: RequestBuilder;
  readonly admission: AdmissionStage;
  readonly credentials: Credentials;
  /** Checks a success answer against the spec (`validate`); undefined when off. */
  readonly checkAnswer: AnswerValidation | undefined;
  /** A URL as events and errors may show it (credentials and secret values masked). */
  showUrl(url: string): string;
  /** Text with every secret value masked. */
  clean(text: string): string;
}

/** Per call: what a caller may set beside the request itself. */
export interface CallOptions {
  /** Cancels this call. */
  signal?: AbortSignal | undefined;
  /** Longest a client-side limit may hold this call, in ms (see ClientOptions.maxLimitWaitMs). */
  maxLimitWaitMs?: number | undefined;
  /**
   * Hooks for this call's events only, beside the client's own (a tool call's log counts its
   * attempts this way on a shared client). Not kept: the next call does not see them.
   */
  hooks?: Hooks | undefined;
}

/** One call, as the loop advances it. */
export interface CallState {
  readonly op: OperationDescriptor;
  /** Names the call in every event ("" when nobody listens). */
  readonly callId: string;
  readonly signal: AbortSignal | undefined;
  readonly maxLimitWaitMs: number | undefined;
  readonly startedAt: number;
  /** Retries so far (the first attempt is not one). */
  retries: number;
  /** Attempts begun (requests about to be sent or sent). */
  attempts: number;
  /** Time spent pausing between attempts, in ms. */
  waitedMs: number;
  /** The token was renewed once after the service refused it. */
  reauthed: boolean;
  /** The last answer's HTTP status. */
  lastStatus: number | undefined;
}

/** Admission's part of the loop (runtime/client/admission.ts): a call's limits, room under them. */
export interface AdmissionStage {
  /** The limits `op` counts against, for these path values. */
  plan(op: OperationDescriptor, pathValues: Record<string, unknown> | undefined): PlannedLimit[];
  /** A ticket at once when there is room now and nobody waits; else undefined (then `admit`). */
  admitNow(call: CallState, planned: PlannedLimit[]): Ticket | undefined;
  /** Waits for room under every planned limit: a ticket, or a typed error when there will be none. */
  admit(ctx: ClientContext, call: CallState, planned: PlannedLimit[]): Promise<Ticket>;
  /** The service refused a call with a limit's declared rejection: the limiter believes it. */
  noteRejection(
    planned: PlannedLimit[],
    status: number,
    code: string | undefined,
    retryAfterMs: number | undefined,
  ): { refusal?: QuotaRefusal; waitMs?: number };
}

/**
 * What the client runs on each success answer (runtime/observe/response-check.ts): the body, or a
 * promise of it while the checker is first loaded; throws (or rejects) under strict.
 */
export type AnswerValidation = (ctx: ClientContext, call: CallState, status: number, body: unknown) => unknown;
