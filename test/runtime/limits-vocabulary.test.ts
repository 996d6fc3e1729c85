/**
 * The limit vocabulary beyond windows, slots and daily quotas: limits per path parameter (per
 * board), routes a limit does not cover, penalty periods after a refusal, monthly quotas; each
 * against a loopback server that enforces it the way the service does, and in the generator's
 * validation.
 */
import { describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { SpecError, type Diagnostic } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";
import { checkSpec as validateSpec } from "../../generator/check/index.js";
import {
  createServiceClient,
  createSharedState,
  monthIn,
  nextMonthStart,
  QuotaExhaustedError,
  RateLimitedError,
} from "../../runtime/index.js";
import { concretePath, limitCovers, planKey } from "../../runtime/limits/limits.js";
import { minimalSpec, toYaml } from "../helpers/spec.js";
import {
  apiKeyClient,
  apiKeyConnection,
  apiKeyService,
  callPastQuota,
  expectRefusedLocally,
  json,
  nextFailure,
  startTestServer,
  type TestServer,
} from "./helpers.js";
import { ServerWindow } from "./server-window.js";

let server: TestServer | undefined;

const WINDOW_MS = 300;
const boardOps = {
  getBoard: { method: "GET" as const, path: "/1/boards/{idBoard}" },
  getBoardCards: { method: "GET" as const, path: "/1/boards/{idBoard}/cards" },
  getThing: { method: "GET" as const, path: "/1/things/{id}" },
  getMember: { method: "GET" as const, path: "/1/members/{id}" },
  getMemberBoards: { method: "GET" as const, path: "/1/members/{id}/boards" },
};

/** A service with one monthly quota of `requests` resetting in `timeZone`, whose 429 says so. */
const monthlyService = (requests: number, timeZone: string) =>
  apiKeyService(
    {
      limits: [
        {
          id: "monthly",
          kind: "monthly-quota",
          requests,
          resetTimeZone: timeZone,
          description: `${requests} a month`,
          rejection: { status: 429 },
        },
      ],
      errors: { statuses: { "429": { kind: "rate_limited", retry: true, description: "monthly quota" } } },
    },
    boardOps,
  );

describe("per: path:<param>", () => {
  const limits = [
    {
      id: "perBoard",
      kind: "window",
      requests: 4,
      windowSeconds: WINDOW_MS / 1000,
      per: "path:idBoard",
      description: "4 per window per board",
      rejection: { status: 429 },
    },
  ];

  it(
    "one budget per board, shared by every connection of the service; operations without " +
      "the parameter are not counted",
    async () => {
      const boards = new Map<string, ServerWindow>();
      let rejected = 0;
      server = await startTestServer((req, res) => {
        const m = /^\/1\/boards\/([^/]+)/.exec(req.url.pathname);
        if (m) {
          const w = boards.get(m[1]!) ?? new ServerWindow(4, WINDOW_MS);
          boards.set(m[1]!, w);
          if (!w.admit(req.at)) {
            rejected++;
            return json(res, 429, { error: "BOARD_LIMIT" });
          }
        }
        json(res, 200, { ok: true });
      });
      const d = apiKeyService({ limits }, boardOps);
      const shared = createSharedState();
      // Two connections with different tokens and keys: a per-connection or per-key limit would let each spend 4.
      const a = createServiceClient(d, {
        connection: apiKeyConnection("a"),
        baseUrl: server.url,
        shared,
        retry: { attempts: 0 },
      });
      const b = createServiceClient(d, {
        connection: apiKeyConnection("b", { apiKey: "OTHERKEY0123456789", token: "OTHERTOKEN" }),
        baseUrl: server.url,
        shared,
        retry: { attempts: 0 },
      });
      const order: string[] = [];
      const track = (what: string, p: Promise<unknown>) => p.then(() => order.push(what));
      await Promise.all([
        ...Array.from({ length: 6 }, () => track("B1", a.call("getBoard", { params: { path: { idBoard: "B1" } } }))),
        ...Array.from({ length: 6 }, () =>
          track("B1", b.call("getBoardCards", { params: { path: { idBoard: "B1" } } })),
        ),
        ...Array.from({ length: 4 }, () => track("B2", b.call("getBoard", { params: { path: { idBoard: "B2" } } }))),
        ...Array.from({ length: 12 }, () => track("thing", a.call("getThing", { params: { path: { id: "x" } } }))),
      ]);
      expect(rejected).toBe(0);
      expect(boards.get("B1")!.all).toHaveLength(12);
      expect(boards.get("B1")!.peak()).toBe(4); // the whole budget, never more, across both connections
      expect(boards.get("B2")!.all).toHaveLength(4);
      // Board B2's calls and the things never waited behind B1's budget (8 of B1's waited one or two windows).
      expect(order.lastIndexOf("B2")).toBeLessThan(order.length - 8);
      expect(order.lastIndexOf("thing")).toBeLessThan(order.length - 8);
      expect(order.slice(-8)).toEqual(Array(8).fill("B1"));
    },
  );

  it("the plan depends on the board only where it must", () => {
    const d = apiKeyService({ limits }, boardOps);
    const spec = d.limits[0]!;
    expect(limitCovers(spec, d.operations.getBoard!, "/1/boards/B1")).toBe(true);
    expect(limitCovers(spec, d.operations.getThing!, "/1/things/x")).toBe(false);
    expect(planKey(d.limits, d.operations.getBoard!, { idBoard: "B1" })).toBe("|/1/boards/B1");
    expect(planKey([], d.operations.getBoard!, { idBoard: "B1" })).toBe("");
    expect(concretePath(d.operations.getBoard!, { idBoard: "a/b" })).toBe("/1/boards/a%2Fb");
  });
});

describe("excludePathPrefixes", () => {
  it("excluded routes neither count nor wait; the rest of the prefix does", async () => {
    const members = new ServerWindow(2, WINDOW_MS);
    let rejected = 0;
    server = await startTestServer((req, res) => {
      const p = req.url.pathname;
      if (p.startsWith("/1/members/") && !p.startsWith("/1/members/me/") && !members.admit(req.at)) {
        rejected++;
        return json(res, 429, { error: "MEMBER_LIMIT_EXCEEDED" });
      }
      json(res, 200, { ok: true });
    });
    const d = apiKeyService(
      {
        limits: [
          {
            id: "members",
            kind: "window",
            requests: 2,
            windowSeconds: WINDOW_MS / 1000,
            pathPrefix: "/1/members/",
            excludePathPrefixes: ["/1/members/me/"],
            description: "members route",
            rejection: { status: 429 },
          },
        ],
      },
      boardOps,
    );
    const client = createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: { attempts: 0 },
    });
    const order: string[] = [];
    const track = (what: string, p: Promise<unknown>) => p.then(() => order.push(what));
    await Promise.all([
      ...Array.from({ length: 4 }, () =>
        track("counted", client.call("getMember", { params: { path: { id: "me" } } })),
      ),
      ...Array.from({ length: 2 }, () =>
        track("counted", client.call("getMemberBoards", { params: { path: { id: "someone" } } })),
      ),
      ...Array.from({ length: 10 }, () =>
        track("excluded", client.call("getMemberBoards", { params: { path: { id: "me" } } })),
      ),
    ]);
    expect(rejected).toBe(0);
    expect(server.seen.filter((s) => s.url.pathname === "/1/members/me/boards")).toHaveLength(10);
    // The four counted calls past the budget waited one or two windows; no excluded call waited behind them.
    expect(order.slice(-4)).toEqual(Array(4).fill("counted"));
    expect(members.all).toHaveLength(6); // 4 × /1/members/me + 2 × /1/members/someone/boards
    expect(members.peak()).toBe(2);
  });
});

