/**
 * The mock engine's modules one by one: router, ids, page tokens, positions, merging, the registry,
 * months in a zone, and admission with the limit vocabulary (per path parameter, excluded routes,
 * penalties, monthly quotas) — driven through MockEngine.handle, no sockets.
 */
import { describe, expect, it } from "vitest";
import type { LimitSpec } from "../../runtime/descriptor.js";
import { deepMerge, placeInArray } from "../../runtime/mock/actions/records.js";
import { expandAlphabet, IdMaker } from "../../runtime/mock/ids.js";
import {
  MockEngine,
  registeredMock,
  registeredMocks,
  registerMock,
  startMock,
  type MockDefinition,
  type MockOptions,
  type Outcome,
} from "../../runtime/mock/index.js";
import { MockOperationSchema } from "../../runtime/mock/extension.js";
import { decodeToken, encodeToken } from "../../runtime/mock/paging.js";
import { Router } from "../../runtime/mock/router.js";
import { Store } from "../../runtime/mock/store.js";
import { monthIn, nextMonthStart } from "../../runtime/internal/time.js";
import { BOARD, CARD, LIST, manualClock, TRELLO_AUTH } from "./helpers.js";

describe("router", () => {
  it("prefers literal segments, then the most specific template, and decodes parameters", () => {
    const r = new Router<string>();
    r.add("GET", "/1/cards/{id}", "getCard");
    r.add("GET", "/1/cards/{id}/actions", "getCardActions");
    r.add("GET", "/1/members/me", "me");
    r.add("GET", "/1/members/{id}", "member");
    r.add("GET", "/rest/v1/campaigns/{id}.json", "campaign");
    r.add("GET", "/rest/v1/campaigns/{id}", "bare");
    expect(r.match("GET", "/1/cards/abc%20d")).toEqual({ value: "getCard", params: { id: "abc d" } });
    expect(r.match("GET", "/1/cards/abc/actions")?.value).toBe("getCardActions");
    expect(r.match("GET", "/1/members/me")?.value).toBe("me");
    expect(r.match("GET", "/1/members/bob")).toEqual({ value: "member", params: { id: "bob" } });
    expect(r.match("GET", "/rest/v1/campaigns/12.json")).toEqual({ value: "campaign", params: { id: "12" } });
    expect(r.match("GET", "/rest/v1/campaigns/12")?.value).toBe("bare");
    expect(r.match("POST", "/1/cards/abc")).toBeUndefined();
    expect(r.match("GET", "/1/cards/")).toBeUndefined();
    expect(r.match("GET", "/1/cards/%E0%A4%A")?.params.id).toBe("%E0%A4%A"); // malformed escapes stay as sent
    expect(() => r.add("GET", "/1/cards/{id}", "again", String)).toThrow(
      /two operations on GET \/1\/cards\/\{id\}: getCard and again/,
    );
  });

  it(
    "lets sibling routes name the same position differently (GitHub's " +
      "/repos/{owner}/{repo} beside /repos/{template_owner}/…)",
    () => {
      const r = new Router<string>();
      r.add("GET", "/users/{id}", "getUser");
      r.add("GET", "/users/{userId}/posts", "getPosts");
      r.add("GET", "/users/{login}/posts/{postId}", "getPost");
      expect(r.match("GET", "/users/7")).toEqual({ value: "getUser", params: { id: "7" } });
      expect(r.match("GET", "/users/7/posts")).toEqual({ value: "getPosts", params: { userId: "7" } });
      expect(r.match("GET", "/users/ann/posts/9")).toEqual({ value: "getPost", params: { login: "ann", postId: "9" } });
      // A template that matched a segment but led nowhere leaves no captured value behind.
      r.add("GET", "/files/{name}.json/meta", "jsonMeta");
      r.add("GET", "/files/{path}/raw", "raw");
      expect(r.match("GET", "/files/a.json/raw")).toEqual({ value: "raw", params: { path: "a.json" } });
    },
  );

  it("routes several parameters in one segment, literal text between them", () => {
    const r = new Router<string>();
    r.add("GET", "/files/{name}.{ext}", "file");
    r.add("GET", "/files/{name}", "bare");
    r.add("GET", "/v/{major}-{minor}/x{n}", "version");
    expect(r.match("GET", "/files/report.png")).toEqual({ value: "file", params: { name: "report", ext: "png" } });
    expect(r.match("GET", "/files/archive.tar.gz")?.params).toEqual({ name: "archive", ext: "tar.gz" });
    expect(r.match("GET", "/files/readme")?.value).toBe("bare");
    expect(r.match("GET", "/files/.png")?.value).toBe("bare"); // a capture is never empty
    expect(r.match("GET", "/v/2-10/x3")?.params).toEqual({ major: "2", minor: "10", n: "3" });
    expect(r.match("GET", "/v/2-/x3")).toBeUndefined();
  });

  it("keeps a parameter named __proto__ as an own key of the params, never their prototype", () => {
    const r = new Router<string>();
    r.add("GET", "/p/{__proto__}", "hostile");
    const hostile = r.match("GET", "/p/a")!.params;
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(hostile, "__proto__")?.value).toBe("a");
  });
});

