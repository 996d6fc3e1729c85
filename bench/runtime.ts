/**
 * Runtime benchmarks (`npx tsx bench/runtime.ts`), side by side in one run:
 *
 * 1. Per-call overhead: the same GET through plain fetch, bare openapi-fetch and the stepforge
 *    client, against an in-process fetch (pure client cost) and a loopback server.
 * 2. Limiter: a saturating caller against each service's behavioural mock enforcing the declared
 *    window limits, windows scaled down so a run takes seconds. Reports the achieved share of the
 *    limit and the rejections the mock counted (the goal: near 100 % and zero).
 *
 * Loopback only, bounded request counts; prints a table of medians and ratios.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import { TrelloClient } from "../generated/trello/index.js";
import { descriptor as trelloDescriptor } from "../generated/trello/descriptor.js";
import type { paths as TrelloPaths } from "../generated/trello/types.js";
import { createServiceClient, createSharedState, type ServiceDescriptor } from "../runtime/index.js";
import { startMock } from "../runtime/mock/index.js";
// Each generated mock registers itself when imported, so startMock("<id>") finds it.
import "../generated/contentsnare/mock.js";
import "../generated/marketo/mock.js";
import "../generated/trello/mock.js";
import "../generated/worldnews/mock.js";
import { machineLine, median, table } from "./lib/report.js";

const CARD = {
  id: "6123a9f0c4b5d6e7f8091a2b",
  name: "Bench",
  idList: "60d5ecb74e2a1b3c4d5e6f72",
  idBoard: "60d5ecb74e2a1b3c4d5e6f70",
};
const BODY = JSON.stringify(CARD);
const AUTH = { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" };

/**
 * Median µs per call of each client, measured in interleaved rounds (every client once per
 * round, in turn), so a slower stretch of the machine weighs on every row alike.
 */
async function timeSideBySide(n: number, rounds: number, clients: Array<[string, () => Promise<unknown>]>) {
  for (const [, fn] of clients) for (let i = 0; i < 200; i++) await fn(); // warm-up
  const samples = clients.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (const [k, [, fn]] of clients.entries()) {
      const started = performance.now();
      for (let i = 0; i < n; i++) await fn();
      samples[k]!.push(((performance.now() - started) * 1000) / n);
    }
  }
  return clients.map(([label], k) => ({ label, usPerCall: median(samples[k]!) }));
}

async function overhead(target: "in-process" | "loopback") {
  let baseUrl = "http://127.0.0.1:1";
  let close = async () => {};
  let fetchImpl: typeof fetch = globalThis.fetch;
  if (target === "loopback") {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(BODY);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((r) => server.close(() => r()));
  } else {
    fetchImpl = async () => new Response(BODY, { status: 200, headers: { "content-type": "application/json" } });
  }
  const n = target === "loopback" ? 500 : 2000;
  const url = `${baseUrl}/1/cards/${CARD.id}?key=${AUTH.apiKey}&token=${AUTH.token}`;
  const bare = createClient<TrelloPaths>({ baseUrl, fetch: fetchImpl });
  const connection = { name: "bench", fields: AUTH };
  // Limits off: the runtime's own cost. Limits on: every declared limit counts each call (as a
  // user runs it), with room so large that none binds, so the row measures counting, not waiting.
  const off = Object.fromEntries(trelloDescriptor.limits.map((l) => [l.id, { disabled: true }]));
  const roomy = Object.fromEntries(trelloDescriptor.limits.map((l) => [l.id, { requests: 1e9 }]));
  const limitsOff = new TrelloClient({ connection, baseUrl, fetch: fetchImpl, limits: off });
  const limitsOn = new TrelloClient({
    connection,
    baseUrl,
    fetch: fetchImpl,
    limits: roomy,
    shared: createSharedState(),
  });
  const getCard = { params: { path: { id: CARD.id } } };
  const query = { key: AUTH.apiKey, token: AUTH.token } as never;
  const results = await timeSideBySide(n, target === "loopback" ? 5 : 11, [
    ["plain fetch", async () => (await fetchImpl(url)).json()],
    ["openapi-fetch", () => bare.GET("/1/cards/{id}", { params: { path: { id: CARD.id }, query } })],
    ["stepforge client, limits off", () => limitsOff.getCard(getCard)],
    ["stepforge client, limits on (not binding)", () => limitsOn.getCard(getCard)],
  ]);
  await close();
  const fetchCost = results[0]!.usPerCall;
  const base = results[1]!.usPerCall;
  const rounds = target === "loopback" ? 5 : 11;
  console.log(`\nper-call cost, ${target} (${n} sequential GETs × ${rounds} interleaved rounds, median µs/call)`);
  console.log(
    table(
      ["client", "µs/call", "vs plain fetch", "vs openapi-fetch"],
      results.map((r) => [
        r.label,
        r.usPerCall.toFixed(1),
        `${(r.usPerCall / fetchCost).toFixed(2)}×`,
        `${(r.usPerCall / base).toFixed(2)}×`,
      ]),
    ),
  );
}

