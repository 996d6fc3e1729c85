import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  createServiceClient,
  createSharedState,
  dayIn,
  nextMidnight,
  QuotaExhaustedError,
  type ServiceClient,
  type ThrottleEvent,
} from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, delay, json, startServer, type TestServer } from "./helpers.js";
import { ServerWindow } from "./server-window.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function reject429(res: ServerResponse, error: string) {
  json(res, 429, { error, message: "Rate limit exceeded" });
}

const WINDOW_MS = 300;
const noRetry = { attempts: 0 };

describe("sliding windows", () => {
  const limits = [
    {
      id: "perToken",
      kind: "window",
      requests: 100,
      windowSeconds: 10,
      per: "connection",
      description: "100 per 10 s per token",
      rejection: { status: 429 },
    },
    {
      id: "perKey",
      kind: "window",
      requests: 300,
      windowSeconds: 10,
      per: "field:apiKey",
      description: "300 per 10 s per key",
      rejection: { status: 429 },
    },
  ];
  // Shrunk for the test: 10 per token and 15 per key in 300 ms windows.
  const shrink = {
    perToken: { requests: 10, windowSeconds: WINDOW_MS / 1000 },
    perKey: { requests: 15, windowSeconds: WINDOW_MS / 1000 },
  };

  async function windowServer() {
    const perToken = new Map<string, ServerWindow>();
    const perKey = new Map<string, ServerWindow>();
    let rejected = 0;
    const srv = await startServer((req, res) => {
      const token = req.url.searchParams.get("token")!;
      const key = req.url.searchParams.get("key")!;
      const t = perToken.get(token) ?? new ServerWindow(10, WINDOW_MS);
      perToken.set(token, t);
      const k = perKey.get(key) ?? new ServerWindow(15, WINDOW_MS);
      perKey.set(key, k);
      if (!k.admit(req.at)) {
        rejected++;
        return reject429(res, "API_KEY_LIMIT_EXCEEDED");
      }
      if (!t.admit(req.at)) {
        rejected++;
        return reject429(res, "API_TOKEN_LIMIT_EXCEEDED");
      }
      json(res, 200, { id: "x" });
    });
    return { server: srv, perToken, perKey, rejected: () => rejected };
  }

  const run = (client: ServiceClient, n: number) =>
    Promise.all(Array.from({ length: n }, () => client.call("getThing", { params: { path: { id: "1" } } })));

  it("a saturating caller reaches the limit with zero rejections", async () => {
    const w = await windowServer();
    server = w.server;
    const throttles: ThrottleEvent[] = [];
    const client = createServiceClient(apiKeyService({ limits }), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      limits: shrink,
      retry: noRetry,
      hooks: { onThrottle: (e) => throttles.push(e) },
    });
    await run(client, 50);
    expect(w.rejected()).toBe(0);
    const window = [...w.perToken.values()][0]!;
    expect(window.all).toHaveLength(50);
    expect(window.peak()).toBe(10); // used the whole budget, never more
    expect(throttles.some((e) => e.limit === "perToken")).toBe(true);
  });

  it("the same server rejects a caller that does not limit (control)", async () => {
    const w = await windowServer();
    server = w.server;
    const client = createServiceClient(apiKeyService({ limits }), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      limits: { perToken: { disabled: true }, perKey: { disabled: true } },
      retry: noRetry,
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => client.call("getThing", { params: { path: { id: "1" } } })),
    );
    expect(w.rejected()).toBeGreaterThan(0);
    expect(outcomes.some((o) => o.status === "rejected")).toBe(true);
  });

  it("shares a per-field budget (the API key) across connections, and a per-connection budget across clients", async () => {
    const w = await windowServer();
    server = w.server;
    const shared = createSharedState();
    const d = apiKeyService({ limits });
    const make = (token: string) =>
      createServiceClient(d, {
        connection: apiKeyConnection(token, { token: `TOKEN-${token}` }),
        baseUrl: server!.url,
        shared,
        limits: shrink,
        retry: noRetry,
      });
    // Two clients on connection "a" (one budget), one on "b"; all three on the same key.
    await Promise.all([run(make("a"), 15), run(make("a"), 15), run(make("b"), 30)]);
    expect(w.rejected()).toBe(0);
    expect([...w.perKey.values()][0]!.peak()).toBe(15);
    expect(w.perToken.get("TOKEN-a")!.all).toHaveLength(30);
  });

  it("takes a paid plan's numbers from the connection", async () => {
    const w = await windowServer();
    server = w.server;
    const client = createServiceClient(apiKeyService({ limits }), {
      connection: {
        ...apiKeyConnection(),
        limits: { perToken: { requests: 10, windowSeconds: 0.3 }, perKey: { requests: 15, windowSeconds: 0.3 } },
      },
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
    });
    await run(client, 25);
    expect(w.rejected()).toBe(0);
  });

  it("refuses an override for a limit the spec does not declare", () => {
    expect(() =>
      createServiceClient(apiKeyService({ limits }), {
        connection: apiKeyConnection(),
        baseUrl: "http://127.0.0.1:9",
        limits: { perUser: { requests: 1 } },
      }),
    ).toThrow(/"perUser" names no declared limit; use one of perToken, perKey/);
  });

  it("keeps separate read and write budgets", async () => {
    const reads = new ServerWindow(6, WINDOW_MS);
    const writes = new ServerWindow(3, WINDOW_MS);
    let rejected = 0;
    server = await startServer((req, res) => {
      const ok = (req.method === "GET" ? reads : writes).admit(req.at);
      if (!ok) {
        rejected++;
        return reject429(res, "LIMIT");
      }
      json(res, 200, { id: "x" });
    });
    const d = apiKeyService({
      limits: [
        {
          id: "reads",
          kind: "window",
          applies: "read",
          requests: 6,
          windowSeconds: WINDOW_MS / 1000,
          description: "reads",
          rejection: { status: 429 },
        },
        {
          id: "writes",
          kind: "window",
          applies: "write",
          requests: 3,
          windowSeconds: WINDOW_MS / 1000,
          description: "writes",
          rejection: { status: 429 },
        },
      ],
    });
    const client = createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
    });
    await Promise.all([
      ...Array.from({ length: 18 }, () => client.call("getThing", { params: { path: { id: "1" } } })),
      ...Array.from({ length: 9 }, () => client.call("createThing", { body: { name: "n" } })),
    ]);
    expect(rejected).toBe(0);
    expect(reads.peak()).toBe(6);
    expect(writes.peak()).toBe(3);
  });

  it("limits only the routes under pathPrefix", async () => {
    const members = new ServerWindow(2, WINDOW_MS);
    let rejected = 0;
    server = await startServer((req, res) => {
      if (req.url.pathname.startsWith("/1/members/") && !members.admit(req.at)) {
        rejected++;
        return reject429(res, "MEMBER_LIMIT_EXCEEDED");
      }
      json(res, 200, { path: req.url.pathname });
    });
    const d = apiKeyService({
      limits: [
        {
          id: "members",
          kind: "window",
          pathPrefix: "/1/members/",
          requests: 2,
          windowSeconds: WINDOW_MS / 1000,
          description: "members",
          rejection: { status: 429 },
        },
      ],
    });
    const client = createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
    });
    const order: string[] = [];
    await Promise.all([
      ...Array.from({ length: 6 }, () =>
        client.call("getMember", { params: { path: { id: "me" } } }).then(() => order.push("member")),
      ),
      ...Array.from({ length: 6 }, () =>
        client.call("getThing", { params: { path: { id: "1" } } }).then(() => order.push("thing")),
      ),
    ]);
    expect(rejected).toBe(0);
    // Things never waited behind the members budget: all six were done before the last members.
    expect(order.lastIndexOf("thing")).toBeLessThan(order.lastIndexOf("member"));
    expect(order.slice(-2)).toEqual(["member", "member"]);
  });
});

