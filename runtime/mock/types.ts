/**
 * The shapes the behavioural mock's modules share: what a generated `mock.ts` hands the engine,
 * what a caller may set, what a running mock offers, and one prepared answer (`Reply`).
 */
import type { ServiceDescriptor } from "../descriptor.js";
import type { FaultOptions } from "./faults.js";
import type { MockOperationSpec, MockService } from "./model-types.js";

export type Rec = Record<string, unknown>;

/** What a generated `mock.ts` hands the engine. */
export interface MockDefinition {
  descriptor: ServiceDescriptor;
  /** The spec's `x-stepforge.mock`, or one the generator derived for a spec without it. */
  mock: MockService;
  operations: Record<string, MockOperationSpec>;
  /** The spec's `components` (schemas for `$ref`s in validation and samples). */
  components: unknown;
}

/** A limit's numbers for this mock, over the descriptor's (shrink windows in tests and benchmarks). */
export interface MockLimitOverride {
  requests?: number;
  windowSeconds?: number;
  max?: number;
  /** header-quota limits: points per day. */
  points?: number;
  disabled?: boolean;
}

/** The records a mock starts from, by resource (`--state FILE`, `dumpState()`), plus relations. */
export interface MockState {
  records: Record<string, Rec[]>;
  relations?: Record<string, Record<string, Array<string | number>>>;
}

export interface MockOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Accepted credentials (connection field values); default: the spec's `x-stepforge.mock.credentials`. */
  credentials?: Record<string, string> | Array<Record<string, string>>;
  /** Per limit id of the descriptor. */
  limits?: Record<string, MockLimitOverride>;
  /** Switch every limit off (a load test against the mock). */
  noLimits?: boolean;
  /** Multiply every limit's budget (requests, max, points) by this factor (`--limits-scale 10`). */
  limitScale?: number;
  /** Lifetime of issued access tokens, in seconds. */
  tokenLifetimeSeconds?: number;
  /** Authorization code the token endpoint accepts (authorization-code services). */
  authorizationCode?: string;
  faults?: FaultOptions;
  /** Key of webhook signatures (Trello: the application secret). */
  webhookSecret?: string;
  /** Milliseconds between webhook delivery attempts (default: the spec's `retry.delaysSeconds`). */
  webhookRetryDelaysMs?: number[];
  /** Milliseconds since the epoch; tests pass a clock they move by hand. */
  clock?: () => number;
  /** Fill resources from the spec's examples (default true). */
  seedData?: boolean;
  /** Records to start from instead of (or on top of, with seedData) the examples. */
  state?: MockState;
  /** Seed of generated ids and samples (default 1), so a run's ids repeat. */
  idSeed?: number;
  /**
   * The largest request body the mock reads, in bytes (default 10 MiB, DEFAULT_MAX_BODY_BYTES); a
   * larger one is answered 413 and its connection closed.
   */
  maxBodyBytes?: number;
  /**
   * Told of an exception inside the mock, which the client gets as a 500 without its text
   * (default: the stack on stderr). `path` has no query: it may hold credentials.
   */
  onFailure?: (error: unknown, request: { method: string; path: string }) => void;
  /** Called for every accepted request after limits and before the answer (tests hold requests here). */
  beforeRespond?: (info: { operationId: string; method: string; path: string }) => void | Promise<void>;
  /**
   * Asked first for every service request: a reply to send instead of the mock's own answer
   * (a recorded one, see replay.ts), or undefined to answer as usual.
   */
  replay?: {
    answer(request: {
      method: string;
      url: string;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
    }): Reply | undefined;
  };
}

export interface MockCounters {
  requests: number;
  byOperation: Record<string, number>;
  creates: Record<string, number>;
  updates: Record<string, number>;
  deletes: Record<string, number>;
  rateLimited: number;
  rejections: Record<string, number>;
  authFailures: number;
  validationFailures: number;
  tokensIssued: number;
  faults: { dropped: number; errors: number; delayed: number; slowBodies: number };
  webhookDeliveries: number;
  webhookFailures: number;
  webhookRetries: number;
  inFlight: number;
}

export interface RunningMock {
  service: string;
  url: string;
  port: number;
  /** A copy of what the mock received so far. */
  counters(): MockCounters;
  /** The records of one resource, in creation order (copies). */
  records(resource: string): Rec[];
  /** Every record and relation (copies): what `--state FILE` reads back. */
  dumpState(): MockState;
  /** Clears state (re-seeding it), counters, limits and tokens. */
  reset(): void;
  close(): Promise<void>;
}

export function emptyCounters(): MockCounters {
  return {
    requests: 0,
    byOperation: {},
    creates: {},
    updates: {},
    deletes: {},
    rateLimited: 0,
    rejections: {},
    authFailures: 0,
    validationFailures: 0,
    tokensIssued: 0,
    faults: { dropped: 0, errors: 0, delayed: 0, slowBodies: 0 },
    webhookDeliveries: 0,
    webhookFailures: 0,
    webhookRetries: 0,
    inFlight: 0,
  };
}

export const bump = (map: Record<string, number>, key: string): number => (map[key] = (map[key] ?? 0) + 1);

/** One prepared answer: status, body bytes and headers (lower-case names). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: Buffer,
    readonly headers: Record<string, string>,
  ) {}
}

const EMPTY = Buffer.alloc(0);

/** A JSON (or, for a non-JSON content type, plain string) reply. */
export function jsonReply(status: number, body: unknown, contentType = "application/json"): Reply {
  if (body === undefined) return new Reply(status, EMPTY, {});
  if (Buffer.isBuffer(body)) return new Reply(status, body, { "content-type": contentType });
  const text = typeof body === "string" && !contentType.includes("json") ? body : JSON.stringify(body);
  return new Reply(status, Buffer.from(text), { "content-type": contentType });
}
