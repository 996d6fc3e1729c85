/**
 * What the parts of the request pipeline share: the client's context (built once per client by
 * `createClientContext` in client.ts) and one call's state (built per call, changed by the loop).
 */
import type { OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import type { Connection } from "../credentials/auth.js";
import type { Credentials } from "../credentials/placing.js";
import type { Admission } from "./admission.js";
import type { Hooks } from "../hooks.js";
import type { Events } from "./observer.js";
import type { AnswerValidation } from "../observe/response-check.js";
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
  readonly admission: Admission;
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
