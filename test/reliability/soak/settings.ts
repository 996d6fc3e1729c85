/** The fault soak's services and settings: tools, connections, retries, faults, limits, neighbours, creates. */

import type { Connection, LimitOverrides, RetryOptions } from "../../../runtime/index.js";
import type { FaultOptions, MockLimitOverride } from "../../../runtime/mock/index.js";
import { prng } from "../../../runtime/mock/faults.js";
import type { ToolDefinition } from "../../../runtime/tools/index.js";
import { tools as contentsnareTools } from "../../../generated/contentsnare/tools.js";
import { tools as marketoTools } from "../../../generated/marketo/tools.js";
import { tools as trelloTools } from "../../../generated/trello/tools.js";
import { tools as worldnewsTools } from "../../../generated/worldnews/tools.js";
import { CARD, CONTENTSNARE, MARKETO, TRELLO, WORLDNEWS } from "../../mock/helpers.js";

export type Service = "trello" | "marketo" | "worldnews" | "contentsnare";
export const SERVICES: Service[] = ["trello", "marketo", "worldnews", "contentsnare"];

export const TOOLS: Record<Service, readonly ToolDefinition[]> = {
  trello: trelloTools,
  marketo: marketoTools,
  worldnews: worldnewsTools,
  contentsnare: contentsnareTools,
};
export const ALL_TOOLS: ToolDefinition[] = SERVICES.flatMap((s) => [...TOOLS[s]]);

export const CONNECTIONS: Record<Service, Connection> = {
  trello: { name: "soak-trello", fields: { ...TRELLO } },
  marketo: { name: "soak-marketo", fields: { ...MARKETO } },
  worldnews: { name: "soak-worldnews", fields: { ...WORLDNEWS } },
  contentsnare: { name: "soak-contentsnare", fields: { ...CONTENTSNARE } },
};

/**
 * Fast retries: 3 retries after the first attempt, millisecond backoff, 500 ms per attempt (a slow
 * body of all but the smallest answers runs past it and becomes a TimeoutError), and up to 1.5 s of
 * waiting per call so Content Snare's Retry-After (whole seconds, at least 1) is waited out once.
 */
export function soakRetry(seed: number): RetryOptions {
  return { attempts: 3, baseDelayMs: 2, maxDelayMs: 20, maxTotalWaitMs: 1500, timeoutMs: 500, random: prng(seed) };
}

/** The most attempts one call may make: the first, `attempts` retries, and one repeat after a token renewal. */
export function attemptBudget(retry: RetryOptions): number {
  return 1 + (retry.attempts ?? 3) + 1;
}

/** Faults of every kind on every operation; each service draws from its own seed. */
export function soakFaults(seed: number): FaultOptions {
  return {
    seed,
    error: { rate: 0.06, statuses: [500, 502, 503] },
    drop: { rate: 0.03 },
    latency: { rate: 0.15, ms: 12 },
    // 16-byte pieces 30 ms apart: a small answer (a Marketo sync result, a new Content Snare
    // client) still arrives within the attempt's 500 ms; a larger one (a new card or request, a
    // board) does not, which makes timeouts after the service acted: the case a resend duplicates.
    slowBody: { rate: 0.02, delayMs: 30, chunkBytes: 16 },
  };
}

/**
 * Limits in fractions of a second so the soak stays short. Where a limit is the same on both sides,
 * the client's limiter (which counts a request until a window after its answer) keeps the soak's
 * own traffic within it; the mock's answers then come when a second integration on the same
 * account bursts into it (`NEIGHBOURS`), and the soak's calls in that window are refused as well.
 * Marketo's rate is tighter in the mock than in the client, so there the soak's own calls overflow
 * it now and then (606). (A World News concurrency 429 matches its window's rejection and holds the
 * window for a whole window: a tighter mock there would slow the soak to a crawl.)
 */
