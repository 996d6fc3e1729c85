/**
 * The limiter on the state layer, in one test process: each `SharedState` below stands for one
 * worker process (its own limiter and token cache over its own store object), and they share
 * budgets only through the store (one MemoryStateStore object, or two FileStateStore objects on
 * one folder), against loopback servers that enforce the limit the way the service does.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  type ClientOptions,
  createServiceClient,
  NetworkError,
  QuotaExhaustedError,
  type SharedState,
} from "../../runtime/index.js";
import { SharedLimitRegistry, type SharedLimitOptions } from "../../runtime/limits/shared.js";
import { FileStateStore } from "../../runtime/state/file.js";
import { withLocalFallback } from "../../runtime/state/fallback.js";
import { MemoryStateStore } from "../../runtime/state/memory.js";
import { StateUnavailableError, type StateStore } from "../../runtime/state/types.js";
import { TokenCache } from "../../runtime/credentials/tokens.js";
import { apiKeyConnection, apiKeyService, json, startTestServer, type TestServer } from "./helpers.js";
import { ServerWindow } from "./server-window.js";

let server: TestServer | undefined;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One "process": its own limiter and token cache over `store`. */
function worker(store: StateStore, options: SharedLimitOptions = {}): SharedState {
  return { store, limits: new SharedLimitRegistry(store, options), tokens: new TokenCache({ store }) };
}

const WINDOW_MS = 400;
const getThing = (c: ReturnType<typeof createServiceClient>) => c.call("getThing", { params: { path: { id: "1" } } });

function client(shared: SharedState, limits: unknown[], extra: Partial<ClientOptions> = {}) {
  return createServiceClient(
    apiKeyService({
      limits,
      errors: { statuses: { "429": { kind: "rate_limited", retry: true, description: "limit" } } },
    }),
    {
      connection: apiKeyConnection(),
      baseUrl: server!.url,
      shared,
      retry: { attempts: 0 },
      ...extra,
    },
  );
}

const windowLimit = [
  {
    id: "rate",
    kind: "window",
    requests: 5,
    windowSeconds: WINDOW_MS / 1000,
    description: "5 per window",
    rejection: { status: 429 },
  },
];

describe("budgets shared through the store", () => {
  for (const backend of ["memory", "file"] as const) {
    it(`two workers on one account (${backend}): the window is used whole and never passed`, async () => {
      const window = new ServerWindow(5, WINDOW_MS);
      server = await startTestServer((req, res) =>
        window.admit(req.at) ? json(res, 200, { ok: true }) : json(res, 429, { error: "LIMIT" }),
      );
      let stores: StateStore[];
      if (backend === "memory") {
        const one = new MemoryStateStore();
        stores = [one, one];
      } else {
        const dir = mkdtempSync(join(tmpdir(), "sf-shared-"));
        dirs.push(dir);
        stores = [new FileStateStore(dir), new FileStateStore(dir)];
      }
      const [a, b] = stores.map((s) => client(worker(s), windowLimit));
      await Promise.all([
        ...Array.from({ length: 8 }, () => getThing(a!)),
        ...Array.from({ length: 8 }, () => getThing(b!)),
      ]);
      expect(window.rejected).toBe(0);
      expect(window.all).toHaveLength(16);
      expect(window.peak()).toBe(5);
    });
  }

  it("control: the same two workers with per-process limiters are refused", async () => {
    const window = new ServerWindow(5, WINDOW_MS);
    server = await startTestServer((req, res) =>
      window.admit(req.at) ? json(res, 200, { ok: true }) : json(res, 429, { error: "LIMIT" }),
    );
    const [a, b] = [new MemoryStateStore(), new MemoryStateStore()].map((s) => client(worker(s), windowLimit));
    await Promise.allSettled([
      ...Array.from({ length: 8 }, () => getThing(a!)),
      ...Array.from({ length: 8 }, () => getThing(b!)),
    ]);
    expect(window.rejected).toBeGreaterThan(0);
  });

  it("a concurrency slot held by a worker that died frees itself after the lease", async () => {
    const store = new MemoryStateStore();
    const registry = new SharedLimitRegistry(store, { leaseMs: 300 });
    const d = apiKeyService({
      limits: [
        { id: "concurrent", kind: "concurrency", max: 1, description: "1 in flight", rejection: { status: 429 } },
      ],
    });
    const planned = registry.plan("board", d.limits, d.operations.getThing!, { connection: "acct", fields: {} });
    // The dead worker took the only slot with the same lease and will never renew or free it.
    expect(
      (await store.admit([{ kind: "slots", key: planned[0]!.key, capacity: 1, holdMs: 300 }], "dead-worker")).ok,
    ).toBe(true);
    const asked = Date.now();
    const ticket = await registry.acquire(planned);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(250);
    ticket.release({ sent: true });
  });

  it("a live worker's lease is renewed while its request runs: nobody takes its slot meanwhile", async () => {
    const store = new MemoryStateStore();
    const registry = new SharedLimitRegistry(store, { leaseMs: 600 });
    const other = new SharedLimitRegistry(store, { leaseMs: 600 });
    const d = apiKeyService({
      limits: [
        { id: "concurrent", kind: "concurrency", max: 1, description: "1 in flight", rejection: { status: 429 } },
      ],
    });
    const scopes = { connection: "acct", fields: {} };
    const ticket = await registry.acquire(registry.plan("board", d.limits, d.operations.getThing!, scopes));
    let secondDone = false;
    const second = other.acquire(other.plan("board", d.limits, d.operations.getThing!, scopes)).then((t) => {
      secondDone = true;
      return t;
    });
    await new Promise((r) => setTimeout(r, 1_500)); // 2.5 leases
    expect(secondDone).toBe(false);
    ticket.release({ sent: true });
    (await second).release({ sent: true });
    expect(secondDone).toBe(true);
  });

  it("a daily quota is counted once for every worker", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
    const store = new MemoryStateStore();
    const limits = [
      {
        id: "daily",
        kind: "daily-quota",
        requests: 3,
        resetTimeZone: "America/Chicago",
        description: "3 a day",
        rejection: { status: 429 },
      },
    ];
    const [a, b] = [worker(store), worker(store)].map((w) => client(w, limits));
    await getThing(a!);
    await getThing(b!);
    await getThing(a!);
    await expect(getThing(b!)).rejects.toBeInstanceOf(QuotaExhaustedError);
    await expect(getThing(a!)).rejects.toBeInstanceOf(QuotaExhaustedError);
    expect(server.seen).toHaveLength(3);
  });

  it("a refusal one worker got (Retry-After, penalty) holds the others back too", async () => {
    let refusedAt = 0;
    server = await startTestServer((req, res) => {
      if (refusedAt === 0) {
        refusedAt = req.at;
        return json(res, 429, { error: "LIMIT" }, { "retry-after": "1" });
      }
      json(res, 200, { ok: true });
    });
    const store = new MemoryStateStore();
    const limits = [
      {
        id: "rate",
        kind: "window",
        requests: 100,
        windowSeconds: 10,
        penaltySeconds: 0.5,
        description: "100 per 10 s",
        rejection: { status: 429 },
      },
    ];
    const [a, b] = [worker(store), worker(store)].map((w) => client(w, limits));
    await expect(getThing(a!)).rejects.toMatchObject({ kind: "rate_limited" });
    await getThing(b!);
    expect(server.seen[1]!.at - refusedAt).toBeGreaterThanOrEqual(990);
  });
});

