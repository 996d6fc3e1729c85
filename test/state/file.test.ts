import { mkdirSync, mkdtempSync, rmSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStateStore } from "../../runtime/state/file.js";
import { describeStateStore } from "./conformance.js";

let dir = "";
describeStateStore(
  "file",
  async (clock) => {
    dir = mkdtempSync(join(tmpdir(), "sf-state-"));
    return new FileStateStore(join(dir, "state"), { clock });
  },
  async () => rmSync(dir, { recursive: true, force: true }),
);

describe("FileStateStore", () => {
  it(
    "keeps its folder and files private, and names no secret-looking key in a file name " + "it cannot shorten",
    async () => {
      const root = mkdtempSync(join(tmpdir(), "sf-state-"));
      try {
        const store = new FileStateStore(join(root, "state"));
        await store.set("conn:x", { token: "t" });
        await store.set("k".repeat(400), 1);
        expect(statSync(join(root, "state")).mode & 0o777).toBe(0o700);
        const names = readdirSync(join(root, "state")).filter((n) => !n.startsWith("."));
        for (const name of names) expect(statSync(join(root, "state", name)).mode & 0o777).toBe(0o600);
        expect(names.some((n) => n.startsWith("h_"))).toBe(true);
        expect(await store.keys("k")).toEqual(["k".repeat(400)]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});

describe("a process's turn at the folder's lock", () => {
  it("takes all asked while another process held the lock: in order, each one whole or not at all", async () => {
    const root = mkdtempSync(join(tmpdir(), "sf-turn-"));
    try {
      const store = new FileStateStore(join(root, "state"));
      await store.set("before", 1);
      expect(store.turns).toBe(1);
      // Another process holds the lock (a fresh lock directory: a live holder).
      mkdirSync(join(root, "state", ".state.lock"));
      const counts = Array.from({ length: 10 }, () => store.addToCounter("hits", 1, Date.now() + 60_000));
      // An operation that fails after a write: the store's own steps cannot be made to, so it is asked
      // through the private entry every operation goes through.
      const failing = (
        store as unknown as { run(step: (tx: { write(k: string, e: unknown): void }) => never): Promise<never> }
      ).run((tx) => {
        tx.write("torn", { half: true });
        throw new Error("the step failed");
      });
      const read = store.get("before");
      setTimeout(() => rmSync(join(root, "state", ".state.lock"), { recursive: true }), 300);
      expect(await Promise.all(counts)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      await expect(failing).rejects.toThrow("the step failed");
      expect((await read)?.value).toBe(1);
      // All twelve in one turn, and nothing of the failed one written.
      expect(store.turns).toBe(2);
      expect(readdirSync(join(root, "state")).filter((n) => n.includes("torn"))).toEqual([]);
      expect(await store.addToCounter("hits", 1, Date.now() + 60_000)).toBe(11);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("splits what piled up into turns of at most 64 operations, keeping the order across them", async () => {
    const root = mkdtempSync(join(tmpdir(), "sf-turns-"));
    try {
      const store = new FileStateStore(join(root, "state"));
      await store.set("before", 1);
      mkdirSync(join(root, "state", ".state.lock"));
      const counts = Array.from({ length: 130 }, () => store.addToCounter("hits", 1, Date.now() + 60_000));
      setTimeout(() => rmSync(join(root, "state", ".state.lock"), { recursive: true }), 300);
      expect(await Promise.all(counts)).toEqual(Array.from({ length: 130 }, (_, i) => i + 1));
      // 64 + 64 + 2, after the first write's turn.
      expect(store.turns).toBe(4);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the file lock", () => {
  it(
    "takes over a lock left by a dead process, and gives up on a live one after its bound " + "with a typed error",
    async () => {
      const { mkdirSync, utimesSync } = await import("node:fs");
      const { withFileLock, FileLockTimeoutError, StateUnavailableError } = await import(
        "../../runtime/state/index.js"
      );
      const root = mkdtempSync(join(tmpdir(), "sf-lock-"));
      try {
        const target = join(root, "connections.json");
        // A lock whose holder stopped refreshing it a minute ago: a dead process.
        mkdirSync(`${target}.lock`);
        const old = new Date(Date.now() - 60_000);
        utimesSync(`${target}.lock`, old, old);
        expect(await withFileLock(target, () => "ran", { staleMs: 2000, timeoutMs: 5000 })).toBe("ran");

        // A live holder (fresh lock): the waiter gives up after its bound.
        mkdirSync(`${target}.lock`);
        await expect(withFileLock(target, () => "ran", { staleMs: 60_000, timeoutMs: 200 })).rejects.toBeInstanceOf(
          FileLockTimeoutError,
        );
        const store = new FileStateStore(join(root, "state"), { lockTimeoutMs: 200 });
        mkdirSync(join(root, "state", ".state.lock"), { recursive: true });
        await expect(store.get("x")).rejects.toBeInstanceOf(StateUnavailableError);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
