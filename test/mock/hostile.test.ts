/**
 * Hostile request data against the behavioural mock: bodies nesting thousands of levels, values
 * with own `toString` / `__proto__` keys, repeated parameters. Each used to answer 500 or corrupt
 * the stored state for every later call.
 */
import { describe, expect, it } from "vitest";
import { call, LIST, MARKETO, TRELLO_AUTH, useMocks } from "./helpers.js";

const mock = useMocks();

async function marketoAuth(url: string): Promise<Record<string, string>> {
  const r = await call(url, `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=${MARKETO.clientSecret}`);
  return { authorization: `Bearer ${r.json.access_token}` };
}

/** `{"a":{"a":…{"a":1}…}}`, `depth` objects deep. */
const nested = (depth: number): string => '{"a":'.repeat(depth - 1) + '{"a":1' + "}".repeat(depth);

describe("deeply nested bodies", () => {
  it("marketo: a lead nesting 100k levels is refused with a badRequest before it is stored; reads keep working", async () => {
    const m = await mock("marketo");
    const headers = { ...(await marketoAuth(m.url)), "content-type": "application/json" };
    const body = `{"action":"createOnly","lookupField":"email","input":[{"email":"deep@example.com","deep":${nested(100_000)}}]}`;
    const r = await call(m.url, "/rest/v1/leads.json", { method: "POST", headers, body });
    expect(r.status).toBe(200); // Marketo answers errors with 200 and success: false
    expect(r.json).toMatchObject({ success: false, errors: [{ code: "1003", message: "Invalid value for body: the body nests deeper than 64 levels" }] });
    expect(m.records("lead").some((l) => l.email === "deep@example.com")).toBe(false);
    expect((await call(m.url, "/rest/v1/leads.json?filterType=email&filterValues=deep@example.com", { headers })).json).toMatchObject({ success: true, result: [] });
    expect((await call(m.url, "/__mock/state")).status).toBe(200);
  });

  it("trello: 2000 levels in a card body answer 400, not 500; 64 levels are accepted", async () => {
    const m = await mock("trello");
    const deep = await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", headers: { "content-type": "application/json" }, body: `{"idList":"${LIST}","name":"deep","desc":"[[[{","x":${nested(2000)}}` });
    expect(deep.status).toBe(400);
    expect(deep.text).toBe("invalid value for body");
    // Brackets inside strings do not count; the body itself is one level.
    const ok = await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", headers: { "content-type": "application/json" }, body: `{"idList":"${LIST}","name":"[[[{\\"","x":${nested(63)}}` });
    expect(ok.status).toBe(200);
    expect(m.records("card").map((c) => c.name)).not.toContain("deep");
  });
});
