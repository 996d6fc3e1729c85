import { describe, expect, it } from "vitest";
import {
  createServiceClient,
  createSharedState,
  DEFAULT_MAX_PAGES,
  PagingStoppedError,
  type Page,
} from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, json, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer | undefined;

const ITEMS = Array.from({ length: 205 }, (_, i) => ({ id: i }));

/** Marketo's token paging: the next page's token sent back as nextPageToken, items in result. */
const tokenPaging = {
  style: "token",
  tokenParam: "nextPageToken",
  tokenField: "nextPageToken",
  itemsField: "result",
  sizeParam: "batchSize",
} as const;

const service = () =>
  apiKeyService(
    {},
    {
      leads: { method: "GET", path: "/rest/v1/leads.json", paging: tokenPaging },
      // Activities also say whether more pages follow (moreResult), beside the token.
      activities: {
        method: "GET",
        path: "/rest/v1/activities.json",
        paging: { ...tokenPaging, moreField: "moreResult" },
      },
      emails: {
        method: "GET",
        path: "/rest/asset/v1/emails.json",
        paging: { style: "offset", offsetParam: "offset", limitParam: "maxReturn", itemsField: "result", maxLimit: 50 },
      },
      clients: {
        method: "GET",
        path: "/partner_api/v1/clients",
        paging: {
          style: "offset",
          offsetParam: "offset",
          limitParam: "limit",
          itemsField: "results",
          maxLimit: 50,
          totalField: "pagination.total_count",
        },
      },
      stuckToken: {
        method: "GET",
        path: "/stuck-token",
        paging: { style: "token", tokenParam: "cursor", tokenField: "next", itemsField: "result" },
      },
      stuckOffset: {
        method: "GET",
        path: "/stuck-offset",
        paging: { style: "offset", offsetParam: "offset", limitParam: "limit", itemsField: "result", maxLimit: 2 },
      },
      bare: {
        method: "GET",
        path: "/bare",
        paging: { style: "offset", offsetParam: "offset", limitParam: "number", itemsField: ".", maxLimit: 100 },
      },
      single: { method: "GET", path: "/single" },
    },
  );

async function start(total = 7) {
  server = await startTestServer((req, res) => {
    const q = req.url.searchParams;
    if (req.url.pathname === "/rest/v1/leads.json" || req.url.pathname === "/rest/v1/activities.json") {
      const start = Number(q.get("nextPageToken")?.replace("tok-", "") ?? 0);
      const size = Number(q.get("batchSize") ?? 300);
      const result = ITEMS.slice(start, Math.min(start + size, total));
      const end = start + result.length;
      const more = end < total;
      if (req.url.pathname === "/rest/v1/activities.json") {
        return json(res, 200, { success: true, result, nextPageToken: `tok-${end}`, moreResult: more });
      }
      return json(res, 200, { success: true, result, ...(more ? { nextPageToken: `tok-${end}` } : {}) });
    }
    const offset = Number(q.get("offset") ?? 0);
    if (req.url.pathname === "/rest/asset/v1/emails.json") {
      const size = Number(q.get("maxReturn"));
      return json(res, 200, { success: true, result: ITEMS.slice(offset, Math.min(offset + size, total)) });
    }
    if (req.url.pathname === "/partner_api/v1/clients") {
      const size = Number(q.get("limit"));
      return json(res, 200, {
        results: ITEMS.slice(offset, Math.min(offset + size, total)),
        pagination: { offset, total_count: total },
      });
    }
    // A token service that cycles a -> b -> a, and an offset service that ignores the offset.
    if (req.url.pathname === "/stuck-token") {
      const cursor = q.get("cursor");
      return json(res, 200, { result: [{ id: cursor ?? "first" }], next: cursor === "a" ? "b" : "a" });
    }
    if (req.url.pathname === "/stuck-offset") return json(res, 200, { result: ITEMS.slice(0, 2) });
    if (req.url.pathname === "/bare")
      return json(res, 200, ITEMS.slice(offset, Math.min(offset + Number(q.get("number")), total)));
    json(res, 200, {});
  });
  return createServiceClient(service(), {
    connection: apiKeyConnection(),
    baseUrl: server.url,
    shared: createSharedState(),
  });
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

const ids = (pages: Page[]) => pages.flatMap((p) => p.items.map((i) => (i as { id: number }).id));

describe("token paging", () => {
  it("follows nextPageToken until none is returned, keeping the caller's query", async () => {
    const client = await start(7);
    const pages = await collect(
      client.pages("leads", { params: { query: { filterType: "email", filterValues: "a@b.c" } } }, { pageSize: 3 }),
    );
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.next)).toEqual(["tok-3", "tok-6", undefined]);
    expect(server!.seen.map((s) => s.url.searchParams.get("nextPageToken"))).toEqual([null, "tok-3", "tok-6"]);
    expect(
      server!.seen.every(
        (s) => s.url.searchParams.get("filterType") === "email" && s.url.searchParams.get("batchSize") === "3",
      ),
    ).toBe(true);
  });

  it("stops at maxPages and resumes from the page's cursor", async () => {
    const client = await start(7);
    const first = await collect(client.pages("leads", {}, { pageSize: 3, maxPages: 2 }));
    expect(ids(first)).toEqual([0, 1, 2, 3, 4, 5]);
    const rest = await collect(client.pages("leads", {}, { pageSize: 3, startToken: first.at(-1)!.next as string }));
    expect(ids(rest)).toEqual([6]);
  });

  it("stops on moreResult false even though a token is returned", async () => {
    const client = await start(5);
    const items = await collect(client.items("activities", {}, { pageSize: 2 }));
    expect(items).toHaveLength(5);
    expect(server!.seen).toHaveLength(3);
  });

  it("stops at maxItems", async () => {
    const client = await start(7);
    const items = await collect(client.items("leads", {}, { pageSize: 3, maxItems: 4 }));
    expect(items.map((i) => (i as { id: number }).id)).toEqual([0, 1, 2, 3]);
    expect(server!.seen).toHaveLength(2);
  });
});