describe("ids", () => {
  it("draws random ids from an alphabet with ranges, repeatably per seed", () => {
    expect(expandAlphabet("a-cX-Z0")).toBe("abcXYZ0");
    expect(() => expandAlphabet("z-a")).toThrow(/runs backwards/);
    const spec = { format: "random" as const, prefix: "rec", alphabet: "A-Za-z0-9", length: 14 };
    const a = new IdMaker(7).next("record", spec);
    expect(a).toMatch(/^rec[A-Za-z0-9]{14}$/);
    expect(new IdMaker(7).next("record", spec)).toBe(a);
    expect(new IdMaker(8).next("record", spec)).not.toBe(a);
    const ints = new IdMaker();
    ints.saw("lead", 41);
    expect([ints.next("lead", { format: "integer" }), ints.next("lead", { format: "integer" })]).toEqual([42, 43]);
  });
});

describe("page tokens", () => {
  it("round-trip in every encoding and refuse tokens the mock did not write", () => {
    for (const encoding of ["base64url", "base32", "hex"] as const) {
      const format = { encoding, prefix: "itr" };
      const token = encodeToken(300, format);
      expect(token.startsWith("itr")).toBe(true);
      expect(decodeToken(token, format)).toEqual({ at: "list", n: 300 });
      expect(decodeToken(encodeToken(5, format, "record"), format)).toEqual({ at: "record", n: 5 });
      expect(decodeToken(token.slice(3), format)).toBeUndefined();
      expect(decodeToken(`itr${"!".repeat(8)}`, format)).toBeUndefined();
    }
    expect(encodeToken(300, { encoding: "base32", prefix: "" })).toMatch(/^[A-Z2-7]+$/);
  });
});