export const SOAK_LIMITS: Record<Service, { mock: Record<string, MockLimitOverride>; client: LimitOverrides }> = {
  trello: {
    mock: {
      perToken: { requests: 40, windowSeconds: 0.2 },
      perKey: { requests: 80, windowSeconds: 0.2 },
      members: { requests: 40, windowSeconds: 0.2 },
    },
    client: {
      perToken: { requests: 40, windowSeconds: 0.2 },
      perKey: { requests: 80, windowSeconds: 0.2 },
      members: { requests: 40, windowSeconds: 0.2 },
    },
  },
  marketo: {
    mock: { rate: { requests: 30, windowSeconds: 0.2 }, concurrent: { max: 3 } },
    client: { rate: { requests: 36, windowSeconds: 0.2 }, concurrent: { max: 3 } },
  },
  worldnews: {
    mock: { perMinute: { requests: 40, windowSeconds: 0.2 }, concurrent: { max: 3 }, points: { points: 1_000_000 } },
    client: { perMinute: { requests: 40, windowSeconds: 0.2 }, concurrent: { max: 3 } },
  },
  contentsnare: {
    mock: { reads: { requests: 30, windowSeconds: 0.25 }, writes: { requests: 12, windowSeconds: 0.25 } },
    client: { reads: { requests: 30, windowSeconds: 0.25 }, writes: { requests: 12, windowSeconds: 0.25 } },
  },
};

/**
 * Milliseconds each accepted request spends in the mock before its answer, for the services with a
 * concurrency limit: the neighbours' requests then overlap in the mock on any machine, so its
 * concurrency answers (Marketo 615, World News 429) really happen.
 */
export const SERVICE_TIME_MS: Partial<Record<Service, number>> = { marketo: 3, worldnews: 3 };

/** Every declared limit of a service switched off client-side (an integration that does not limit itself). */
export function noClientLimits(service: Service): LimitOverrides {
  return Object.fromEntries(TOOLS[service][0]!.descriptor.limits.map((l) => [l.id, { disabled: true }]));
}

/**
 * Another integration on the same account, with no limiter of its own, sends a burst of reads
 * while the soak runs (and the mock's clock stands, see the test), so the mock answers with its own
 * limit rejection (Content Snare: 429 with a Retry-After of whole seconds), to it and to the soak's
 * calls in that window. `inFlight` is how many it sends at once; `window` is the limit whose
 * answers the burst provokes.
 */
export const NEIGHBOURS: Record<
  Service,
  { tool: string; input: Record<string, unknown>; count: number; inFlight: number; window: string }
> = {
  trello: { tool: "trello_get_card", input: { id: CARD }, count: 50, inFlight: 25, window: "perToken" },
  marketo: { tool: "marketo_get_lists", input: {}, count: 40, inFlight: 6, window: "rate" },
  worldnews: {
    tool: "worldnews_get_geo_coordinates",
    input: { location: "Berlin" },
    count: 40,
    inFlight: 10,
    window: "perMinute",
  },
  contentsnare: { tool: "contentsnare_list_folders", input: {}, count: 40, inFlight: 20, window: "reads" },
};

/** Resources whose creates the soak makes, and the record field that holds each create's unique key. */
export const CREATED: Record<
  Service,
  Array<{ resource: string; key: (record: Record<string, unknown>) => unknown }>
> = {
  trello: [
    { resource: "card", key: (r) => r.name },
    { resource: "action", key: (r) => (r.data as { text?: unknown } | undefined)?.text },
  ],
  marketo: [{ resource: "lead", key: (r) => r.email }],
  worldnews: [],
  contentsnare: [
    { resource: "client", key: (r) => r.email },
    { resource: "request", key: (r) => r.name },
  ],
};

/** The id a create step returned (Marketo: the first result of the sync). */
export function createdId(service: Service, data: unknown): unknown {
  const d = data as Record<string, unknown> | undefined;
  if (service === "marketo") return (d?.result as Array<{ id?: unknown }> | undefined)?.[0]?.id;
  return d?.id;
}
