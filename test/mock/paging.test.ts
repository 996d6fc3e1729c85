/**
 * Paging as declared in x-stepforge-paging: Marketo nextPageToken, offsets elsewhere; the runtime's pager walks both.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ContentsnareClient } from "../../generated/contentsnare/client.js";
import { descriptor as csDescriptor } from "../../generated/contentsnare/descriptor.js";
import { MarketoClient } from "../../generated/marketo/client.js";
import { descriptor as marketoDescriptor } from "../../generated/marketo/descriptor.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { call, clientOptions, CONTENTSNARE, MARKETO, WORLDNEWS } from "./helpers.js";

const open: RunningMock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

describe("paging", () => {
  it("walks Marketo leads with nextPageToken until none is returned", async () => {
    const m = await startMock("marketo");
    open.push(m);
    const marketo = new MarketoClient(clientOptions(marketoDescriptor, m.url, MARKETO));
    const input = Array.from({ length: 7 }, (_, i) => ({ email: `paged${i}@example.com`, company: "Paged Co" }));
    await marketo.syncLeads({ body: { action: "createOrUpdate", lookupField: "email", input } });
    const query = { filterType: "company", filterValues: ["Paged Co"], batchSize: 3 };
    const first = (await marketo.getLeads({ params: { query } })) as { result: unknown[]; nextPageToken?: string };
    expect(first.result).toHaveLength(3);
    expect(first.nextPageToken).toBeTypeOf("string");
    const emails: string[] = [];
    // The generated walk: its items are typed (a lead's email is a string | undefined, no cast).
    for await (const lead of marketo.getLeadsItems({ params: { query } })) emails.push(lead.email ?? "");
    expect(emails).toEqual(input.map((l) => l.email));
    const last = (await marketo.getLeads({ params: { query: { ...query, batchSize: 7 } } })) as {
      nextPageToken?: string;
    };
    expect(last.nextPageToken).toBeUndefined();
  });

  it("pages Content Snare with limit/offset and reports the total", async () => {
    const m = await startMock("contentsnare", { data: { fromExamples: false } });
    open.push(m);
    const cs = new ContentsnareClient(clientOptions(csDescriptor, m.url, CONTENTSNARE));
    for (let i = 0; i < 5; i++) await cs.createClient({ body: { email: `c${i}@example.com` } });
    const page = await cs.listClients({ params: { query: { limit: 2, offset: 2 } } } as never);
    expect(page.results.map((c) => c.email)).toEqual(["c2@example.com", "c3@example.com"]);
    expect(page.pagination).toEqual({ offset: 2, limit: 2, total_count: 5 });
    const all: string[] = [];
    for await (const c of cs.listClientsItems({ params: { query: { limit: 2 } } }, { maxItems: 4 })) all.push(c.email);
    expect(all).toHaveLength(4);
    all.length = 0;
    for await (const c of cs.core.items("listClients", { params: { query: { limit: 2 } } }))
      all.push((c as { email: string }).email);
    expect(all).toHaveLength(5);
  });

  it("pages World News search with offset/number and `available`", async () => {
    const m = await startMock("worldnews");
    open.push(m);
    const all = await call(m.url, "/search-news?text=the&number=100", { headers: { "x-api-key": WORLDNEWS.apiKey } });
    const total = all.json.available as number;
    expect(total).toBeGreaterThan(1);
    const second = await call(m.url, "/search-news?text=the&number=1&offset=1", {
      headers: { "x-api-key": WORLDNEWS.apiKey },
    });
    expect(second.json).toMatchObject({ offset: 1, number: 1, available: total });
    expect(second.json.news[0].id).toBe(all.json.news[1].id);
  });
});