describe("positions and merging", () => {
  it("places top before and bottom after the siblings of the same group", () => {
    const model = {
      resources: {
        card: {
          idField: "id",
          id: { format: "hex24" },
          seed: [],
          defaults: {},
          position: { field: "pos", within: "idList", step: 16384 },
        },
      },
    } as never;
    const store = new Store("t", model);
    store.put("card", { id: "a", idList: "L", pos: 16384 });
    store.put("card", { id: "b", idList: "L", pos: 32768 });
    store.put("card", { id: "x", idList: "M", pos: 1 });
    const fresh = { id: "c", idList: "L" };
    expect(store.position("card", fresh, "top")).toBe(8192);
    expect(store.position("card", fresh, "bottom")).toBe(49152);
    expect(store.position("card", fresh, undefined)).toBe(49152);
    expect(store.position("card", fresh, "123.5")).toBe(123.5);
    expect(store.position("card", { id: "d", idList: "N" }, "top")).toBe(16384);
    store.put("card", { ...fresh, pos: 8192 });
    expect(
      store
        .all("card")
        .filter((c) => c.idList === "L")
        .map((c) => c.id),
    ).toEqual(["c", "a", "b"]);
    const items = [
      { id: 1, pos: 100 },
      { id: 2, pos: 200 },
    ];
    const item = { id: 3, pos: "top" };
    items.push(item as never);
    placeInArray(items, item, { field: "pos", step: 16384 });
    expect(items.map((i) => i.id)).toEqual([3, 1, 2]);
  });

  it(
    "a seed list naming an Object.prototype member is an unknown operation, not a " + "function found by inheritance",
    () => {
      const model = {
        resources: {
          card: { idField: "id", id: { format: "hex24" }, seed: [{ operation: "toString" }], defaults: {} },
        },
      } as never;
      expect(() => new Store("t", model).seedFromExamples({})).toThrow(
        't mock: resource "card" seeds from unknown operation "toString"',
      );
    },
  );

  it("ignores a __proto__ key in a request body", async () => {
    const engine = new MockEngine(registeredMock("trello")!, { limits: { off: true } });
    const body = Buffer.from(`{"idList":"${LIST}","name":"x","__proto__":{"polluted":true}}`);
    const out = engine.handle({
      method: "POST",
      url: `/1/cards?${TRELLO_AUTH}`,
      headers: { "content-type": "application/json" },
      body,
    }) as Outcome;
    if (out.drop) throw new Error("dropped");
    const id = JSON.parse(out.reply.body.toString()).id as string;
    const stored = engine.store.find("card", id)!;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect((stored as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("merges nested objects field by field and never writes __proto__", () => {
    const target: Record<string, unknown> = { prefs: { color: "blue", size: "M" }, tags: ["a"] };
    deepMerge(target, JSON.parse('{"prefs":{"color":"red"},"tags":["b"],"__proto__":{"polluted":true}}'));
    expect(target).toEqual({ prefs: { color: "red", size: "M" }, tags: ["b"] });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe("model", () => {
  it("refuses mock keys the action would ignore, naming the key and the actions that read it", () => {
    const issues = (op: unknown) =>
      MockOperationSchema.safeParse(op).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(issues({ action: "read", resource: "card", pageSize: { default: 5, max: 10 } })).toEqual([
      'pageSize: "pageSize" applies to the list/linked actions, not read',
    ]);
    expect(issues({ action: "create", resource: "card", merge: "deep" })).toEqual([
      'merge: "merge" applies to the update/updateItem actions, not create',
    ]);
    expect(issues({ action: "list", resource: "n", whereMap: { unread: { all: "" } } })).toEqual([
      "whereMap.unread: whereMap.unread maps a filter that `where` does not have",
    ]);
    expect(issues({ action: "updateItem", resource: "checklist" })).toEqual([
      "itemId: updateItem needs `field` (the array) and `itemId` (the element's id template)",
    ]);
    expect(issues({ action: "list", resource: "card", pageSize: { default: 50, max: 10 } })).toEqual([
      "pageSize: pageSize.default must not exceed pageSize.max",
    ]);
    expect(
      issues({
        action: "list",
        resource: "card",
        pageSize: { default: 5, max: 10 },
        pageToken: { encoding: "base32", prefix: "itr" },
      }),
    ).toEqual([]);
  });

  it("refuses an operation with a parent on a resource that has no parentField", () => {
    const base = registeredMock("trello")!;
    const op = { ...base.operations.getCard!, mock: { ...base.operations.getCard!.mock!, parent: "{path.idBoard}" } };
    expect(() => new MockEngine({ ...base, operations: { ...base.operations, getCard: op } })).toThrow(
      /getCard has `parent` but its resource card declares no `parentField`/,
    );
  });
});

describe("registry", () => {
  it("starts a registered mock by name and names the registered ones when asked for another", async () => {
    expect(registeredMocks()).toEqual(expect.arrayContaining(["contentsnare", "marketo", "trello", "worldnews"]));
    const copy = registerMock({
      ...registeredMock("worldnews")!,
      descriptor: { ...registeredMock("worldnews")!.descriptor, id: "newsclone" },
    });
    expect(registeredMock("newsclone")).toBe(copy);
    await expect(startMock("nosuchservice")).rejects.toThrow(
      /no mock registered for "nosuchservice" \(registered: .*newsclone.*\); import its generated mock\.js/,
    );
  });
});

describe("months", () => {
  it("knows the month and the next 1st at midnight in a zone", () => {
    const at = Date.UTC(2026, 0, 31, 23, 30); // 31 Jan 23:30 UTC = 1 Feb in Tokyo
    expect(monthIn("UTC", at)).toBe("2026-01");
    expect(monthIn("Asia/Tokyo", at)).toBe("2026-02");
    expect(nextMonthStart("UTC", at).toISOString()).toBe("2026-02-01T00:00:00.000Z");
    expect(nextMonthStart("America/Chicago", Date.UTC(2026, 2, 15)).toISOString()).toBe("2026-04-01T05:00:00.000Z");
  });
});

// ---- admission ----------------------------------------------------------------------------------

function trelloWith(limits: unknown[]): MockDefinition {
  const base = registeredMock("trello")!;
  const rejection = { status: 429 };
  const full = limits.map((l) => ({ applies: "all", per: "connection", rejection, ...(l as object) })) as LimitSpec[];
  return { ...base, descriptor: { ...base.descriptor, limits: full }, mock: { ...base.mock, limits: {} } };
}

const get = (path: string) => ({
  method: "GET",
  url: `${path}${path.includes("?") ? "&" : "?"}${TRELLO_AUTH}`,
  headers: {},
  body: Buffer.alloc(0),
});
function status(engine: MockEngine, path: string): { status: number; retryAfter?: string | undefined } {
  const out = engine.handle(get(path)) as Outcome;
  if (out.drop) throw new Error("dropped");
  engine.done(out);
  return { status: out.reply.status, retryAfter: out.reply.headers["retry-after"] };
}

describe("admission", () => {
  it("counts a path: limit per value of the parameter, for operations that have it only", () => {
    const engine = new MockEngine(
      trelloWith([
        {
          id: "perBoard",
          kind: "window",
          description: "per board",
          per: "path:id",
          pathPrefix: "/1/boards/",
          requests: 2,
          windowSeconds: 10,
        },
      ]),
      { clock: manualClock().now },
    );
    expect([1, 2, 3].map(() => status(engine, `/1/boards/${BOARD}/lists`).status)).toEqual([200, 200, 429]);
    // another board: room, but no such board
    expect(status(engine, "/1/boards/60d5ecb74e2a1b3c4d5e6f71/lists").status).toBe(404);
    expect(status(engine, `/1/cards/${CARD}`).status).toBe(200);
    const perList = new MockEngine(
      trelloWith([
        {
          id: "perList",
          kind: "window",
          description: "per idList",
          per: "path:idCheckItem",
          requests: 1,
          windowSeconds: 10,
        },
      ]),
      {},
    );
    // no {idCheckItem}: not counted
    expect([1, 2, 3].map(() => status(perList, `/1/lists/${LIST}`).status)).toEqual([200, 200, 200]);
  });

  it("neither counts nor refuses excluded routes, and refuses everything for penaltySeconds after a refusal", () => {
    const clock = manualClock();
    const engine = new MockEngine(
      trelloWith([
        {
          id: "perToken",
          kind: "window",
          description: "per token",
          requests: 2,
          windowSeconds: 1,
          excludePathPrefixes: ["/1/members/"],
          penaltySeconds: 30,
        },
      ]),
      { clock: clock.now },
    );
    for (let i = 0; i < 5; i++) expect(status(engine, "/1/members/me/boards").status).toBe(200);
    expect([1, 2, 3].map(() => status(engine, `/1/cards/${CARD}`).status)).toEqual([200, 200, 429]);
    clock.advance(2_000); // the window has room again, the penalty has not run out
    expect(status(engine, `/1/cards/${CARD}`).status).toBe(429);
    clock.advance(29_000);
    expect(status(engine, `/1/cards/${CARD}`).status).toBe(200);
  });

  it("keeps a monthly quota per calendar month in its zone and says when it resets", () => {
    const clock = manualClock(Date.UTC(2026, 0, 31, 12));
    const def = trelloWith([
      { id: "monthly", kind: "monthly-quota", description: "per month", requests: 2, resetTimeZone: "UTC" },
    ]);
    def.mock = { ...def.mock, limits: { monthly: { message: "monthly quota", retryAfter: true } } };
    const engine = new MockEngine(def, { clock: clock.now });
    expect([1, 2, 3].map(() => status(engine, `/1/cards/${CARD}`))).toEqual([
      { status: 200 },
      { status: 200 },
      { status: 429, retryAfter: String(12 * 3600) },
    ]);
    clock.advance(12 * 3600_000);
    expect(status(engine, `/1/cards/${CARD}`).status).toBe(200);
  });

  it("switches limits off or scales their budgets", () => {
    const limits = [{ id: "perToken", kind: "window", description: "per token", requests: 2, windowSeconds: 10 }];
    const off = new MockEngine(trelloWith(limits), { limits: { off: true } });
    expect(Array.from({ length: 5 }, () => status(off, `/1/cards/${CARD}`).status)).toEqual([200, 200, 200, 200, 200]);
    const scaled = new MockEngine(trelloWith(limits), { limits: { scale: 2 }, clock: manualClock().now });
    expect(Array.from({ length: 5 }, () => status(scaled, `/1/cards/${CARD}`).status)).toEqual([
      200, 200, 200, 200, 429,
    ]);
    expect(() => new MockEngine(trelloWith(limits), { limits: { scale: 0 } })).toThrow(
      /limit scale must be a positive number/,
    );
  });
});

describe("options", () => {
  it("refuses a field the grouped options do not have, naming where it belongs", () => {
    const trello = registeredMock("trello")!;
    // As a JavaScript caller would pass them: flat, or a limit id where the overrides go.
    const refused = (options: unknown) => () => new MockEngine(trello, options as MockOptions);
    expect(refused({ port: 4110 })).toThrow("trello mock: options.port is not an option; set server.port instead");
    expect(refused({ limits: { perToken: { requests: 1 } } })).toThrow(
      "options.limits.perToken is not an option; a limit's numbers go under limits.overrides.perToken",
    );
    expect(refused({ webhooks: { secret: "s", retries: 2 } })).toThrow(
      "options.webhooks.retries is not an option; webhooks takes secret, retryDelaysMs",
    );
    expect(refused({ auth: "mock-token" })).toThrow("options.auth must be an object of credentials,");
    expect(refused({ speed: 1 })).toThrow("options.speed is not an option; the options are server, auth,");
    expect(refused({ server: { port: 0 }, hooks: {}, faults: undefined })).not.toThrow();
  });
});
