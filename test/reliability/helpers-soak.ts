/**
 * The fault soak's workload and bookkeeping: a seeded plan of tool-step calls per service (reads,
 * creates with a unique key each, idempotent updates, reads of ids that do not exist), the mock and
 * client settings that make the mocks inject faults and answer with their own rate-limit answers,
 * a runner that executes the plan through `executeTool` / `executeToolByName` with a few calls in
 * flight and records per call what happened (result, the typed error thrown beneath the step,
 * attempts and retry waits seen through the hooks), and the checks on the outcome.
 */
import v8 from "node:v8";
import vm from "node:vm";
import {
  createServiceClient,
  createSharedState,
  StepforgeError,
  type ClientOptions,
  type Connection,
  type ErrorKind,
  type Hooks,
  type LimitOverrides,
  type RetryOptions,
  type ServiceClient,
  type SharedState,
} from "../../runtime/index.js";
import {
  AuthError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PermissionError,
  QuotaExhaustedError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../../runtime/errors.js";
import type { FaultOptions, MockLimitOverride, RunningMock } from "../../runtime/mock/index.js";
import { prng } from "../../runtime/mock/faults.js";
import {
  canonicalSchema,
  executeTool,
  executeToolByName,
  recordsKeyOf,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "../../runtime/tools/index.js";
import { tools as contentsnareTools } from "../../generated/contentsnare/tools.js";
import { tools as marketoTools } from "../../generated/marketo/tools.js";
import { tools as trelloTools } from "../../generated/trello/tools.js";
import { tools as worldnewsTools } from "../../generated/worldnews/tools.js";
import { BOARD, CARD, CONTENTSNARE, LABEL, LIST, MARKETO, TRELLO, WORLDNEWS } from "../mock/helpers.js";

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

export function neighbourCalls(service: Service): PlannedCall[] {
  const n = NEIGHBOURS[service];
  return Array.from({ length: n.count }, (_, i) => ({
    seq: 100_000 + i,
    service,
    tool: n.tool,
    input: n.input,
    neighbour: true,
  }));
}

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

export interface PlannedCall {
  seq: number;
  service: Service;
  tool: string;
  input: Record<string, unknown>;
  /** For a create: the resource and the unique key it carries. */
  creates?: { resource: string; key: string };
  /** A read of an id that does not exist (a NotFoundError is the right answer). */
  missing?: boolean;
  /** Sent by the second integration (`NEIGHBOURS`). */
  neighbour?: boolean;
}

/** One kind of call; `tag` (`<service>-<seq>`) makes a create's key unique. */
type Pick = (tag: string) => Omit<PlannedCall, "seq" | "service">;

const MISSING_TRELLO = "0000000000000000000000ff";

const GENERATORS: Record<Service, Array<[number, Pick]>> = {
  trello: [
    [
      15,
      (tag) => ({
        tool: "trello_create_card",
        input: { idList: LIST, name: `soak card ${tag}`, pos: "bottom" },
        creates: { resource: "card", key: `soak card ${tag}` },
      }),
    ],
    [
      8,
      (tag) => ({
        tool: "trello_add_comment_to_card",
        input: { id: CARD, text: `soak comment ${tag}` },
        creates: { resource: "action", key: `soak comment ${tag}` },
      }),
    ],
    [10, (tag) => ({ tool: "trello_update_card", input: { id: CARD, desc: `updated by ${tag}` } })],
    [4, () => ({ tool: "trello_add_label_to_card", input: { id: CARD, value: LABEL } })],
    [18, () => ({ tool: "trello_get_card", input: { id: CARD } })],
    [8, () => ({ tool: "trello_get_board", input: { id: BOARD } })],
    [8, () => ({ tool: "trello_get_board_lists", input: { id: BOARD } })],
    [6, () => ({ tool: "trello_get_list", input: { id: LIST } })],
    [6, () => ({ tool: "trello_get_board_labels", input: { id: BOARD } })],
    [5, () => ({ tool: "trello_get_boards", input: { filter: "open" } })],
    [4, () => ({ tool: "trello_get_card", input: { id: MISSING_TRELLO }, missing: true })],
    [8, () => ({ tool: "trello_api_call", input: { method: "GET", endpoint: `/1/cards/${CARD}` } })],
  ],
  marketo: [
    [
      16,
      (tag) => ({
        tool: "marketo_sync_leads",
        input: {
          action: "createOnly",
          input: [{ email: `soak.${tag}@example.com`, firstName: "Soak", lastName: tag }],
        },
        creates: { resource: "lead", key: `soak.${tag}@example.com` },
      }),
    ],
    [8, () => ({ tool: "marketo_add_leads_to_list", input: { listId: 1082, input: [{ id: 318581 }] } })],
    [
      16,
      () => ({
        tool: "marketo_get_leads",
        input: { filterType: "email", filterValues: ["amy.nguyen@example.com", "raj.patel@example.com"] },
      }),
    ],
    [12, () => ({ tool: "marketo_get_lists", input: {} })],
    [10, () => ({ tool: "marketo_get_campaigns", input: {} })],
    [10, () => ({ tool: "marketo_get_campaign", input: { id: 1004 } })],
    [8, () => ({ tool: "marketo_check_list_membership", input: { listId: 1082, id: [318581, 318602] } })],
    [6, () => ({ tool: "marketo_get_activity_types", input: {} })],
    [4, () => ({ tool: "marketo_get_campaign", input: { id: 999_999 }, missing: true })],
    [8, () => ({ tool: "marketo_api_call", input: { method: "GET", endpoint: "/rest/v1/lists.json" } })],
  ],
  worldnews: [
    [25, () => ({ tool: "worldnews_search_news", input: { text: "electric vehicles", language: "en", number: 5 } })],
    [15, () => ({ tool: "worldnews_top_news", input: { source_country: "us", language: "en" } })],
    [20, () => ({ tool: "worldnews_retrieve_news", input: { ids: "261548632" } })],
    [10, () => ({ tool: "worldnews_search_news_sources", input: { name: "reuters" } })],
    [10, () => ({ tool: "worldnews_get_geo_coordinates", input: { location: "Tokyo, Japan" } })],
    [
      10,
      () => ({
        tool: "worldnews_api_call",
        input: { method: "GET", endpoint: "/search-news", params: { text: "tesla", number: 3 } },
      }),
    ],
  ],
  contentsnare: [
    [
      12,
      (tag) => ({
        tool: "contentsnare_create_client",
        input: { name: `Soak Client ${tag}`, email: `soak.${tag}@example.com` },
        creates: { resource: "client", key: `soak.${tag}@example.com` },
      }),
    ],
    [
      8,
      (tag) => ({
        tool: "contentsnare_create_request",
        input: {
          name: `soak request ${tag}`,
          client_email: "dana.whitfield@harbourlane.co",
          request_template_id: "rtp_5Nw2QxR8",
        },
        creates: { resource: "request", key: `soak request ${tag}` },
      }),
    ],
    [
      10,
      (tag) => ({
        tool: "contentsnare_update_request",
        input: { id: "req_3Hk9sPq1", instruction_text: `updated by ${tag}` },
      }),
    ],
    [14, () => ({ tool: "contentsnare_get_client", input: { id: "acc_8fJ2kL0q" } })],
    [12, () => ({ tool: "contentsnare_list_clients", input: { limit: 20 } })],
    [12, () => ({ tool: "contentsnare_get_request", input: { id: "req_3Hk9sPq1" } })],
    [8, () => ({ tool: "contentsnare_list_requests", input: { limit: 10 } })],
    [6, () => ({ tool: "contentsnare_list_folders", input: {} })],
    [6, () => ({ tool: "contentsnare_get_me", input: {} })],
    [4, () => ({ tool: "contentsnare_get_client", input: { id: "acc_doesNotExist" }, missing: true })],
    [
      8,
      () => ({
        tool: "contentsnare_api_call",
        input: { method: "GET", endpoint: "/partner_api/v1/request_templates" },
      }),
    ],
  ],
};

/** `count` calls for one service, drawn by weight from a seeded sequence; creates get the keys `<service>-<seq>`. */
export function planCalls(service: Service, count: number, seed: number): PlannedCall[] {
  const random = prng(seed);
  const table = GENERATORS[service];
  const total = table.reduce((n, [w]) => n + w, 0);
  const calls: PlannedCall[] = [];
  for (let seq = 0; seq < count; seq++) {
    let r = random() * total;
    let pick = table[table.length - 1]![1];
    for (const [w, p] of table) {
      if (r < w) {
        pick = p;
        break;
      }
      r -= w;
    }
    calls.push({ seq, service, ...pick(`${service}-${seq}`) });
  }
  return calls;
}

export interface Outcome {
  call: PlannedCall;
  result?: ToolResult;
  /** executeTool / executeToolByName threw (it must never). */
  threw?: unknown;
  /** What the service client threw beneath the step (only for calls run with an observed client). */
  thrown?: unknown;
  observed: boolean;
  /** Attempts sent (hook `request` events) and retries announced (`retry` events, renewals apart). */
  attempts: number;
  retries: number;
  reauths: number;
  waitedMs: number;
  throttled: number;
  /** Attempts that ran out of time (retried, or the call's final TimeoutError). */
  timeouts: number;
  /** Why each retry happened, as the hooks said (`status 503`, `code 606`, `network`, ...). */
  reasons: string[];
  /** For a successful create: the id the step returned (the rest of a success's data is dropped, so the outcomes hold no answers). */
  createdId?: unknown;
}

export interface Runtime {
  mocks: Record<Service, RunningMock>;
  shared: SharedState;
  retry: (service: Service) => RetryOptions;
  limits: (service: Service) => LimitOverrides;
  /** A signal that lives as long as the caller (an agent session's "cancel everything"); never aborted here. */
  signal?: AbortSignal | undefined;
}

/** Runs one planned call through the tool-step entry points and records what happened. */
export async function runCall(call: PlannedCall, rt: Runtime): Promise<Outcome> {
  const outcome: Outcome = {
    call,
    observed: false,
    attempts: 0,
    retries: 0,
    reauths: 0,
    waitedMs: 0,
    throttled: 0,
    timeouts: 0,
    reasons: [],
  };
  const hooks: Hooks = {
    onRequest: () => void outcome.attempts++,
    onRetry: (e) => {
      outcome.reasons.push(e.reason);
      if (e.reason === "reauth") outcome.reauths++;
      else {
        if (e.reason === "timeout") outcome.timeouts++;
        outcome.retries++;
        outcome.waitedMs += e.delayMs;
      }
    },
    onThrottle: () => void outcome.throttled++,
  };
  const options: ClientOptions = {
    connection: CONNECTIONS[call.service],
    baseUrl: rt.mocks[call.service].url,
    shared: rt.shared,
    limits: rt.limits(call.service),
    retry: rt.retry(call.service),
    signal: rt.signal,
    hooks,
  };
  const tool = TOOLS[call.service].find((t) => t.name === call.tool);
  try {
    if (!tool) throw new Error(`no tool ${call.tool}`);
    if (tool.kind === "operation" && call.seq % 2 === 0) {
      // A client of our own beneath the step, to see the error object the runtime throws.
      const client = createServiceClient(tool.descriptor, options);
      const observedClient: ServiceClient = {
        ...client,
        call: async (operationId, init) => {
          try {
            return await client.call(operationId, init);
          } catch (error) {
            outcome.thrown = error;
            throw error;
          }
        },
      };
      outcome.observed = true;
      const context: ToolContext = { ...options, client: observedClient };
      outcome.result = await executeTool(tool, call.input, context);
    } else {
      // The catalogue path: the step builds its own client from the context.
      outcome.result = await executeToolByName(ALL_TOOLS, call.tool, call.input, () => options);
    }
  } catch (error) {
    outcome.threw = error;
  }
  if (outcome.result?.ok === false && outcome.result.error.kind === "timeout") outcome.timeouts++;
  if (outcome.result?.ok) {
    if (call.creates) outcome.createdId = createdId(call.service, outcome.result.data);
    outcome.result = { ok: true, data: undefined };
  }
  return outcome;
}

/** Runs `calls` with `concurrency` in flight (in plan order as workers free up). */
export async function runPool(calls: PlannedCall[], concurrency: number, rt: Runtime): Promise<Outcome[]> {
  const out: Outcome[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const i = next++;
      out[i] = await runCall(calls[i]!, rt);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return out;
}

export const ERROR_CLASS_OF: Record<ErrorKind, typeof StepforgeError> = {
  auth: AuthError,
  permission: PermissionError,
  not_found: NotFoundError,
  validation: ValidationError,
  conflict: ConflictError,
  rate_limited: RateLimitedError,
  quota_exhausted: QuotaExhaustedError,
  timeout: TimeoutError,
  network: NetworkError,
  server: ServerError,
};

/** Why an outcome breaks the soak's rules ("" when it does not). */
export function ruleBreach(o: Outcome, budget: number, retry: RetryOptions): string {
  const where = `#${o.call.seq} ${o.call.tool}`;
  if (o.threw !== undefined) return `${where}: the step threw ${String(o.threw)}`;
  const r = o.result;
  if (!r) return `${where}: no result`;
  if (o.attempts > budget) return `${where}: ${o.attempts} attempts > budget ${budget}`;
  if (o.retries > (retry.attempts ?? 3)) return `${where}: ${o.retries} retries > ${retry.attempts}`;
  if (o.reauths > 1) return `${where}: ${o.reauths} token renewals`;
  if (o.waitedMs > (retry.maxTotalWaitMs ?? 60_000)) return `${where}: waited ${o.waitedMs} ms between attempts`;
  if (r.ok) {
    // (A call may fail before its first attempt: the OAuth token request beneath it failed.)
    if (o.attempts < 1) return `${where}: succeeded without sending anything`;
    if (o.call.missing) return `${where}: a missing id was found`;
    return "";
  }
  const kind = r.error.kind;
  if (!(kind in ERROR_CLASS_OF)) return `${where}: untyped tool error ${kind}: ${r.error.message}`;
  if (o.observed) {
    const t = o.thrown;
    if (!(t instanceof StepforgeError))
      return `${where}: the client threw a non-StepforgeError ${Object.prototype.toString.call(t)} ${String(t)}`;
    if (!(t instanceof ERROR_CLASS_OF[kind as ErrorKind]) || t.kind !== kind)
      return `${where}: thrown ${t.name}/${t.kind} but the step reported ${kind}`;
    if (t.retries !== o.retries) return `${where}: the error says ${t.retries} retries, the hooks saw ${o.retries}`;
  }
  if (o.call.missing && kind !== "not_found" && !TRANSIENT.has(kind)) return `${where}: a missing id gave ${kind}`;
  if (!o.call.missing && !TRANSIENT.has(kind)) return `${where}: unexpected ${kind}: ${r.error.message}`;
  return "";
}

/** What the faults and the limits may end a call with. */
export const TRANSIENT = new Set(["server", "network", "timeout", "rate_limited"]);
/** Outcomes after which a create may or may not have been applied (the answer never arrived whole, or a 5xx). */
export const AMBIGUOUS = new Set(["server", "network", "timeout"]);

export interface WriteAudit {
  resource: string;
  /** Create calls made / succeeded / ended ambiguous / refused for sure. */
  calls: number;
  succeeded: number;
  ambiguous: number;
  refused: number;
  /** Records with a soak key in the mock, and how many of them ambiguous calls left behind. */
  records: number;
  appliedAmbiguous: number;
  /** The mock's own create counter for the resource, over its count of seeded records. */
  mockCreates: number;
  problems: string[];
}

/**
 * No duplicate write: every create carries a key no other call uses, so each key may appear at most
 * once in the mock's records. A successful create's key appears exactly once, under the id the step
 * returned; a create refused for sure (rate-limited, not found...) left nothing; an ambiguous one
 * (5xx, dropped, timed out) left at most one. The mock's create counter equals the number of new
 * records: nothing was created and dropped from view, and no resend made a second one.
 */
export function auditCreates(
  service: Service,
  outcomes: Outcome[],
  mock: RunningMock,
  seeded: Record<string, number>,
): WriteAudit[] {
  const audits: WriteAudit[] = [];
  for (const { resource, key } of CREATED[service]) {
    const creates = outcomes.filter((o) => o.call.creates?.resource === resource);
    const records = mock.records(resource);
    const soakRecords = records.filter(
      (r) => typeof key(r) === "string" && String(key(r)).startsWith("soak") && String(key(r)).includes(`${service}-`),
    );
    const byKey = new Map<string, Array<Record<string, unknown>>>();
    for (const r of soakRecords) {
      const k = String(key(r));
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
    }
    const audit: WriteAudit = {
      resource,
      calls: creates.length,
      succeeded: 0,
      ambiguous: 0,
      refused: 0,
      records: soakRecords.length,
      appliedAmbiguous: 0,
      mockCreates: mock.counters().creates[resource] ?? 0,
      problems: [],
    };
    for (const [k, list] of byKey)
      if (list.length > 1) audit.problems.push(`${resource} "${k}" was created ${list.length} times`);
    const planned = new Set(creates.map((o) => o.call.creates!.key));
    for (const k of byKey.keys()) if (!planned.has(k)) audit.problems.push(`${resource} "${k}" matches no create call`);
    for (const o of creates) {
      const k = o.call.creates!.key;
      const found = byKey.get(k) ?? [];
      const r = o.result;
      if (r?.ok) {
        audit.succeeded++;
        if (found.length !== 1)
          audit.problems.push(`#${o.call.seq} succeeded but "${k}" is there ${found.length} times`);
        const id = o.createdId;
        if (id === undefined) audit.problems.push(`#${o.call.seq} succeeded without an id`);
        else if (found[0] && String(found[0].id) !== String(id))
          audit.problems.push(
            `#${o.call.seq} returned id ${String(id)}, the record of "${k}" is ${String(found[0].id)}`,
          );
      } else if (r && AMBIGUOUS.has(r.error.kind)) {
        audit.ambiguous++;
        if (found.length === 1) audit.appliedAmbiguous++;
      } else {
        audit.refused++;
        if (found.length > 0)
          audit.problems.push(
            `#${o.call.seq} ended ${r?.ok === false ? r.error.kind : "?"} (refused) but "${k}" was created`,
          );
      }
    }
    const expectedNew = records.length - (seeded[resource] ?? 0);
    if (audit.mockCreates !== expectedNew)
      audit.problems.push(
        `the mock counted ${audit.mockCreates} ${resource} creates but holds ${expectedNew} new records`,
      );
    if (soakRecords.length !== expectedNew)
      audit.problems.push(`${expectedNew - soakRecords.length} new ${resource} records carry no soak key`);
    audits.push(audit);
  }
  return audits;
}

/** The id a create step returned (Marketo: the first result of the sync). */
function createdId(service: Service, data: unknown): unknown {
  const d = data as Record<string, unknown> | undefined;
  if (service === "marketo") return (d?.result as Array<{ id?: unknown }> | undefined)?.[0]?.id;
  return d?.id;
}

/** A full GC when the process allows it (vitest forks run without --expose-gc). */
export function forceGc(): boolean {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    try {
      v8.setFlagsFromString("--expose-gc");
      gc = vm.runInNewContext("gc") as () => void;
    } catch {
      gc = undefined;
    }
  }
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** heapUsed after the sockets and timers of the calls have settled and (when possible) a full GC. */
export async function settledHeap(): Promise<{ bytes: number; collected: boolean }> {
  await new Promise((r) => setTimeout(r, 50));
  const collected = forceGc();
  return { bytes: process.memoryUsage().heapUsed, collected };
}

export function tally<T>(items: T[], key: (item: T) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export { createSharedState };

// ------------------------------------------------------------------ an agent that follows advice

/**
 * Faults for the agent soak: those of the main soak, with more slow bodies and dropped connections,
 * so that many creates lose their answer after the mock applied them.
 */
export function agentFaults(seed: number): FaultOptions {
  return { ...soakFaults(seed), slowBody: { rate: 0.12, delayMs: 30, chunkBytes: 16 }, drop: { rate: 0.06 } };
}

/** Creates only: every planned call of the main plan that makes a record. */
export function agentPlan(service: Service, count: number, seed: number): PlannedCall[] {
  return planCalls(service, count * 4, seed)
    .filter((c) => c.creates)
    .slice(0, count);
}

export interface AgentOutcome {
  call: PlannedCall;
  /** Calls of the create step the agent made. */
  creates: number;
  /** Checks it ran (each with its own retries). */
  checks: number;
  /** How it ended: created (an answer said so), found (a check found it), gave up (a non-retryable error, or a check it could not run). */
  end: "created" | "found" | "gave_up";
  lastError?: string;
}

const MAX_AGENT_CALLS = 8;

/** The records of a step's result: the list its output schema declares, or the result itself. */
function recordsOf(step: string, data: unknown): Array<Record<string, unknown>> {
  const tool = ALL_TOOLS.find((t) => t.name === step)!;
  const key = recordsKeyOf(canonicalSchema(tool.output, "output"));
  const d = data as Record<string, unknown>;
  if (key && Array.isArray(d?.[key])) return d[key] as Array<Record<string, unknown>>;
  return d ? [d] : [];
}

/** Own values at a dotted path, through lists (`data.text`, `checklists.name`). */
function valuesAt(record: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(record) ? record : [record];
  if (Array.isArray(record)) return record.flatMap((r) => valuesAt(r, path));
  if (!record || typeof record !== "object" || !Object.prototype.hasOwnProperty.call(record, path[0]!)) return [];
  return valuesAt((record as Record<string, unknown>)[path[0]!], path.slice(1));
}

/**
 * What a careful model does with one create: call it; on success stop; when the result says the
 * outcome is unknown, run the check it names (retrying the check while its own results say so) and
 * create again only when the check shows nothing; when the result is retryable, wait as told and
 * call again; otherwise stop. Runs against the mocks through the tool-step catalogue.
 */
export async function runAgentCreate(call: PlannedCall, rt: Runtime): Promise<AgentOutcome> {
  const options: ToolContext = {
    connection: CONNECTIONS[call.service],
    baseUrl: rt.mocks[call.service].url,
    shared: rt.shared,
    limits: rt.limits(call.service),
    retry: rt.retry(call.service),
  };
  const outcome: AgentOutcome = { call, creates: 0, checks: 0, end: "gave_up" };
  const pause = (ms: number | undefined) => new Promise((r) => setTimeout(r, Math.min(ms ?? 5, 200)));
  for (let calls = 0; calls < MAX_AGENT_CALLS; ) {
    calls++;
    outcome.creates++;
    const result = await executeToolByName(ALL_TOOLS, call.tool, call.input, options);
    if (result.ok) return { ...outcome, end: "created" };
    const error = result.error;
    outcome.lastError = error.kind;
    if (error.outcome === "unknown") {
      if (!error.check) return outcome;
      // Run the check until it answers; if it cannot be run, do not risk a second record.
      let found: boolean | undefined;
      while (found === undefined && calls < MAX_AGENT_CALLS) {
        calls++;
        outcome.checks++;
        const read = await executeToolByName(ALL_TOOLS, error.check.step, error.check.input, options);
        if (read.ok) {
          const matches = recordsOf(error.check.step, read.data).filter((r) =>
            Object.entries(error.check!.match).every(([field, want]) => {
              const wanted = Array.isArray(want) ? want : [want];
              return valuesAt(r, field.split(".")).some((v) => wanted.includes(v));
            }),
          );
          found = matches.length > 0;
        } else if (!read.error.retryable) {
          return outcome;
        } else {
          await pause(read.error.retryAfterMs);
        }
      }
      if (found) return { ...outcome, end: "found" };
      if (found === undefined) return outcome;
      continue;
    }
    if (!error.retryable) return outcome;
    await pause(error.retryAfterMs);
  }
  return outcome;
}

/** Records made more than once for the same key (each planned create has a key of its own). */
export function duplicateRecords(service: Service, mock: RunningMock): number {
  let duplicates = 0;
  for (const { key } of CREATED[service]) {
    const resource = CREATED[service].find((c) => c.key === key)!.resource;
    const counts = new Map<string, number>();
    for (const r of mock.records(resource)) {
      const k = key(r);
      if (typeof k === "string" && k.startsWith("soak") && k.includes(`${service}-`))
        counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const n of counts.values()) duplicates += n - 1;
  }
  return duplicates;
}