describe("offset paging", () => {
  it("walks offset/limit at the declared maximum until a short page", async () => {
    const client = await start(205);
    const pages = await collect(client.pages("emails"));
    expect(pages.map((p) => p.items.length)).toEqual([50, 50, 50, 50, 5]);
    expect(pages.map((p) => p.next)).toEqual([50, 100, 150, 200, undefined]);
    expect(ids(pages)).toEqual(ITEMS.map((i) => i.id));
  });

  it("cuts at maxItems and resumes exactly after the last item returned", async () => {
    const client = await start(205);
    const pages = await collect(client.pages("emails", {}, { maxItems: 120 }));
    expect(ids(pages)).toHaveLength(120);
    expect(pages.at(-1)!.next).toBe(120);
    const rest = await collect(client.items("emails", {}, { startOffset: 120 }));
    expect(rest.map((i) => (i as { id: number }).id)).toEqual(ITEMS.slice(120).map((i) => i.id));
  });

  it("stops when totalField says everything was read (no extra empty request)", async () => {
    const client = await start(100);
    const items = await collect(client.items("clients"));
    expect(items).toHaveLength(100);
    expect(server!.seen).toHaveLength(2);
  });

  it("pages a bare array body and honours pageSize", async () => {
    const client = await start(25);
    const pages = await collect(client.pages("bare", {}, { pageSize: 10 }));
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5]);
    expect(server!.seen.map((s) => s.url.searchParams.get("offset"))).toEqual(["0", "10", "20"]);
  });

  it("refuses to page an operation that declares no paging", async () => {
    const client = await start(1);
    expect(() => client.pages("single")).toThrow(/declares no paging/);
  });
});

describe("paging is safe by default (issue 19 item 5)", () => {
  it("stops after the default page cap with a typed error naming the operation and the option", async () => {
    const client = await start(205);
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const item of client.items("leads", {}, { pageSize: 1 })) seen.push(item);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingStoppedError);
    const stopped = error as PagingStoppedError;
    expect(stopped.reason).toBe("page_cap");
    expect(stopped.operation).toBe("leads");
    expect(stopped.message).toMatch(/"leads".*100 pages.*maxPages/);
    expect(seen).toHaveLength(DEFAULT_MAX_PAGES);
    expect(server!.seen).toHaveLength(DEFAULT_MAX_PAGES);
    // The error says where to resume, and resuming reads the rest.
    expect(stopped.next).toBe("tok-100");
    const rest = await collect(client.items("leads", {}, { pageSize: 5, startToken: stopped.next as string }));
    expect(rest).toHaveLength(105);
  });

  it("caps offset paging too, resuming at the error's offset", async () => {
    const client = await start(205);
    const error = await collect(client.items("bare", {}, { pageSize: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingStoppedError);
    expect((error as PagingStoppedError).next).toBe(100);
    expect((error as PagingStoppedError).message).toMatch(/startOffset/);
  });

  it("reads every page with maxPages: Infinity, and stops quietly at an explicit maxPages", async () => {
    const client = await start(205);
    expect(await collect(client.items("leads", {}, { pageSize: 1, maxPages: Infinity }))).toHaveLength(205);
    expect(await collect(client.items("bare", {}, { pageSize: 1, maxPages: 150 }))).toHaveLength(150);
    await expect(collect(client.pages("leads", {}, { maxPages: 1.5 }))).rejects.toThrow(/maxPages.*Infinity/);
  });

  it("stops with a typed error when the service sends a token it sent before", async () => {
    const client = await start(1);
    const error = await collect(client.items("stuckToken", {}, { maxPages: Infinity })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingStoppedError);
    expect((error as PagingStoppedError).reason).toBe("page_loop");
    expect((error as PagingStoppedError).message).toMatch(/"stuckToken".*token it had sent before/);
    expect(server!.seen.map((s) => s.url.searchParams.get("cursor"))).toEqual([null, "a", "b"]);
  });

  it("stops with a typed error when the service sends the same full page for a new offset", async () => {
    const client = await start(1);
    const error = await collect(client.items("stuckOffset", {}, { maxPages: Infinity })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingStoppedError);
    expect((error as PagingStoppedError).reason).toBe("page_loop");
    expect((error as PagingStoppedError).message).toMatch(/"stuckOffset".*offsets 0 and 2/);
    expect(server!.seen).toHaveLength(2);
  });
});