/** Saturates one window limit of a service against its mock; both sides use the scaled limit. */
async function saturate(
  service: string,
  descriptor: ServiceDescriptor,
  limitId: string,
  operationId: string,
  init: object,
  fields: Record<string, string>,
  scale: number,
  seconds: number,
) {
  const limit = descriptor.limits.find((l) => l.id === limitId);
  if (!limit || limit.kind !== "window") throw new Error(`${service} has no window limit ${limitId}`);
  const windowSeconds = limit.windowSeconds / scale;
  const scaled = { [limitId]: { requests: limit.requests, windowSeconds } };
  // Other limits of the service are left out of the run on both sides, so only this one binds.
  const others = Object.fromEntries(
    descriptor.limits.filter((l) => l.id !== limitId).map((l) => [l.id, { disabled: true }]),
  );
  const mock = await startMock(service, { limits: { overrides: { ...scaled, ...others } } });
  const client = createServiceClient(descriptor, {
    connection: { name: `bench-${service}`, fields },
    baseUrl: mock.url,
    limits: { ...scaled, ...others },
  });
  const finished: number[] = [];
  let failed = 0;
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < stopAt) {
      try {
        await client.call(operationId, init);
        finished.push(performance.now() - started);
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const counters = mock.counters();
  await mock.close();
  // A window limit allows `requests` per window: over whole windows the most anyone can get is
  // windows × requests. Calls that finish after the last whole window are not counted.
  const windows = Math.floor(seconds / windowSeconds);
  const counted = finished.filter((t) => t < windows * windowSeconds * 1000).length;
  return {
    service,
    limit: `${limitId}: ${limit.requests} / ${limit.windowSeconds} s (run at ${limit.requests} / ${windowSeconds} s)`,
    calls: counted,
    share: counted / (windows * limit.requests),
    rejected: counters.rateLimited,
    failed,
  };
}

async function limiter() {
  const { descriptor: marketo } = await import("../generated/marketo/descriptor.js");
  const { descriptor: worldnews } = await import("../generated/worldnews/descriptor.js");
  const { descriptor: contentsnare } = await import("../generated/contentsnare/descriptor.js");
  const marketoFields = {
    endpoint: "https://123-ABC-456.mktorest.com",
    clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
    clientSecret: "mock-client-secret-0123456789abcdef",
  };
  const snareFields = {
    clientId: "mock-client-id",
    clientSecret: "mock-client-secret",
    accessToken: "mock-access-token",
    refreshToken: "mock-refresh-token",
  };
  const runs = [
    await saturate(
      "trello",
      trelloDescriptor,
      "perToken",
      "getCard",
      { params: { path: { id: CARD.id } } },
      AUTH,
      5,
      4,
    ),
    await saturate(
      "marketo",
      marketo,
      marketo.limits.find((l) => l.kind === "window")!.id,
      "getLists",
      {},
      marketoFields,
      10,
      4,
    ),
    await saturate(
      "worldnews",
      worldnews,
      worldnews.limits.find((l) => l.kind === "window")!.id,
      "getGeoCoordinates",
      { params: { query: { location: "Tokyo, Japan" } } },
      { apiKey: "mock-worldnews-api-key-0123456789" },
      20,
      4,
    ),
    await saturate(
      "contentsnare",
      contentsnare,
      contentsnare.limits.find((l) => l.kind === "window" && l.applies === "read")!.id,
      "listClients",
      {},
      snareFields,
      5,
      4,
    ),
  ];
  console.log("\nlimiter under a saturating load (16 concurrent callers, 4 s per service)");
  console.log(
    table(
      ["service", "declared limit", "calls in whole windows", "achieved share", "mock rejections", "failed calls"],
      runs.map((r) => [r.service, r.limit, r.calls, `${(r.share * 100).toFixed(1)} %`, r.rejected, r.failed]),
    ),
  );
}

console.log(`stepforge runtime benchmarks — ${machineLine()}`);
await overhead("in-process");
// --per-call: the in-process row only (a quick look while working on the request pipeline).
if (!process.argv.includes("--per-call")) {
  await overhead("loopback");
  await limiter();
}
