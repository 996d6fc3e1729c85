import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  type ClientOptions,
  createServiceClient,
  createSharedState,
  type ServiceClient,
  type ServiceDescriptor,
  type ThrottleEvent,
} from "../../runtime/index.js";
import {
  apiKeyClient,
  apiKeyConnection,
  apiKeyService,
  delay,
  json,
  startTestServer,
  type TestServer,
  windowLimit,
} from "./helpers.js";
import { ServerWindow } from "./server-window.js";

function reject429(res: ServerResponse, error: string) {
  json(res, 429, { error, message: "Rate limit exceeded" });
}

const WINDOW_MS = 300;
const noRetry = { attempts: 0 };

/** A client of `d` on `server` that does not retry (a rejection shows as one). */
function unretriedClient(server: TestServer, d: ServiceDescriptor, options: Partial<ClientOptions> = {}) {
  return apiKeyClient(d, server.url, { retry: noRetry, ...options });
}

describe("sliding windows", () => {
  const limits = [
    windowLimit("perToken", 100, 10, { per: "connection", description: "100 per 10 s per token" }),
    windowLimit("perKey", 300, 10, { per: "field:apiKey", description: "300 per 10 s per key" }),
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
    const srv = await startTestServer((req, res) => {
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
    const throttles: ThrottleEvent[] = [];
    const client = unretriedClient(w.server, apiKeyService({ limits }), {
      limits: shrink,
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
    const client = unretriedClient(w.server, apiKeyService({ limits }), {
      limits: { perToken: { disabled: true }, perKey: { disabled: true } },
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => client.call("getThing", { params: { path: { id: "1" } } })),
    );
    expect(w.rejected()).toBeGreaterThan(0);
    expect(outcomes.some((o) => o.status === "rejected")).toBe(true);
  });

  it("shares a per-field budget (the API key) across connections, a per-connection one across clients", async () => {
    const w = await windowServer();
    const shared = createSharedState();
    const d = apiKeyService({ limits });
    const make = (token: string) =>
      unretriedClient(w.server, d, {
        connection: apiKeyConnection(token, { token: `TOKEN-${token}` }),
        shared,
        limits: shrink,
      });
    // Two clients on connection "a" (one budget), one on "b"; all three on the same key.
    await Promise.all([run(make("a"), 15), run(make("a"), 15), run(make("b"), 30)]);
    expect(w.rejected()).toBe(0);
    expect([...w.perKey.values()][0]!.peak()).toBe(15);
    expect(w.perToken.get("TOKEN-a")!.all).toHaveLength(30);
  });

  it("takes a paid plan's numbers from the connection", async () => {
    const w = await windowServer();
    const client = unretriedClient(w.server, apiKeyService({ limits }), {
      connection: {
        ...apiKeyConnection(),
        limits: { perToken: { requests: 10, windowSeconds: 0.3 }, perKey: { requests: 15, windowSeconds: 0.3 } },
      },
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
    const server = await startTestServer((req, res) => {
      const ok = (req.method === "GET" ? reads : writes).admit(req.at);
      if (!ok) {
        rejected++;
        return reject429(res, "LIMIT");
      }
      json(res, 200, { id: "x" });
    });
    const d = apiKeyService({
      limits: [
        windowLimit("reads", 6, WINDOW_MS / 1000, { applies: "read" }),
        windowLimit("writes", 3, WINDOW_MS / 1000, { applies: "write" }),
      ],
    });
    const client = unretriedClient(server, d);
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
    const server = await startTestServer((req, res) => {
      if (req.url.pathname.startsWith("/1/members/") && !members.admit(req.at)) {
        rejected++;
        return reject429(res, "MEMBER_LIMIT_EXCEEDED");
      }
      json(res, 200, { path: req.url.pathname });
    });
    const d = apiKeyService({
      limits: [windowLimit("members", 2, WINDOW_MS / 1000, { pathPrefix: "/1/members/" })],
    });
    const client = unretriedClient(server, d);
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
    const server = await startTestServer((req, res) => {
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
    const client = apiKeyClient(d, server.url, { limits: { rate: { windowSeconds: 0.3 } } });
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
    const server = await startTestServer(async (_req, res) => {
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
    const client = apiKeyClient(d, server.url, { limits: { concurrent: { max: 3 } } });
    await Promise.all(Array.from({ length: 15 }, () => client.call("getThing", { params: { path: { id: "1" } } })));
    expect(peak).toBe(3);
    expect(server.seen).toHaveLength(15);
  });
});
