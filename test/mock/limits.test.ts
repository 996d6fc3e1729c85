/** Limits from the descriptor, answered as the real services answer them; windows shrunk by options. */
import { describe, expect, it } from "vitest";
import { startMock } from "../../runtime/mock/index.js";
import {
  call,
  CARD,
  CONTENTSNARE,
  manualClock,
  marketoAuth,
  TRELLO,
  TRELLO_AUTH,
  WORLDNEWS,
  useMocks,
} from "./helpers.js";

const mock = useMocks();

describe("trello", () => {
  it("answers 429 JSON per token, per key across tokens, and frees the window after it passes", async () => {
    const clock = manualClock();
    const second = { ...TRELLO, token: "ATTAsecondtoken" };
    const m = await mock("trello", {
      clock: clock.now,
      auth: { credentials: [TRELLO, second] },
      limits: { overrides: { perToken: { requests: 3, windowSeconds: 10 }, perKey: { requests: 5 } } },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`);
    expect(refused.json).toEqual({ error: "API_TOKEN_LIMIT_EXCEEDED", message: "Rate limit exceeded" });
    const other = `/1/cards/${CARD}?key=${second.apiKey}&token=${second.token}`;
    expect((await call(m.url, other)).status).toBe(200);
    expect((await call(m.url, other)).status).toBe(200);
    const key = await call(m.url, other);
    expect([key.status, key.json.error]).toEqual([429, "API_KEY_LIMIT_EXCEEDED"]);
    clock.advance(10_001);
    expect((await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`)).status).toBe(200);
    expect(m.counters().rejections).toEqual({ perToken: 2, perKey: 1 });
    expect(m.counters().rateLimited).toBe(3);
  });
});

describe("marketo", () => {
  it("answers 606 inside HTTP 200 over the rate, and 607 over the daily quota", async () => {
    const m = await mock("marketo", {
      limits: { overrides: { rate: { requests: 2, windowSeconds: 20 }, daily: { requests: 1000 } } },
    });
    const auth = await marketoAuth(m.url);
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await call(m.url, "/rest/v1/lists.json", { headers: auth })).json);
    expect(bodies.map((b) => b.success)).toEqual([true, true, false]);
    expect(bodies[2]).toMatchObject({
      errors: [{ code: "606", message: "Max rate limit '2' exceeded with in '20' secs" }],
    });

    const daily = await mock("marketo", { limits: { overrides: { daily: { requests: 2 } } } });
    const dauth = await marketoAuth(daily.url);
    await call(daily.url, "/rest/v1/lists.json", { headers: dauth });
    await call(daily.url, "/rest/v1/lists.json", { headers: dauth });
    const over = await call(daily.url, "/rest/v1/lists.json", { headers: dauth });
    expect([over.status, over.json.errors[0].code]).toEqual([200, "607"]);
    expect(daily.counters().tokensIssued).toBe(1);
  });

  it("answers 615 to the call beyond the concurrency limit while the others are in flight", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const m = await mock("marketo", {
      limits: { overrides: { concurrent: { max: 3 } } },
      hooks: { beforeRespond: () => gate },
    });
    const auth = await marketoAuth(m.url);
    const held = [0, 1, 2].map(() => call(m.url, "/rest/v1/lists.json", { headers: auth }));
    while (m.counters().inFlight < 3) await new Promise((r) => setTimeout(r, 5));
    const fourth = await call(m.url, "/rest/v1/lists.json", { headers: auth });
    expect(fourth.json).toMatchObject({ success: false, errors: [{ code: "615" }] });
    release();
    expect((await Promise.all(held)).map((r) => r.json.success)).toEqual([true, true, true]);
  });
});

describe("content snare", () => {
  it("answers 429 with Retry-After, counting reads and writes apart", async () => {
    const clock = manualClock();
    const m = await mock("contentsnare", {
      clock: clock.now,
      limits: { overrides: { writes: { requests: 1, windowSeconds: 10 }, reads: { requests: 2 } } },
    });
    const auth = { authorization: `Bearer ${CONTENTSNARE.accessToken}` };
    expect(
      (
        await call(m.url, "/partner_api/v1/clients", {
          method: "POST",
          headers: auth,
          json: { email: "a@example.com" },
        })
      ).status,
    ).toBe(201);
    clock.advance(4000);
    const write = await call(m.url, "/partner_api/v1/clients", {
      method: "POST",
      headers: auth,
      json: { email: "b@example.com" },
    });
    expect([write.status, write.headers.get("retry-after"), write.json]).toEqual([
      429,
      "6",
      { errors: ["Rate limit exceeded. Try again later."] },
    ]);
    expect((await call(m.url, "/partner_api/v1/clients", { headers: auth })).status).toBe(200);
    expect(m.counters().creates.client).toBe(1);
  });
});

describe("world news", () => {
  it("reports the points quota in headers and answers 402 when it is used up; 429 over the rate", async () => {
    const m = await mock("worldnews", { limits: { overrides: { points: { points: 2 } } } });
    const h = { "x-api-key": WORLDNEWS.apiKey };
    const first = await call(m.url, "/search-news?text=electric&number=1", { headers: h });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-api-quota-request")).toBe("1.01");
    expect(first.headers.get("x-api-quota-used")).toBe("1.01");
    expect(first.headers.get("x-api-quota-left")).toBe("0.99");
    expect((await call(m.url, "/search-news?text=electric&number=1", { headers: h })).status).toBe(200);
    const over = await call(m.url, "/search-news?text=electric", { headers: h });
    expect(over.status).toBe(402);
    expect(over.json).toMatchObject({ status: "failure", code: 402 });

    const rate = await mock("worldnews", { limits: { overrides: { perMinute: { requests: 1 } } } });
    expect((await call(rate.url, "/search-news?text=electric", { headers: h })).status).toBe(200);
    const r = await call(rate.url, "/search-news?text=electric", { headers: h });
    expect([r.status, r.json.code]).toEqual([429, 429]);
  });

  it("refuses an unknown limit id in the options", async () => {
    await expect(startMock("worldnews", { limits: { overrides: { perHour: { requests: 1 } } } })).rejects.toThrow(
      /limit override "perHour" names no declared limit; use one of perMinute/,
    );
  });
});
