/**
 * The parent side of the multi-process limiter tests and benchmark: the four behavioural mocks at
 * their REAL declared limits (only World News's daily points are raised, so the run is not about
 * the free plan's 50 points), N worker processes (limits-worker.ts under tsx) on one account each,
 * offered 3× each limit's rate in total, and the mock's own record of every request it admitted
 * (arrival times) and refused.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { Redis } from "ioredis";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import "../mock/register.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import type { WorkerPlan, WorkerReport } from "./limits-worker.js";

const WORKER = fileURLToPath(new URL("./limits-worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const TRELLO = { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" };
const MARKETO = {
  endpoint: "https://123-ABC-456.mktorest.com",
  clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
  clientSecret: "mock-client-secret-0123456789abcdef",
};
const WORLDNEWS = { apiKey: "mock-worldnews-api-key-0123456789" };
const CONTENTSNARE = {
  clientId: "mock-client-id",
  clientSecret: "mock-client-secret",
  accessToken: "mock-access-token",
  refreshToken: "mock-refresh-token",
  expiresAt: "2099-01-01T00:00:00.000Z",
};
const CARD = "6123a9f0c4b5d6e7f8091a2b";

/** One declared window limit, the operation that spends it, and its numbers as the spec declares them. */
interface Measured {
  name: string;
  service: string;
  operationId: string;
  init: Record<string, unknown>;
  requests: number;
  windowSeconds: number;
}

export const MEASURED: Measured[] = [
  {
    name: "contentsnare reads",
    service: "contentsnare",
    operationId: "listClients",
    init: {},
    requests: 50,
    windowSeconds: 10,
  },
  {
    name: "contentsnare writes",
    service: "contentsnare",
    operationId: "createClient",
    init: { body: { email: "load@example.com", full_name: "Load Test" } },
    requests: 20,
    windowSeconds: 10,
  },
  {
    name: "trello perToken",
    service: "trello",
    operationId: "getCard",
    init: { params: { path: { id: CARD } } },
    requests: 100,
    windowSeconds: 10,
  },
  { name: "marketo rate", service: "marketo", operationId: "getLists", init: {}, requests: 100, windowSeconds: 20 },
  {
    name: "worldnews perMinute",
    service: "worldnews",
    operationId: "searchNews",
    init: { params: { query: { text: "markets" } } },
    requests: 60,
    windowSeconds: 60,
  },
];

const FIELDS: Record<string, Record<string, string>> = {
  trello: TRELLO,
  marketo: MARKETO,
  worldnews: WORLDNEWS,
  contentsnare: CONTENTSNARE,
};

export interface LimitUse {
  name: string;
  /** Requests the mock admitted in the whole windows measured, over what the limit allows in them. */
  used: number;
  admitted: number;
  windows: number;
}

export interface ScenarioResult {
  backend: string;
  procs: number;
  uses: LimitUse[];
  /** What the mocks refused, per service and limit id. */
  rejections: Record<string, number>;
  /** Requests the mock received per measured limit (admitted or refused). */
  sent: Record<string, number>;
  reports: WorkerReport[];
  startAt: number;
  /** Arrival times of the requests the mock admitted, per measured limit. */
  arrivals: Record<string, number[]>;
  /** Every key name the shared store holds at the end (Redis keys, or the state folder's file names). */
  stateKeys: string[];
}

/** Every credential value the workers used: none may appear in a key name. */
export const SECRETS = [
  TRELLO.apiKey,
  TRELLO.token,
  MARKETO.clientSecret,
  MARKETO.clientId,
  WORLDNEWS.apiKey,
  CONTENTSNARE.accessToken,
  CONTENTSNARE.refreshToken,
  CONTENTSNARE.clientSecret,
];

export interface ScenarioOptions {
  backend: "memory" | "file" | "redis";
  procs: number;
  redisUrl?: string | undefined;
  durationMs: number;
  /** Which limits to load (default all five). */
  only?: string[] | undefined;
  unreachableAfterMs?: number | undefined;
  /** Called once the workers' start time is known (the Redis outage test schedules the kill from it). */
  onStart?: ((startAt: number) => void) | undefined;
}

interface RunningWorker {
  ready: Promise<void>;
  start(at: number): void;
  report: Promise<WorkerReport>;
}

