import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStateStore } from "../../runtime/state/redis.js";
import { createStateStore, MemoryStateStore, StateUnavailableError } from "../../runtime/state/index.js";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { describeStateStore } from "./conformance.js";

let redis: RunningRedis;
let n = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

// Each test gets its own key prefix on the one server.
describeStateStore("redis", async (clock) => {
  const store = new RedisStateStore(redis.url, { clock, prefix: `t${++n}:` });
  await store.ready();
  return store;
});

describe("RedisStateStore when Redis is unreachable", () => {
  it("waits a bounded time, then throws a typed error naming no password; recovers on its own", async () => {
    const url = redis.url.replace("redis://", "redis://user:sekret-pass@");
    const store = new RedisStateStore(redis.url, { prefix: "outage:", unreachableAfterMs: 300 });
    try {
      await store.ready();
      expect(await store.firstSeen("s", "a", 60_000)).toBe(true);
      await redis.kill();
      const error = await store
        .admit([{ kind: "slots", key: "w", capacity: 1, holdMs: 1000 }], "x")
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect((error as Error).message).toMatch(/shared state \(redis\) is unreachable/);
      await redis.restart();
      // The next operation waits for the reconnect (within its bound) and goes through.
      await expect
        .poll(() => store.firstSeen("s", "b", 60_000).catch(() => "down"), { timeout: 10_000, interval: 100 })
        .toBe(true);
    } finally {
      await store.close();
    }
    const withPassword = new RedisStateStore(url, { prefix: "pw:", unreachableAfterMs: 200 });
    await redis.kill();
    try {
      const error = await withPassword.get("x").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect(String((error as Error).message)).not.toContain("sekret-pass");
    } finally {
      await withPassword.close();
      await redis.restart();
    }
  });
});

describe("createStateStore: the switch", () => {
  it(
    "picks Redis from STEPFORGE_REDIS_URL, a folder from STEPFORGE_STATE_DIR, memory otherwise; " +
      "code wins over both",
    async () => {
      const fromEnv = createStateStore({}, { STEPFORGE_REDIS_URL: redis.url, STEPFORGE_STATE_DIR: "/tmp/x" });
      expect(fromEnv.backend).toBe("redis");
      await fromEnv.close();
      expect(createStateStore({}, { STEPFORGE_STATE_DIR: "/tmp/sf-state-switch" }).backend).toBe("file");
      expect(createStateStore({}, {}).backend).toBe("memory");
      expect(createStateStore({ stateDir: "/tmp/sf-state-switch" }, { STEPFORGE_REDIS_URL: redis.url }).backend).toBe(
        "file",
      );
      const mine = new MemoryStateStore();
      expect(createStateStore({ store: mine }, { STEPFORGE_REDIS_URL: redis.url })).toBe(mine);
      expect(() => createStateStore({}, { STEPFORGE_REDIS_URL: "http://x" })).toThrow(/redis:\/\//);
      expect(() => createStateStore({}, { STEPFORGE_STATE_FALLBACK: "yes" })).toThrow(/"local"/);
      expect(() => createStateStore({}, { STEPFORGE_STATE_WAIT_MS: "soon" })).toThrow(/STEPFORGE_STATE_WAIT_MS/);
    },
  );

  it("falls back to per-process state only when asked, and says so", async () => {
    const events: boolean[] = [];
    const store = createStateStore({
      redisUrl: redis.url,
      prefix: "fb:",
      unreachableAfterMs: 200,
      fallbackToLocal: { onFallback: (local) => events.push(local), retrySharedAfterMs: 100 },
    });
    try {
      expect(await store.firstSeen("s", "a", 60_000)).toBe(true);
      await redis.kill();
      // Down: the local store answers (it has not seen "a").
      expect(await store.firstSeen("s", "a", 60_000)).toBe(true);
      expect(events).toEqual([true]);
      await redis.restart();
      await expect
        .poll(
          async () => {
            await store.firstSeen("s", `probe-${Math.random()}`, 60_000);
            return events.at(-1);
          },
          { timeout: 10_000, interval: 150 },
        )
        .toBe(false);
    } finally {
      await store.close();
    }
  });
});
