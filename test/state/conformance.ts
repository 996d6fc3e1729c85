/**
 * What every StateStore backend must do, as one suite each backend's test file runs with its own
 * factory. A fake clock drives every time-dependent answer (the backends read it once per operation).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock, type LockGrant, type StateStore } from "../../runtime/state/index.js";

export function describeStateStore(
  name: string,
  make: (clock: FakeClock) => Promise<StateStore>,
  cleanup?: () => Promise<void>,
): void {
  describe(`StateStore conformance: ${name}`, () => {
    let clock: FakeClock;
    let store: StateStore;
    beforeEach(async () => {
      clock = new FakeClock();
      store = await make(clock);
    });
    afterEach(async () => {
      await store.close();
      await cleanup?.();
    });

    it("versions records and compares-and-sets on the version", async () => {
      expect(await store.get("a")).toBeUndefined();
      expect(await store.set("a", { n: 1 }, { ifVersion: 0 })).toEqual({ ok: true, version: 1 });
      expect(await store.set("a", { n: 2 }, { ifVersion: 0 })).toEqual({
        ok: false,
        reason: "version",
        current: { value: { n: 1 }, version: 1 },
      });
      expect(await store.set("a", { n: 2 }, { ifVersion: 1 })).toEqual({ ok: true, version: 2 });
      expect(await store.get("a")).toEqual({ value: { n: 2 }, version: 2 });
      expect(await store.set("a", { n: 3 })).toEqual({ ok: true, version: 3 });
      expect(await store.delete("a", { ifVersion: 2 })).toBe(false);
      expect(await store.delete("a", { ifVersion: 3 })).toBe(true);
      expect(await store.get("a")).toBeUndefined();
      // A deleted record's version is not reused: a writer holding version 3 cannot win.
      expect((await store.set("a", { n: 4 }, { ifVersion: 3 })).ok).toBe(false);
      expect(await store.set("a", { n: 4 }, { ifVersion: 0 })).toEqual({ ok: true, version: 4 });
    });

    it("copies values: changing what was read changes nothing stored", async () => {
      const value = { list: [1] };
      await store.set("a", value);
      value.list.push(2);
      const read = await store.get<{ list: number[] }>("a");
      read!.value.list.push(3);
      expect((await store.get("a"))!.value).toEqual({ list: [1] });
    });

    it("expires records with a TTL and lists record keys by prefix", async () => {
      await store.set("conn:x:1", "one", { ttlMs: 1000 });
      await store.set("conn:x:2", "two");
      await store.set("other", "three");
      expect(await store.keys("conn:x:")).toEqual(["conn:x:1", "conn:x:2"]);
      clock.advance(1000);
      expect(await store.get("conn:x:1")).toBeUndefined();
      expect(await store.keys("conn:x:")).toEqual(["conn:x:2"]);
    });

    it("locks with expiry and a fencing token that only goes up", async () => {
      const first = (await store.lock("L", 1000)) as LockGrant;
      expect(first.token).toBe(1);
      expect(await store.lock("L", 1000)).toEqual({ key: "L", heldUntil: clock.now() + 1000 });
      clock.advance(500);
      const renewed = await store.renewLock(first, 1000);
      expect(renewed?.expiresAt).toBe(clock.now() + 1000);
      clock.advance(1000);
      // Lapsed: a second holder gets a higher token, and the first can neither renew nor write.
      const second = (await store.lock("L", 1000)) as LockGrant;
      expect(second.token).toBe(2);
      expect(await store.renewLock(first, 1000)).toBeUndefined();
      expect(await store.set("tok", "stale", { fence: { lock: "L", token: first.token } })).toMatchObject({
        ok: false,
        reason: "fence",
      });
      expect(await store.set("tok", "fresh", { fence: { lock: "L", token: second.token } })).toMatchObject({
        ok: true,
      });
      await store.unlock(first);
      expect(await store.lock("L", 1000)).toMatchObject({ heldUntil: expect.any(Number) });
      await store.unlock(second);
      // Released: the next holder still gets a newer token, and the released one still writes (no newer holder yet).
      expect(await store.set("tok", "after release", { fence: { lock: "L", token: second.token } })).toMatchObject({
        ok: true,
      });
      const third = (await store.lock("L", 1000)) as LockGrant;
      expect(third.token).toBe(3);
    });

    it("admits into slots up to capacity and says when to retry", async () => {
      const item = { kind: "slots" as const, key: "w", capacity: 2, holdMs: 10_000 };
      // Each admission says what is left after it (the budget gauge), from the same atomic step.
      expect(await store.admit([item], "a")).toEqual({ ok: true, remaining: [1] });
      clock.advance(100);
      expect(await store.admit([item], "b")).toEqual({ ok: true, remaining: [0] });
      const t = clock.now();
      expect(await store.admit([item], "c")).toEqual({
        ok: false,
        item: 0,
        exhausted: false,
        retryAt: t - 100 + 10_000,
      });
      // "a" completes: it counts for one window (1 s) from now.
      expect(await store.hold("w", "a", 1000)).toBe(true);
      expect(await store.admit([item], "c")).toEqual({ ok: false, item: 0, exhausted: false, retryAt: t + 1000 });
      clock.advance(1000);
      expect(await store.admit([item], "c")).toEqual({ ok: true, remaining: [0] });
      expect(await store.slots("w")).toEqual({ live: 2, blockedUntil: 0 });
      expect(await store.hold("w", "gone", 1000)).toBe(false);
      expect(await store.hold("w", "b", 0)).toBe(true);
      expect(await store.slots("w")).toEqual({ live: 1, blockedUntil: 0 });
    });

    it("frees a dead worker's lease when it lapses", async () => {
      const item = { kind: "slots" as const, key: "c", capacity: 1, holdMs: 5000 };
      expect((await store.admit([item], "worker-1")).ok).toBe(true);
      expect((await store.admit([item], "worker-2")).ok).toBe(false);
      clock.advance(5000);
      expect((await store.admit([item], "worker-2")).ok).toBe(true);
      expect(await store.hold("c", "worker-1", 5000)).toBe(false);
    });

    it("takes every item or none", async () => {
      const a = { kind: "slots" as const, key: "a", capacity: 5, holdMs: 1000 };
      const b = { kind: "slots" as const, key: "b", capacity: 1, holdMs: 1000 };
      expect((await store.admit([b], "x")).ok).toBe(true);
      expect(await store.admit([a, b], "y")).toMatchObject({ ok: false, item: 1 });
      expect(await store.slots("a")).toEqual({ live: 0, blockedUntil: 0 });
    });

    it("blocks slots until a time", async () => {
      const item = { kind: "slots" as const, key: "w", capacity: 10, holdMs: 1000 };
      await store.block("w", clock.now() + 30_000);
      expect(await store.admit([item], "a")).toEqual({
        ok: false,
        item: 0,
        exhausted: false,
        retryAt: clock.now() + 30_000,
      });
      clock.advance(30_000);
      expect((await store.admit([item], "a")).ok).toBe(true);
    });

    it("counts quotas until their reset, and refuses past them without waiting", async () => {
      const resetAt = clock.now() + 60_000;
      const item = { kind: "counter" as const, key: "day", limit: 2, cost: 1, resetAt };
      const slot = { kind: "slots" as const, key: "s", capacity: 100, holdMs: 1 };
      expect(await store.admit([item, slot], "1")).toEqual({ ok: true, remaining: [1, 99] });
      expect(await store.admit([item, slot], "2")).toEqual({ ok: true, remaining: [0, 98] });
      expect(await store.admit([item, slot], "3")).toEqual({ ok: false, item: 0, exhausted: true, resetAt });
      expect(await store.counter("day")).toEqual({ value: 2, resetAt });
      // A request that was never sent gives its unit back.
      expect(await store.addToCounter("day", -1, resetAt)).toBe(1);
      expect(await store.addToCounter("day", -5, resetAt)).toBe(0);
      await store.addToCounter("day", 2, resetAt);
      clock.set(resetAt);
      expect(await store.counter("day")).toBeUndefined();
      expect((await store.admit([{ ...item, resetAt: resetAt + 60_000 }], "4")).ok).toBe(true);
      expect(await store.counter("day")).toEqual({ value: 1, resetAt: resetAt + 60_000 });
    });

    it("spends a reported budget and admits while it is unknown", async () => {
      const item = { kind: "budget" as const, key: "points", cost: 2 };
      expect(await store.admit([item], "1")).toEqual({ ok: true, remaining: [undefined] });
      const resetAt = clock.now() + 1000;
      await store.setCounter("points", 3, resetAt);
      expect(await store.admit([item], "2")).toEqual({ ok: true, remaining: [1] });
      expect(await store.admit([item], "3")).toEqual({ ok: false, item: 0, exhausted: true, resetAt });
      clock.advance(1000);
      expect((await store.admit([item], "4")).ok).toBe(true);
      // Services report points with fractions (a call costing 1 + 0.01 per result): kept as they are.
      await store.setCounter("points", 2.5, clock.now() + 1000);
      expect(await store.admit([{ ...item, cost: 1.25 }], "5")).toEqual({ ok: true, remaining: [1.25] });
      expect((await store.counter("points"))?.value).toBe(1.25);
    });

    it("drops a repeat within the window and forgets it after", async () => {
      expect(await store.firstSeen("hooks", "d-1", 86_400_000)).toBe(true);
      expect(await store.firstSeen("hooks", "d-1", 86_400_000)).toBe(false);
      expect(await store.firstSeen("hooks", "__proto__", 86_400_000)).toBe(true);
      expect(await store.firstSeen("hooks", "__proto__", 86_400_000)).toBe(false);
      clock.advance(86_399_999);
      expect(await store.firstSeen("hooks", "d-1", 86_400_000)).toBe(false);
      clock.advance(86_400_000);
      expect(await store.firstSeen("hooks", "d-1", 86_400_000)).toBe(true);
      expect(await store.firstSeen("other", "d-1", 86_400_000)).toBe(true);
    });

    it("keeps ids like __proto__ as plain slot ids", async () => {
      const item = { kind: "slots" as const, key: "p", capacity: 2, holdMs: 1000 };
      expect((await store.admit([item], "__proto__")).ok).toBe(true);
      expect(await store.slots("p")).toEqual({ live: 1, blockedUntil: 0 });
      expect(await store.hold("p", "__proto__", 0)).toBe(true);
      expect(await store.slots("p")).toEqual({ live: 0, blockedUntil: 0 });
    });
  });
}
