/**
 * TokenCache across "processes": two caches sharing one state store (each cache is what one
 * process holds), a renewer that dies holding the lock, and a renewer that lost its lock.
 */
import { describe, expect, it } from "vitest";
import { MemoryStateStore } from "../../runtime/state/index.js";
import { TokenCache, type TokenEntry } from "../../runtime/credentials/tokens.js";

const hour = () => Date.now() + 3_600_000;

describe("TokenCache on a shared store", () => {
  it("a second process finds the token the first renewed instead of renewing again", async () => {
    const store = new MemoryStateStore();
    const [a, b] = [new TokenCache({ store }), new TokenCache({ store })];
    let requests = 0;
    const renew = async (): Promise<TokenEntry> => {
      requests++;
      await new Promise((r) => setTimeout(r, 30));
      return { accessToken: `t${requests}`, expiresAt: hour() };
    };
    const tokens = await Promise.all([
      a.get("k", 300_000, renew),
      b.get("k", 300_000, renew),
      a.get("k", 300_000, renew),
    ]);
    expect(tokens.map((t) => t.accessToken)).toEqual(["t1", "t1", "t1"]);
    expect(requests).toBe(1);
  });

  it("a renewer that died holding the lock blocks the others only until the lock lapses", async () => {
    const store = new MemoryStateStore();
    const grant = await store.lock(`token-renewal:${(await import("../../runtime/state/keys.js")).hashed("k")}`, 100);
    expect("token" in grant).toBe(true);
    const cache = new TokenCache({ store, lockTtlMs: 100 });
    const token = await cache.get("k", 0, async () => ({ accessToken: "after-lapse", expiresAt: hour() }));
    expect(token.accessToken).toBe("after-lapse");
  });

  it("a renewer whose lock lapsed mid-renewal does not overwrite the newer token", async () => {
    const store = new MemoryStateStore();
    const slow = new TokenCache({ store, lockTtlMs: 50 });
    const fast = new TokenCache({ store, lockTtlMs: 50 });
    let finishSlow!: () => void;
    const slowToken = slow.get(
      "k",
      0,
      () =>
        new Promise<TokenEntry>((resolve) => (finishSlow = () => resolve({ accessToken: "stale", expiresAt: hour() }))),
    );
    await new Promise((r) => setTimeout(r, 80));
    const fresh = await fast.get("k", 0, async () => ({ accessToken: "newer", expiresAt: hour() }));
    expect(fresh.accessToken).toBe("newer");
    finishSlow();
    // The slow holder's write is refused (fence, then version): it adopts the newer token.
    expect((await slowToken).accessToken).toBe("newer");
    const third = new TokenCache({ store });
    expect((await third.get("k", 0, async () => ({ accessToken: "unexpected" }))).accessToken).toBe("newer");
  });

  it(
    "after a refused renewal, re-reads the shared record once and renews from a rotated " + "refresh token found there",
    async () => {
      const store = new MemoryStateStore();
      const cache = new TokenCache({ store });
      cache.seed("k", { accessToken: "a0", refreshToken: "r0", expiresAt: Date.now() - 1 });
      const seen: Array<string | undefined> = [];
      const token = await cache.get("k", 0, async (current) => {
        seen.push(current?.refreshToken);
        if (current?.refreshToken === "r0") {
          // Meanwhile another worker rotated r0 → r1 and stored it (its access token already spent).
          await store.set(`token:${(await import("../../runtime/state/keys.js")).hashed("k")}`, {
            accessToken: "a1",
            refreshToken: "r1",
            expiresAt: Date.now() - 1,
          });
          throw Object.assign(new Error("invalid_grant"), { retryable: false });
        }
        return { accessToken: "a2", refreshToken: "r2", expiresAt: hour() };
      });
      expect(seen).toEqual(["r0", "r1"]);
      expect(token.accessToken).toBe("a2");
    },
  );
});