describe("rejections the limiter did not foresee", () => {
  it("holds every caller of a window back for a window after the service says it is full", async () => {
    let rejectedAt = 0;
    server = await startServer((req, res) => {
      if (rejectedAt === 0) {
        rejectedAt = req.at; // someone else (another integration) spent the shared budget
        return json(res, 200, {
          success: false,
          errors: [{ code: "606", message: "Max rate limit '100' exceeded with in '20' secs" }],
        });
      }
      json(res, 200, { success: true, result: [] });
    });
    const d = apiKeyService({
      limits: [
        {
          id: "rate",
          kind: "window",
          requests: 100,
          windowSeconds: 20,
          description: "100 per 20 s",
          rejection: { code: "606" },
        },
      ],
      errors: {
        envelope: { successField: "success", errorsField: "errors", codeField: "code", messageField: "message" },
        codes: { "606": { kind: "rate_limited", retry: true, description: "rate limit" } },
      },
    });
    const client = createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      limits: { rate: { windowSeconds: 0.3 } },
    });
    const first = client.call("getThing", { params: { path: { id: "1" } } });
    await delay(50);
    await Promise.all([
      first,
      ...Array.from({ length: 3 }, () => client.call("getThing", { params: { path: { id: "1" } } })),
    ]);
    const after = server.seen.slice(1).map((s) => s.at - rejectedAt);
    expect(after).toHaveLength(4);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(290);
  });
});

