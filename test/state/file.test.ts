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
  it("keeps its folder and files private, and names no secret-looking key in a file name it cannot shorten", async () => {
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
  });
});
