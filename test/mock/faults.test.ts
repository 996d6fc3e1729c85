/**
 * Seeded fault injection: the same seed and requests give the same faults; each kind arrives in the service's shape.
 */
import { describe, expect, it } from "vitest";
import { startMock, type FaultOptions } from "../../runtime/mock/index.js";
import { call, CARD, TRELLO_AUTH, WORLDNEWS, useMocks } from "./helpers.js";

const mock = useMocks();

async function outcomes(faults: FaultOptions, n: number): Promise<string[]> {
  const m = await mock("trello", { faults });
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push(String((await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`)).status));
    } catch {
      out.push("dropped");
    }
  }
  return out;
}

describe("faults", () => {
  it("repeats the same faults for the same seed, and different ones for another seed", async () => {
    const faults = { error: { rate: 0.3, statuses: [500, 503] }, drop: { rate: 0.1 } };
    const a = await outcomes({ ...faults, seed: 7 }, 30);
    const b = await outcomes({ ...faults, seed: 7 }, 30);
    const c = await outcomes({ ...faults, seed: 8 }, 30);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.filter((s) => s === "500" || s === "503").length).toBeGreaterThan(0);
    expect(a).toContain("200");
  });

  it("answers injected 5xx in the service's own error shape", async () => {
    const m = await mock("worldnews", { faults: { seed: 1, error: { rate: 1, statuses: [503] } } });
    const r = await call(m.url, "/search-news?text=electric", { headers: { "x-api-key": WORLDNEWS.apiKey } });
    expect([r.status, r.json]).toEqual([503, { status: "failure", code: 503, message: "Internal server error" }]);
    const marketo = await mock("marketo", {
      faults: { seed: 1, error: { rate: 1, statuses: [502] }, operations: ["getLists"] },
    });
    const token = (
      await call(
        marketo.url,
        "/identity/oauth/token?grant_type=client_credentials&client_id=5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61" +
          "&client_secret=mock-client-secret-0123456789abcdef",
      )
    ).json.access_token;
    const bad = await call(marketo.url, "/rest/v1/lists.json", { headers: { authorization: `Bearer ${token}` } });
    expect([bad.status, bad.type]).toEqual([502, "text/html"]);
    expect(marketo.counters().faults.errors).toBe(1);
  });

  it("drops connections, delays answers and sends slow bodies that still arrive whole", async () => {
    const dropped = await mock("trello", { faults: { seed: 3, drop: { rate: 1 } } });
    await expect(fetch(`${dropped.url}/1/cards/${CARD}?${TRELLO_AUTH}`)).rejects.toThrow();
    expect(dropped.counters().faults.dropped).toBe(1);

    const slow = await mock("trello", {
      faults: { seed: 3, slowBody: { rate: 1, delayMs: 1, chunkBytes: 64 }, latency: { rate: 1, ms: 5 } },
    });
    const plain = await mock("trello");
    const a = await call(slow.url, `/1/cards/${CARD}?${TRELLO_AUTH}`);
    const b = await call(plain.url, `/1/cards/${CARD}?${TRELLO_AUTH}`);
    expect(a.status).toBe(200);
    expect(a.json).toEqual(b.json);
    expect(slow.counters().faults).toMatchObject({ slowBodies: 1, delayed: 1 });
  });

  it("rejects a rate outside 0..1", async () => {
    await expect(startMock("trello", { faults: { error: { rate: 2 } } })).rejects.toThrow(/between 0 and 1/);
  });
});