describe("concurrency", () => {
  it("never has more calls in flight than the cap, and uses all of it", async () => {
    let inFlight = 0;
    let peak = 0;
    server = await startServer(async (_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await delay(30);
      inFlight--;
      json(res, 200, { ok: true });
    });
    const d = apiKeyService({
      limits: [
        { id: "concurrent", kind: "concurrency", max: 10, description: "10 in flight", rejection: { code: "615" } },
      ],
    });
    const client = createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      limits: { concurrent: { max: 3 } },
    });
    await Promise.all(Array.from({ length: 15 }, () => client.call("getThing", { params: { path: { id: "1" } } })));
    expect(peak).toBe(3);
    expect(server.seen).toHaveLength(15);
  });
});

describe("daily quota", () => {
  const envelope = { successField: "success", errorsField: "errors", codeField: "code", messageField: "message" };
  const quotaService = () =>
    apiKeyService({
      limits: [
        {
          id: "daily",
          kind: "daily-quota",
          requests: 3,
          resetTimeZone: "America/Chicago",
          description: "daily",
          rejection: { code: "607" },
        },
      ],
      errors: { envelope, codes: { "607": { kind: "quota_exhausted", description: "Daily quota reached" } } },
    });

  it("counts calls and fails before sending once the quota is used, naming when it resets", async () => {
    server = await startServer((_req, res) => json(res, 200, { success: true, result: [] }));
    const client = createServiceClient(quotaService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    for (let i = 0; i < 3; i++) await client.call("getThing", { params: { path: { id: "1" } } });
    const error = (await client
      .call("getThing", { params: { path: { id: "1" } } })
      .catch((e: unknown) => e)) as QuotaExhaustedError;
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(server.seen).toHaveLength(3);
    expect(error.resetsAt).toBe(nextMidnight("America/Chicago").toISOString());
    expect(error.message).toContain(error.resetsAt!);
    expect(error.message).toContain("America/Chicago");
    const reset = Date.parse(error.resetsAt!);
    expect(reset).toBeGreaterThan(Date.now());
    expect(reset - Date.now()).toBeLessThanOrEqual(25 * 3600_000);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      kind: "quota_exhausted",
      resetsAt: error.resetsAt,
      code: "607",
    });
  });

  it("believes the service's own quota answer (607), does not retry it, and stops sending", async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { success: false, errors: [{ code: "607", message: "Daily quota reached" }] }),
    );
    const client = createServiceClient(quotaService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    const first = (await client
      .call("getThing", { params: { path: { id: "1" } } })
      .catch((e: unknown) => e)) as QuotaExhaustedError;
    expect(first).toBeInstanceOf(QuotaExhaustedError);
    expect(first.code).toBe("607");
    expect(first.resetsAt).toBe(nextMidnight("America/Chicago").toISOString());
    expect(first.retries).toBe(0);
    await expect(client.call("getThing", { params: { path: { id: "1" } } })).rejects.toBeInstanceOf(
      QuotaExhaustedError,
    );
    expect(server.seen).toHaveLength(1);
  });
});

describe("header quota", () => {
  const newsService = () =>
    apiKeyService({
      limits: [
        {
          id: "points",
          kind: "header-quota",
          remainingHeader: "X-API-Quota-Left",
          usedHeader: "X-API-Quota-Used",
          costHeader: "X-API-Quota-Request",
          resetTimeZone: "UTC",
          description: "daily points",
          rejection: { status: 402 },
        },
      ],
      errors: { statuses: { "402": { kind: "quota_exhausted", description: "daily points used up" } } },
    });

  it("stops before the reported remaining points would go below zero", async () => {
    let left = 3.5;
    server = await startServer((_req, res) => {
      if (left < 1) return json(res, 402, { message: "quota exceeded" });
      left -= 1;
      json(
        res,
        200,
        { news: [] },
        { "X-API-Quota-Left": String(left), "X-API-Quota-Request": "1", "X-API-Quota-Used": String(3.5 - left) },
      );
    });
    const client = createServiceClient(newsService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    for (let i = 0; i < 3; i++) await client.call("getThing", { params: { path: { id: "1" } } });
    const error = (await client
      .call("getThing", { params: { path: { id: "1" } } })
      .catch((e: unknown) => e)) as QuotaExhaustedError;
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error.resetsAt).toBe(nextMidnight("UTC").toISOString());
    expect(server.seen).toHaveLength(3); // never sent the call that would have got 402
  });

  it("turns the service's 402 into a QuotaExhaustedError with the reset time", async () => {
    server = await startServer((_req, res) =>
      json(res, 402, { message: "Your daily points limit of 50 has been reached." }),
    );
    const client = createServiceClient(newsService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    const error = (await client
      .call("getThing", { params: { path: { id: "1" } } })
      .catch((e: unknown) => e)) as QuotaExhaustedError;
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error.status).toBe(402);
    expect(error.resetsAt).toBe(nextMidnight("UTC").toISOString());
    await expect(client.call("getThing", { params: { path: { id: "1" } } })).rejects.toBeInstanceOf(
      QuotaExhaustedError,
    );
    expect(server.seen).toHaveLength(1);
  });
});