/** A store whose every operation fails (down) or never answers (slow) while `mode` says so. */
function flaky(inner: StateStore, mode: { now: "up" | "down" | "slow" }): StateStore {
  return new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== "function" || name === "close") return value;
      return (...args: unknown[]) => {
        if (mode.now === "down") return Promise.reject(new StateUnavailableError("redis", "connection refused"));
        if (mode.now === "slow") return new Promise(() => undefined);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("the order a process asks the store in", () => {
  it("each line of waiters gets its turn: a busy line is not worked through before the others", async () => {
    // On a contended folder an admission takes about as long as the next call of a busy operation
    // takes to arrive, so its line never emptied and the other operations waited until its window was full.
    const store = new MemoryStateStore();
    const registry = new SharedLimitRegistry(store);
    const limits = [
      {
        id: "rate",
        kind: "window",
        requests: 100,
        windowSeconds: 10,
        description: "100/10 s",
        rejection: { status: 429 },
      },
    ];
    const scopes = { connection: "acct", fields: {} };
    const busy = apiKeyService({ limits });
    const quiet = apiKeyService({ limits });
    const busyPlan = registry.plan("busy", busy.limits, busy.operations.getThing!, scopes);
    const quietPlan = registry.plan("quiet", quiet.limits, quiet.operations.getThing!, scopes);
    const admitted: string[] = [];
    const tickets = [
      ...Array.from({ length: 20 }, () => registry.acquire(busyPlan).then((t) => (admitted.push("busy"), t))),
      registry.acquire(quietPlan).then((t) => (admitted.push("quiet"), t)),
    ];
    for (const ticket of await Promise.all(tickets)) ticket.release({ sent: true });
    expect(admitted.indexOf("quiet")).toBeLessThanOrEqual(2);
  });
});

describe("when the shared state cannot be reached", () => {
  it(
    "never sends: every waiting call fails after the bounded wait with the typed error, " + "then calls recover",
    async () => {
      server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
      const mode: { now: "up" | "down" | "slow" } = { now: "down" };
      const c = client(
        worker(flaky(new MemoryStateStore(), mode), { unreachableWaitMs: 300, operationTimeoutMs: 100 }),
        windowLimit,
      );
      const asked = Date.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => getThing(c)));
      for (const o of outcomes) {
        expect(o.status).toBe("rejected");
        const error = (o as PromiseRejectedResult).reason as NetworkError;
        expect(error).toBeInstanceOf(NetworkError);
        expect(error.code).toBe("state_unreachable");
        expect(error.message).toMatch(/the shared state \(redis\) is unreachable: .*nothing was sent/);
      }
      expect(Date.now() - asked).toBeGreaterThanOrEqual(290);
      expect(server.seen).toHaveLength(0);
      // Slow (no answer at all) counts as unreachable too.
      mode.now = "slow";
      await expect(getThing(c)).rejects.toMatchObject({ code: "state_unreachable" });
      expect(server.seen).toHaveLength(0);
      mode.now = "up";
      await getThing(c);
      expect(server.seen).toHaveLength(1);
    },
  );

  it("a call waits no longer than the store's own unreachableAfterMs, measured to when an attempt failed", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
    // Like Redis while it is down: each attempt waits out the store's bound, then fails.
    const bound = 300;
    let admits = 0;
    const inner = new MemoryStateStore();
    const down = new Proxy(inner, {
      get(target, name, receiver) {
        if (name === "unreachableAfterMs") return bound;
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function" || name === "close") return value;
        return () => {
          if (name === "admit") admits++;
          return new Promise((_, reject) =>
            setTimeout(() => reject(new StateUnavailableError("redis", "connection refused")), bound),
          );
        };
      },
    }) as StateStore;
    // No unreachableWaitMs given: the limiter takes the store's bound (not its 5 s default), and the
    // first attempt that waited the whole bound fails the call (not one more attempt after it).
    const c = client(worker(down, { operationTimeoutMs: 5 * bound }), windowLimit);
    await expect(getThing(c)).rejects.toMatchObject({ code: "state_unreachable" });
    expect(admits).toBe(1);
    expect(server.seen).toHaveLength(0);
  });

  describe("a folder whose lock another process holds longer than one operation's bound", () => {
    const tenSeconds = [
      {
        id: "rate",
        kind: "window",
        requests: 5,
        windowSeconds: 10,
        description: "5 per 10 s",
        rejection: { status: 429 },
      },
    ];
    /** A registry on a fresh folder whose lock is held (a fresh `.lock` dir: a live process) until `free`. */
    function lockedFolder(options: SharedLimitOptions) {
      const dir = mkdtempSync(join(tmpdir(), "sf-held-"));
      dirs.push(dir);
      const store = new FileStateStore(dir);
      let admits = 0;
      const admit = store.admit.bind(store);
      store.admit = (items, id) => {
        admits++;
        return admit(items, id);
      };
      const registry = new SharedLimitRegistry(store, options);
      const d = apiKeyService({ limits: tenSeconds });
      // Each plan is a line of its own in the registry (clients keep one per operation).
      const plan = () => registry.plan("board", d.limits, d.operations.getThing!, { connection: "acct", fields: {} });
      const planned = plan();
      mkdirSync(join(dir, ".state.lock"));
      return {
        store,
        registry,
        planned,
        plan,
        admits: () => admits,
        live: async () => (await store.slots(planned[0]!.key)).live,
        free: () => rmSync(join(dir, ".state.lock"), { recursive: true }),
      };
    }
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it("a call keeps its one attempt in line, so no abandoned attempt takes a slot later", async () => {
      // Several operation bounds pass while the lock is held; each used to leave an admission queued
      // behind the lock that later took a slot (held a window and a lease) with an id nobody frees.
      const held = lockedFolder({ operationTimeoutMs: 100, unreachableWaitMs: 10_000 });
      const ticket = held.registry.acquire(held.planned);
      await pause(800);
      held.free();
      (await ticket).release({ sent: true });
      expect(await held.live()).toBe(1);
      expect(held.admits()).toBe(1);
    });

    it("a call that gave up (unreachable bound, or aborted) frees what its late attempt took", async () => {
      const held = lockedFolder({ operationTimeoutMs: 100, unreachableWaitMs: 300 });
      const stop = new AbortController();
      const failed = held.registry.acquire(held.planned);
      // A second line, asked once the first line's attempt ran out of time.
      const aborted = held.registry.acquire(held.plan(), { signal: stop.signal });
      await vi.waitFor(() => expect(held.admits()).toBe(2));
      stop.abort(new Error("stopped"));
      await expect(aborted).rejects.toThrow("stopped");
      await expect(failed).rejects.toBeInstanceOf(StateUnavailableError);
      held.free();
      // Each line's one attempt ran once the lock was free, and what it took was given back.
      await vi.waitFor(async () => expect(await held.live()).toBe(0));
      expect(held.admits()).toBe(2);
    });
  });

  it("with the explicit opt-in, counts in this process alone while the store is down", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
    const mode: { now: "up" | "down" | "slow" } = { now: "down" };
    const changes: boolean[] = [];
    const store = withLocalFallback(flaky(new MemoryStateStore(), mode), {
      onFallback: (local) => changes.push(local),
    });
    const c = client(worker(store), windowLimit);
    await Promise.all(Array.from({ length: 3 }, () => getThing(c)));
    expect(server.seen).toHaveLength(3);
    expect(changes).toEqual([true]);
  });
});