describe("penaltySeconds", () => {
  const PENALTY_MS = 600;
  function penaltyServer(requests: number) {
    const window = new ServerWindow(requests, WINDOW_MS);
    let penaltyUntil = 0;
    let refused = 0;
    let refusedInPenalty = 0;
    let first = true;
    return {
      handler: (req: { at: number }, res: Parameters<typeof json>[0]) => {
        // Someone else spent the key's budget just before us: the first request is refused.
        if (first || req.at < penaltyUntil || !window.admit(req.at)) {
          if (!first && req.at < penaltyUntil) refusedInPenalty++;
          first = false;
          refused++;
          penaltyUntil = req.at + PENALTY_MS; // every refusal (re)starts the penalty
          return json(res, 429, { error: "LIMIT" }, { "retry-after": "0" });
        }
        json(res, 200, { ok: true });
      },
      stats: () => ({ refused, refusedInPenalty, penaltyUntil }),
    };
  }
  const limit = (penaltySeconds?: number) => ({
    id: "rate",
    kind: "window",
    requests: 5,
    windowSeconds: WINDOW_MS / 1000,
    ...(penaltySeconds ? { penaltySeconds } : {}),
    description: "5 per window; 0.6 s penalty after a 429",
    rejection: { status: 429 },
  });
  const errors = { statuses: { "429": { kind: "rate_limited", retry: true, description: "limit" } } };

  it("holds every caller back for the penalty after a refusal, so no request lands inside it", async () => {
    const s = penaltyServer(5);
    server = await startTestServer((req, res) => s.handler(req, res));
    const client = createServiceClient(apiKeyService({ limits: [limit(PENALTY_MS / 1000)], errors }, boardOps), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: { attempts: 3, maxTotalWaitMs: 10_000 },
    });
    const first = client.call("getThing", { params: { path: { id: "1" } } });
    await new Promise((r) => setTimeout(r, 50));
    await Promise.all([
      first,
      ...Array.from({ length: 8 }, () => client.call("getThing", { params: { path: { id: "1" } } })),
    ]);
    const stats = s.stats();
    expect(stats.refused).toBe(1); // only the one nobody could foresee
    expect(stats.refusedInPenalty).toBe(0);
    const firstAt = server.seen[0]!.at;
    expect(Math.min(...server.seen.slice(1).map((r) => r.at - firstAt))).toBeGreaterThanOrEqual(PENALTY_MS - 10);
  });

  it("control: without penaltySeconds the same server keeps refusing (Retry-After 0 says go at once)", async () => {
    const s = penaltyServer(5);
    server = await startTestServer((req, res) => s.handler(req, res));
    const client = createServiceClient(apiKeyService({ limits: [limit()], errors }, boardOps), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: { attempts: 2, maxTotalWaitMs: 2_000, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const first = client.call("getThing", { params: { path: { id: "1" } } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const rest = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.call("getThing", { params: { path: { id: "1" } } }).catch((e: unknown) => e),
      ),
    );
    await first;
    expect(s.stats().refusedInPenalty).toBeGreaterThan(0);
    expect(rest.some((r) => r instanceof RateLimitedError)).toBe(true);
  });
});

describe("monthly-quota", () => {
  it("counts calls per calendar month and fails before sending once used, naming the reset on the 1st", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
    const d = monthlyService(3, "America/New_York");
    const error = await callPastQuota(d, server.url);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(server.seen).toHaveLength(3);
    expect(error.resetsAt).toBe(nextMonthStart("America/New_York").toISOString());
    expect(error.message).toMatch(
      joinedPattern([
        /monthly quota of 3 requests \("monthly"\) is used up; it resets at /,
        /.* \(midnight on the 1st, America\/New_York\)/,
      ]),
    );
  });

  it("a monthly refusal from the service stops every call until the 1st", async () => {
    server = await startTestServer((_req, res) => json(res, 429, { error: "MONTHLY_QUOTA" }));
    const d = monthlyService(1000, "UTC");
    const client = apiKeyClient(d, server.url);
    const first = await nextFailure(client);
    expect(first.resetsAt).toBe(nextMonthStart("UTC").toISOString());
    expect(first.retries).toBe(0);
    await expectRefusedLocally(client, server);
  });

  it("month boundaries in a zone, across daylight saving and the year's end", () => {
    expect(monthIn("UTC", Date.parse("2026-01-31T23:59:59Z"))).toBe("2026-01");
    expect(monthIn("America/Chicago", Date.parse("2026-03-01T05:59:00Z"))).toBe("2026-02");
    expect(monthIn("America/Chicago", Date.parse("2026-03-01T06:00:00Z"))).toBe("2026-03");
    expect(nextMonthStart("UTC", Date.parse("2026-12-15T10:00:00Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(nextMonthStart("America/Chicago", Date.parse("2026-02-10T12:00:00Z")).toISOString()).toBe(
      "2026-03-01T06:00:00.000Z",
    ); // CST
    expect(nextMonthStart("America/Chicago", Date.parse("2026-03-10T12:00:00Z")).toISOString()).toBe(
      "2026-04-01T05:00:00.000Z",
    ); // CDT
    expect(nextMonthStart("Asia/Tokyo", Date.parse("2026-05-31T15:00:00Z")).toISOString()).toBe(
      "2026-06-30T15:00:00.000Z",
    ); // already June 1st in Tokyo
    expect(nextMonthStart("Europe/London", Date.parse("2026-10-31T23:30:00Z")).toISOString()).toBe(
      "2026-11-01T00:00:00.000Z",
    );
  });
});

describe("the generator refuses limit settings that would do nothing", () => {
  function problems(edit: (limits: any[]) => void): Diagnostic[] {
    const doc = minimalSpec() as any;
    edit(doc["x-stepforge"].limits);
    try {
      validateSpec(loadSpecText("spec.yaml", toYaml(doc)));
    } catch (error) {
      if (error instanceof SpecError) return error.diagnostics;
      throw error;
    }
    return [];
  }

  it("accepts the new vocabulary where it applies", () => {
    expect(
      problems((l) => {
        l[0].per = "path:id";
        l[0].penaltySeconds = 30;
        l[0].excludePathPrefixes = ["/widgets/special"];
        l.push({
          id: "monthly",
          kind: "monthly-quota",
          requests: 10,
          resetTimeZone: "Europe/Berlin",
          description: "m",
          rejection: { status: 429 },
        });
      }),
    ).toEqual([]);
  });

  it("a path parameter no operation has (SF126)", () => {
    const [p] = problems((l) => (l[0].per = "path:idBoard"));
    expect(p).toMatchObject({ code: "SF126" });
    expect(p!.message).toMatch(/no operation's path has \{idBoard\}/);
  });

  it("an unknown reset zone (SF125)", () => {
    const [p] = problems((l) =>
      l.push({
        id: "monthly",
        kind: "monthly-quota",
        requests: 10,
        resetTimeZone: "Mars/Olympus",
        description: "m",
        rejection: { status: 429 },
      }),
    );
    expect(p).toMatchObject({ code: "SF125" });
    expect(p!.message).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it("a penalty on a quota (SF127), a malformed per, a relative exclusion", () => {
    expect(
      problems((l) =>
        l.push({
          id: "d",
          kind: "daily-quota",
          requests: 10,
          resetTimeZone: "UTC",
          penaltySeconds: 5,
          description: "d",
          rejection: { status: 429 },
        }),
      )[0],
    ).toMatchObject({ code: "SF127" });
    expect(problems((l) => (l[0].per = "path:"))[0]).toMatchObject({ code: "SF120" });
    expect(problems((l) => (l[0].excludePathPrefixes = ["widgets"]))[0]).toMatchObject({ code: "SF120" });
    expect(problems((l) => (l[0].penaltySeconds = 0))[0]).toMatchObject({ code: "SF120" });
  });
});
