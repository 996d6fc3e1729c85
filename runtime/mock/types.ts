/**
 * The shapes the behavioural mock's modules share: what a generated `mock.ts` hands the engine,
 * what a caller may set, what a running mock offers, and one prepared answer (`Reply`).
 */
import type { ServiceDescriptor } from "../descriptor.js";
import type { FaultOptions } from "./faults.js";
import type { MockOperationSpec, MockService } from "./extension-types.js";

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

/**
 * What a caller may set, grouped by the part of the mock each group steers. Every group and field
 * is optional; `startMock("trello")` runs the spec's own numbers.
 *
 * `faults` is a group of its own (not under `server`): it changes answers, has its own seed, and
 * `--faults`/`--latency` set it alone. `clock` stays at the top: token expiry (auth), limit windows
 * (limits), first-failure stamps (webhooks) and `{now}` in templates all read it, so it belongs to
 * no one group.
 */
export interface MockOptions {
  server?: MockServerOptions;
  auth?: MockAuthOptions;
  limits?: MockLimitOptions;
  webhooks?: MockWebhookOptions;
  data?: MockDataOptions;
  hooks?: MockHooks;
  /** Seeded failures, delays and slow bodies (`--faults`, `--latency`). */
  faults?: FaultOptions;
  /** Milliseconds since the epoch; tests pass a clock they move by hand. */
  clock?: () => number;
}

/** The HTTP server the mock listens with. */
export interface MockServerOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /**
   * The largest request body the mock reads, in bytes (default 10 MiB, DEFAULT_MAX_BODY_BYTES); a
   * larger one is answered 413 and its connection closed.
   */
  maxBodyBytes?: number;
}

/** Who the mock lets in, and the tokens it issues. */
export interface MockAuthOptions {
  /** Accepted credentials (connection field values); default: the spec's `x-stepforge.mock.credentials`. */
  credentials?: Record<string, string> | Array<Record<string, string>>;
  /** Lifetime of issued access tokens, in seconds (`--token-lifetime`). */
  tokenLifetimeSeconds?: number;
  /** Authorization code the token endpoint accepts (authorization-code services). */
  authorizationCode?: string;
}

/** The descriptor's rate limits and quotas, as this mock enforces them. */
export interface MockLimitOptions {
  /** Per limit id of the descriptor: numbers over the spec's (shrink windows in tests and benchmarks). */
  overrides?: Record<string, MockLimitOverride>;
  /** Switch every limit off (a load test against the mock; `--no-limits`). */
  off?: boolean;
  /** Multiply every limit's budget (requests, max, points) by this factor (`--limits-scale 10`). */
  scale?: number;
}

/** The webhooks the mock delivers. */
export interface MockWebhookOptions {
  /** Key of webhook signatures (Trello: the application secret; `--webhook-secret`). */
  secret?: string;
  /** Milliseconds between delivery attempts (default: the spec's `retry.delaysSeconds`). */
  retryDelaysMs?: number[];
}

/** The records the mock starts from, and the seed of what it makes up. */
export interface MockDataOptions {
  /** Fill resources from the spec's examples (default true). */
  fromExamples?: boolean;
  /** Records to start from instead of (or on top of, with fromExamples) the examples (`--state FILE`). */
  state?: MockState;
  /** Seed of generated ids, request ids and samples (default 1), so a run's ids repeat (`--seed`). */
  idSeed?: number;
}

/** Code of the caller's that the mock calls while it answers. */
export interface MockHooks {
  /**
   * Told of an exception inside the mock, which the client gets as a 500 without its text
   * (default: the stack on stderr). `path` has no query: it may hold credentials.
   */
  onFailure?: (error: unknown, request: { method: string; path: string }) => void;
  /** Called for every accepted request after limits and before the answer (tests hold requests here). */
  beforeRespond?: (info: { operationId: string; method: string; path: string }) => void | Promise<void>;
  /**
   * Asked first for every service request: a reply to send instead of the mock's own answer
   * (a recorded one, see replay.ts; `--replay FILE.har`), or undefined to answer as usual.
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