describe("calendar", () => {
  it("finds the next midnight in a zone, across daylight-saving changes", () => {
    expect(nextMidnight("America/Chicago", Date.parse("2026-03-07T12:00:00Z")).toISOString()).toBe(
      "2026-03-08T06:00:00.000Z",
    );
    expect(nextMidnight("America/Chicago", Date.parse("2026-03-08T12:00:00Z")).toISOString()).toBe(
      "2026-03-09T05:00:00.000Z",
    );
    expect(nextMidnight("America/Chicago", Date.parse("2026-03-08T05:59:00Z")).toISOString()).toBe(
      "2026-03-08T06:00:00.000Z",
    );
    expect(nextMidnight("Europe/London", Date.parse("2026-10-24T12:00:00Z")).toISOString()).toBe(
      "2026-10-24T23:00:00.000Z",
    );
    expect(nextMidnight("Europe/London", Date.parse("2026-10-25T12:00:00Z")).toISOString()).toBe(
      "2026-10-26T00:00:00.000Z",
    );
    expect(nextMidnight("UTC", Date.parse("2026-01-31T23:59:59Z")).toISOString()).toBe("2026-02-01T00:00:00.000Z");
    expect(dayIn("America/Chicago", Date.parse("2026-03-08T05:59:00Z"))).toBe("2026-03-07");
  });
});

describe("maxLimitWaitMs: a bound on how long a client-side limit may hold a call", () => {
  // One request per minute: after one call, the next would wait about 60 s.
  const limits = [
    {
      id: "perToken",
      kind: "window",
      requests: 1,
      windowSeconds: 60,
      per: "connection",
      description: "1 per minute",
      rejection: { status: 429 },
    },
  ];

  it("fails a call the window would hold longer at once, as rate_limited with retryAfterMs, nothing sent", async () => {
    server = await startServer((_req, res) => json(res, 200, { id: "x" }));
    const client = createServiceClient(apiKeyService({ limits }), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
      maxLimitWaitMs: 1000,
    });
    await client.call("getThing", { params: { path: { id: "1" } } });
    const error = await client.call("getThing", { params: { path: { id: "1" } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "rate_limited", retryable: true });
    expect((error as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(1000);
    expect((error as Error).message).toMatch(
      /client-side limit "perToken" would hold this call about 60 s.*nothing was sent/,
    );
    expect(server.seen).toHaveLength(1);
  });

  it("also when the wait had no estimate at first (the window's request still in flight)", async () => {
    let answer: (() => void) | undefined;
    server = await startServer((_req, res) => {
      answer = () => json(res, 200, { id: "x" });
    });
    const client = createServiceClient(apiKeyService({ limits }), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
      maxLimitWaitMs: 1000,
    });
    const first = client.call("getThing", { params: { path: { id: "1" } } });
    while (!answer) await delay(5);
    const held = new Promise((resolve) => {
      // Held with an unknown wait until the first answer comes; then the window's 60 s are known.
      void client.call("getThing", { params: { path: { id: "2" } } }).catch(resolve);
    });
    answer();
    await first;
    expect(await held).toMatchObject({ kind: "rate_limited" });
    expect(server.seen).toHaveLength(1);
  });

  it("is unbounded by default: the call waits for room", async () => {
    server = await startServer((_req, res) => json(res, 200, { id: "x" }));
    const shrunk = [{ ...limits[0]!, windowSeconds: 0.2 }];
    const client = createServiceClient(apiKeyService({ limits: shrunk }), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: noRetry,
    });
    await client.call("getThing", { params: { path: { id: "1" } } });
    await expect(client.call("getThing", { params: { path: { id: "1" } } })).resolves.toMatchObject({ id: "x" });
    expect(server.seen).toHaveLength(2);
  });
});
