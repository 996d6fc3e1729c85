import { describe, expect, it } from "vitest";
import {
  createServiceClient,
  createSharedState,
  dayIn,
  nextMidnight,
  QuotaExhaustedError,
} from "../../runtime/index.js";
import {
  apiKeyClient,
  apiKeyConnection,
  apiKeyService,
  callPastQuota,
  delay,
  expectRefusedLocally,
  json,
  nextFailure,
  startTestServer,
  type TestServer,
  windowLimit,
} from "./helpers.js";

let server: TestServer | undefined;
const noRetry = { attempts: 0 };

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
    server = await startTestServer((_req, res) => json(res, 200, { success: true, result: [] }));
    const error = await callPastQuota(quotaService(), server.url);
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
    server = await startTestServer((_req, res) =>
      json(res, 200, { success: false, errors: [{ code: "607", message: "Daily quota reached" }] }),
    );
    const client = apiKeyClient(quotaService(), server.url);
    const first = await nextFailure(client);
    expect(first).toBeInstanceOf(QuotaExhaustedError);
    expect(first.code).toBe("607");
    expect(first.resetsAt).toBe(nextMidnight("America/Chicago").toISOString());
    expect(first.retries).toBe(0);
    await expectRefusedLocally(client, server);
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
    server = await startTestServer((_req, res) => {
      if (left < 1) return json(res, 402, { message: "quota exceeded" });
      left -= 1;
      json(
        res,
        200,
        { news: [] },
        { "X-API-Quota-Left": String(left), "X-API-Quota-Request": "1", "X-API-Quota-Used": String(3.5 - left) },
      );
    });
    const error = await callPastQuota(newsService(), server.url);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error.resetsAt).toBe(nextMidnight("UTC").toISOString());
    expect(server.seen).toHaveLength(3); // never sent the call that would have got 402
  });

  it("turns the service's 402 into a QuotaExhaustedError with the reset time", async () => {
    server = await startTestServer((_req, res) =>
      json(res, 402, { message: "Your daily points limit of 50 has been reached." }),
    );
    const client = apiKeyClient(newsService(), server.url);
    const error = await nextFailure(client);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error.status).toBe(402);
    expect(error.resetsAt).toBe(nextMidnight("UTC").toISOString());
    await expectRefusedLocally(client, server);
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
  const limits = [windowLimit("perToken", 1, 60, { per: "connection", description: "1 per minute" })];

  /** A client that waits at most 1 s for the window (which holds a call about 60 s) and never retries. */
  const boundedClient = (baseUrl: string) =>
    createServiceClient(apiKeyService({ limits }), {
      connection: apiKeyConnection(),
      baseUrl,
      shared: createSharedState(),
      retry: noRetry,
      maxLimitWaitMs: 1000,
    });

  it("fails a call the window would hold longer at once, as rate_limited with retryAfterMs, nothing sent", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { id: "x" }));
    const client = boundedClient(server.url);
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
    server = await startTestServer((_req, res) => {
      answer = () => json(res, 200, { id: "x" });
    });
    const client = boundedClient(server.url);
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
    server = await startTestServer((_req, res) => json(res, 200, { id: "x" }));
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