function runWorker(plan: WorkerPlan): RunningWorker {
  const env: NodeJS.ProcessEnv = { ...process.env, STEPFORGE_LIMITS_PLAN: JSON.stringify(plan) };
  delete env.STEPFORGE_REDIS_URL;
  delete env.STEPFORGE_STATE_DIR;
  delete env.STEPFORGE_STATE_FALLBACK;
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
    cwd: ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.includes('{"ready":true}')) markReady();
  });
  child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  child.once("exit", () => markReady());
  const report = new Promise<WorkerReport>((resolve) => {
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(line) as WorkerReport);
      } catch {
        resolve({ ok: 0, failed: {}, unreachableAt: [], error: `worker exited ${code}: ${err}` });
      }
    });
  });
  return { ready, report, start: (at) => child.stdin.end(`${at}\n`) };
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const measured = MEASURED.filter((m) => !options.only || options.only.includes(m.name));
  const services = [...new Set(measured.map((m) => m.service))];
  const arrivals = new Map<string, number[]>(measured.map((m) => [m.name, []]));
  const mocks = new Map<string, RunningMock>();
  const stateDir = options.backend === "file" ? mkdtempSync(join(tmpdir(), "sf-limits-")) : undefined;
  try {
    for (const service of services) {
      const byOp = new Map(
        measured.filter((m) => m.service === service).map((m) => [m.operationId, arrivals.get(m.name)!]),
      );
      mocks.set(
        service,
        await startMock(service, {
          // Real limits; only the free plan's 50 daily points would end the run early.
          ...(service === "worldnews" ? { limits: { overrides: { points: { points: 1_000_000 } } } } : {}),
          hooks: { beforeRespond: ({ operationId }) => void byOp.get(operationId)?.push(Date.now()) },
        }),
      );
    }
    const account = `account-${options.backend}-${options.procs}-${Date.now()}`;
    const plan = (): WorkerPlan => ({
      backend: options.backend,
      account,
      stateDir,
      redisUrl: options.redisUrl,
      unreachableAfterMs: options.unreachableAfterMs,
      durationMs: options.durationMs,
      services: services.map((service) => ({
        id: service,
        url: mocks.get(service)!.url,
        fields: FIELDS[service]!,
        ops: measured
          .filter((m) => m.service === service)
          .map((m) => ({
            operationId: m.operationId,
            init: m.init,
            perSecond: (3 * m.requests) / m.windowSeconds / options.procs,
          })),
      })),
    });
    // Every worker loads first (tsx, clients); then all start offering at one moment.
    const workers = Array.from({ length: options.procs }, () => runWorker(plan()));
    await Promise.all(workers.map((w) => w.ready));
    const startAt = Date.now() + 300;
    options.onStart?.(startAt);
    for (const w of workers) w.start(startAt);
    const reports = await Promise.all(workers.map((w) => w.report));
    const end = startAt + options.durationMs;
    const uses = measured.map((m) => {
      const times = arrivals.get(m.name)!.sort((a, b) => a - b);
      const w = m.windowSeconds * 1000;
      const t0 = times[0] ?? startAt;
      const windows = Math.max(1, Math.floor((end - t0) / w));
      const admitted = times.filter((t) => t < t0 + windows * w).length;
      return { name: m.name, used: admitted / (windows * m.requests), admitted, windows };
    });
    const sent = Object.fromEntries(
      measured.map((m) => [m.name, mocks.get(m.service)!.counters().byOperation[m.operationId] ?? 0]),
    );
    const rejections: Record<string, number> = {};
    for (const [service, mock] of mocks)
      for (const [id, n] of Object.entries(mock.counters().rejections)) rejections[`${service} ${id}`] = n;
    let stateKeys: string[] = [];
    if (stateDir) stateKeys = readdirSync(stateDir).map((name) => decodeURIComponent(name));
    else if (options.backend === "redis" && options.redisUrl) {
      const client = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        stateKeys = await client.keys("*");
      } catch {
        stateKeys = []; // the outage test may end with Redis just restarted
      } finally {
        client.disconnect();
      }
    }
    return {
      backend: options.backend,
      procs: options.procs,
      uses,
      rejections,
      sent,
      reports,
      startAt,
      arrivals: Object.fromEntries(arrivals),
      stateKeys,
    };
  } finally {
    await Promise.all([...mocks.values()].map((m) => m.close()));
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
}

/** One line per limit: "name: admitted/allowed (used %)". */
export function describeResult(r: ScenarioResult): string {
  const lines = r.uses.map(
    (u) => `  ${u.name}: ${u.admitted} in ${u.windows} window(s), ${(u.used * 100).toFixed(1)} % used`,
  );
  return `${r.backend}, ${r.procs} processes: rejections ${JSON.stringify(r.rejections)}\n${lines.join("\n")}`;
}
