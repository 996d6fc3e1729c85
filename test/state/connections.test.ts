/**
 * Connection records on the state layer: StateConnectionStore (compare-and-swap updates, rotation
 * one holder at a time with a fenced write) on the memory and file backends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileStateStore, MemoryStateStore, StateConnectionStore, type StateStore } from "../../runtime/index.js";
import { descriptor as contentsnare } from "../../generated/contentsnare/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const backends: Array<[string, () => StateStore]> = [
  ["memory", () => new MemoryStateStore()],
  [
    "file",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "sf-conn-state-"));
      dirs.push(dir);
      return new FileStateStore(join(dir, "state"));
    },
  ],
];

const fields = { clientId: "cid", clientSecret: "secret", accessToken: "a-0", refreshToken: "r-0" };

describe.each(backends)("StateConnectionStore on the %s backend", (_name, make) => {
  it("stores, lists, merges fields per connection and removes", async () => {
    const store = new StateConnectionStore(make());
    await store.put(contentsnare, { name: "one", fields });
    await store.put(contentsnare, { name: "two", fields: { ...fields, refreshToken: "r-two" } });
    expect(await store.list("contentsnare")).toEqual([
      { service: "contentsnare", name: "one" },
      { service: "contentsnare", name: "two" },
    ]);
    await Promise.all([
      store.updateFields("contentsnare", "one", { accessToken: "a-1" }),
      store.updateFields("contentsnare", "two", { accessToken: "a-2" }),
    ]);
    expect((await store.get("contentsnare", "one"))!.fields).toMatchObject({ accessToken: "a-1", refreshToken: "r-0" });
    expect((await store.get("contentsnare", "two"))!.fields).toMatchObject({
      accessToken: "a-2",
      refreshToken: "r-two",
    });
    await store.updateFields("contentsnare", "nobody", { accessToken: "x" });
    expect(await store.get("contentsnare", "nobody")).toBeUndefined();
    expect(await store.remove("contentsnare", "one")).toBe(true);
    expect(await store.list()).toEqual([{ service: "contentsnare", name: "two" }]);
  });

  it("rotates one holder at a time: the second finds the first one's tokens", async () => {
    const store = new StateConnectionStore(make());
    await store.put(contentsnare, { name: "one", fields });
    let refreshes = 0;
    const renew = () =>
      store.rotate("contentsnare", "one", async (stored) => {
        if (stored!.fields.refreshToken !== "r-0") return { result: `adopted ${stored!.fields.accessToken}` };
        refreshes++;
        await new Promise((r) => setTimeout(r, 20));
        return { fields: { accessToken: "a-1", refreshToken: "r-1" }, result: "refreshed" };
      });
    expect((await Promise.all([renew(), renew()])).sort()).toEqual(["adopted a-1", "refreshed"]);
    expect(refreshes).toBe(1);
    expect((await store.get("contentsnare", "one"))!.fields).toMatchObject({ accessToken: "a-1", refreshToken: "r-1" });
  });

  it("a holder whose lock lapsed does not overwrite what the next holder wrote", async () => {
    const state = make();
    const store = new StateConnectionStore(state, 50);
    await store.put(contentsnare, { name: "one", fields });
    let release!: () => void;
    const slow = store.rotate("contentsnare", "one", async () => {
      await new Promise<void>((r) => (release = r));
      return { fields: { refreshToken: "r-stale" }, result: "slow" };
    });
    // Wait until the slow holder's lock lapses, then a second holder rotates.
    await new Promise((r) => setTimeout(r, 80));
    await store.rotate("contentsnare", "one", async () => ({ fields: { refreshToken: "r-new" }, result: "fast" }));
    release();
    await slow;
    expect((await store.get("contentsnare", "one"))!.fields.refreshToken).toBe("r-new");
  });
});
