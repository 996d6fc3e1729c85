/**
 * The mock of a spec nobody here wrote a service for (test/mock/fixtures/tables.yaml), generated
 * with `stepforge generate --spec … --out …` and started by name through the registry: records
 * under a parent, random ids from an alphabet, a deep-merging PATCH, its own page size and page
 * token format, a limit per path parameter, and a schema sample where the spec has no example.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registeredMock, startMock } from "../../runtime/mock/index.js";
import { useFixtureMock } from "./fixture-mock.js";
import { call } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..");
// Inside the package, so the generated code imports this runtime (and its registry) relatively.
const out = join(root, "test", "mock", `.foreign-${process.pid}`);
const auth = { authorization: "Bearer pat-mock-0123456789" };
const base = (c: string) => `app${c.repeat(13)}1`;
const BASE = base("A");
const OTHER = base("B");
// Limits off: the per-base limit (5/s) would refuse the bursts below; its own test starts a limited mock.
const mockUrl = useFixtureMock("tables", "tables", out);

const post = (base: string, fields: unknown) =>
  call(mockUrl(), `/v0/${base}/records`, { method: "POST", headers: auth, json: { fields } });

describe("a generated mock of a foreign spec", () => {
  it("registers itself under the spec's id", () => {
    expect(registeredMock("tables")?.descriptor.id).toBe("tables");
  });

  it("keeps records under their base, with ids in the spec's format", async () => {
    const rec = await post(BASE, { name: "Ada" });
    expect(rec.json).toMatchObject({ baseId: BASE, fields: { name: "Ada" } });
    expect(rec.json.id).toMatch(/^rec[A-Za-z0-9]{14}$/);
    expect((await call(mockUrl(), `/v0/${BASE}/records/${rec.json.id}`, { headers: auth })).status).toBe(200);
    const elsewhere = await call(mockUrl(), `/v0/${OTHER}/records/${rec.json.id}`, { headers: auth });
    expect([elsewhere.status, elsewhere.json]).toEqual([
      404,
      { error: { type: "NOT_FOUND", message: "Could not find what you are looking for" } },
    ]);
    expect((await call(mockUrl(), `/v0/${OTHER}/records`, { headers: auth })).json.records).toEqual([]);
  });

  it("merges a PATCH into the nested fields object", async () => {
    const rec = await post(BASE, { name: "Grace", team: { lead: "Ada", size: 4 } });
    const patched = await call(mockUrl(), `/v0/${BASE}/records/${rec.json.id}`, {
      method: "PATCH",
      headers: auth,
      json: { fields: { team: { size: 5 } } },
    });
    expect(patched.json.fields).toEqual({ name: "Grace", team: { lead: "Ada", size: 5 } });
  });

  it("pages with its own size and prefixed tokens, and refuses a token it did not write", async () => {
    for (let i = 0; i < 7; i++) await post(OTHER, { n: i });
    const first = await call(mockUrl(), `/v0/${OTHER}/records`, { headers: auth });
    expect(first.json.records).toHaveLength(3);
    expect(first.json.offset).toMatch(/^itr/);
    const big = await call(mockUrl(), `/v0/${OTHER}/records?pageSize=50`, { headers: auth });
    expect(big.json.records).toHaveLength(5);
    const rest = await call(mockUrl(), `/v0/${OTHER}/records?pageSize=5&offset=${big.json.offset}`, { headers: auth });
    expect(rest.json.records.map((r: { fields: { n: number } }) => r.fields.n)).toEqual([5, 6]);
    expect(rest.json.offset).toBeUndefined();
    const forged = await call(mockUrl(), `/v0/${OTHER}/records?offset=itrnotours`, { headers: auth });
    expect([forged.status, forged.json.error.message]).toEqual([
      422,
      "Invalid request: offset is not a valid paging token",
    ]);
  });

  it(
    "answers a typed response without an example with a sample valid against its schema, " +
      "the same for the same seed",
    async () => {
      const who = await call(mockUrl(), "/v0/meta/whoami", { headers: auth });
      expect(who.status).toBe(200);
      expect(who.json.id).toMatch(/^usr[A-Za-z0-9]{14}$/);
      expect(who.json.scopes.length).toBeGreaterThan(0);
      for (const scope of who.json.scopes) expect(["data.records:read", "data.records:write"]).toContain(scope);
      if (who.json.email !== undefined) expect(who.json.email).toMatch(/^[^@\s]+@[^@\s]+$/);
      const again = await startMock("tables");
      try {
        expect((await call(again.url, "/v0/meta/whoami", { headers: auth })).text).toBe(who.text);
      } finally {
        await again.close();
      }
    },
  );

  it("counts its limit per base, whoever calls", async () => {
    let now = Date.UTC(2026, 0, 1);
    const limited = await startMock("tables", {
      clock: () => now,
      auth: { credentials: [{ apiKey: "pat-mock-0123456789" }, { apiKey: "pat-other" }] },
    });
    try {
      const third = base("C");
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await call(limited.url, `/v0/${third}/records`, { headers: auth })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const other = await call(limited.url, `/v0/${third}/records`, { headers: { authorization: "Bearer pat-other" } });
      expect([other.status, other.json.error.type, other.headers.get("retry-after")]).toEqual([
        429,
        "RATE_LIMIT_REACHED",
        "1",
      ]);
      expect((await call(limited.url, `/v0/${base("D")}/records`, { headers: auth })).status).toBe(200);
      now += 1001;
      expect((await call(limited.url, `/v0/${third}/records`, { headers: auth })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
