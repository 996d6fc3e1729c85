/**
 * Token lifecycles against the behavioural mocks: a Marketo token handed out with less life than
 * the renewal margin, a token endpoint that answers 503 for a while during a storm, and Redis
 * killed and restarted under a client that shares its tokens through it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient, createSharedState, NetworkError, type ServiceClient } from "../../runtime/index.js";
import { scheduleRenewal, type TokenEntry } from "../../runtime/credentials/tokens.js";
import { descriptor as marketo } from "../../generated/marketo/index.js";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { MARKETO, startMarketo } from "./harness.js";

const noLimits = Object.fromEntries(marketo.limits.map((l) => [l.id, { disabled: true }]));

describe("token lifecycles", () => {
  it(
    "a Marketo token with less than renewBeforeSeconds left is used until it expires: 50 " + "calls, one token request",
    async () => {
      // 200 s tokens against the spec's 300 s margin: every token Marketo hands out is "due" at once.
      const { mock, tokenRequests } = await startMarketo({ auth: { tokenLifetimeSeconds: 200 } });
      try {
        const client = createServiceClient(marketo, {
          connection: { name: "m", fields: MARKETO },
          baseUrl: mock.url,
          shared: createSharedState(),
          limits: noLimits,
        });
        for (let i = 0; i < 50; i++) await client.call("getActivityTypes");
        expect(tokenRequests()).toBe(1);
      } finally {
        await mock.close();
      }
    },
  );

  it("a token endpoint answering 503 for 2 s during a 200-call storm gets one shared, backed-off attempt", async () => {
    const { mock, tokenRequests } = await startMarketo();
    try {
      let outageUntil = Date.now() + 2000;
      let refused = 0;
      const faulty: typeof fetch = async (input, init) => {
        if (String(input).includes("/identity/oauth/token") && Date.now() < outageUntil) {
          refused++;
          return new Response(JSON.stringify({ error: "unavailable" }), {
            status: 503,
            headers: { "content-type": "application/json" },
          });
        }
        return fetch(input, init);
      };
      const client = createServiceClient(marketo, {
        connection: { name: "m", fields: MARKETO },
        baseUrl: mock.url,
        fetch: faulty,
        shared: createSharedState(),
        limits: noLimits,
      });
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, () =>
          client.call("getActivityTypes").then(
            () => "ok",
            (e: { kind?: string }) => e.kind ?? "?",
          ),
        ),
      );
      // One attempt plus its retries, for all 200 callers together.
      expect(refused + tokenRequests()).toBeLessThanOrEqual(4);
      expect(new Set(outcomes).size).toBeGreaterThan(0);
      for (const outcome of outcomes) expect(["ok", "server"]).toContain(outcome);
      // After the outage the next call gets a token.
      outageUntil = 0;
      await client.call("getActivityTypes");
      expect(tokenRequests()).toBeGreaterThanOrEqual(1);
    } finally {
      await mock.close();
    }
  });
});

describe("Redis killed and restarted under a client that shares tokens through it", () => {
  let redis: RunningRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("typed errors while it is down, recovery after, and tokens never requested past the shared state", async () => {
    const second = { ...MARKETO, clientId: "0a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a62" };
    const { mock, tokenRequests } = await startMarketo({ auth: { credentials: [MARKETO, second] } });
    const shared = createSharedState({ redisUrl: redis.url, unreachableAfterMs: 400 });
    const client = (fields: Record<string, string>, name: string): ServiceClient =>
      createServiceClient(marketo, {
        connection: { name, fields },
        baseUrl: mock.url,
        shared,
        limits: noLimits,
        retry: { attempts: 0 },
      });
    try {
      const first = client(MARKETO, "first");
      await first.call("getActivityTypes");
      expect(tokenRequests()).toBe(1);

      await redis.kill();
      // A connection that needs a token while the shared state is down: nothing is sent, the error says why.
      const other = client(second, "second");
      const errors = await Promise.all(
        Array.from({ length: 5 }, () => other.call("getActivityTypes").catch((e: unknown) => e)),
      );
      for (const error of errors) {
        expect(error).toBeInstanceOf(NetworkError);
        expect(error).toMatchObject({ code: "state_unreachable", retryable: true });
        expect((error as Error).message).toMatch(/shared state \(redis\) is unreachable/);
      }
      expect(tokenRequests()).toBe(1);

      await redis.restart();
      // It reconnects on its own: the same client works again.
      await expect
        .poll(
          () =>
            other.call("getActivityTypes").then(
              () => "ok",
              (e: { code?: string }) => e.code,
            ),
          { timeout: 15_000, interval: 200 },
        )
        .toBe("ok");
      expect(tokenRequests()).toBe(2);
    } finally {
      await shared.store.close();
      await mock.close();
    }
  });
});

describe("scheduleRenewal with a 300 s margin", () => {
  const now = 1_000_000;
  const expiring = (accessToken: string, lifeMs: number): TokenEntry => ({ accessToken, expiresAt: now + lifeMs });
  const cases: [when: string, token: TokenEntry, previous: TokenEntry | undefined, renewAt: number | undefined][] = [
    ["a margin early", expiring("a", 3_600_000), undefined, now + 3_300_000],
    ["a short-lived token a second before expiry", expiring("a", 200_000), undefined, now + 199_000],
    ["a token handed back unchanged at expiry", expiring("a", 1_000), { accessToken: "a" }, now + 1_000],
    ["a new token with a second left halfway", expiring("b", 1_000), { accessToken: "a" }, now + 500],
    ["never: a token that does not expire", { accessToken: "a" }, undefined, undefined],
  ];
  it.each(cases)("renews %s", (_when, token, previous, renewAt) => {
    expect(scheduleRenewal(token, 300_000, previous, now).renewAt).toBe(renewAt);
  });
});
