import { mkdtempSync, rmSync, statSync, readdirSync } from "node:fs";
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
