/** After the flows: console output, hook coverage, and every file the flows and the generator wrote. */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { packageRoot } from "../../../generator/package-root.js";
import { describeLeaks, filesUnder, mask, scanFiles } from "../markers.js";
import { capture, expectNoLeaks, generated, needles, storeFiles, writtenDirs } from "./harness.js";
import { stopOutputCapture } from "./harness.js";

export function outputAndFileChecks(): void {
  it("nothing printed to the console, stdout or stderr during the flows carries a marker", () => {
    stopOutputCapture();
    expectNoLeaks();
  });

  it("the flows produced every kind of hook event (so the scan saw them)", () => {
    const kinds = new Set(capture.events.map((e) => (e.type === "token" ? `token:${e.action}` : e.type)));
    for (const kind of [
      "request",
      "response",
      "retry",
      "throttle",
      "token:fetched",
      "token:refreshed",
      "token:rotated",
      "token:invalidated",
      "token:failed",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it(
    "generated/, a freshly generated client, snapshot files and the files the flows wrote " +
      "carry no marker; stores are 0600",
    async () => {
      const root = packageRoot();
      const gen = await generated;
      capture.add("generate process stdout", gen.stdout);
      capture.add("generate process stderr", gen.stderr);
      expect(gen.code, mask(gen.stderr, needles())).toBe(0);
      expectNoLeaks();

      const n = needles();
      const skip = new Set(["node_modules", ".git", "dist"]);
      const files = [
        ...filesUnder(join(root, "generated")),
        ...filesUnder(gen.out),
        // Snapshot files anywhere in the repository (vitest's __snapshots__ and *.snap).
        ...filesUnder(root, skip).filter((f) => /[\\/]__snapshots__[\\/]/.test(f) || f.endsWith(".snap")),
        // What the flows wrote, except the connection stores (credential stores by design).
        ...writtenDirs.flatMap((d) => filesUnder(d)).filter((f) => !f.startsWith(gen.out) && !storeFiles.includes(f)),
      ];
      expect(files.length).toBeGreaterThan(20);
      const leaks = scanFiles([...new Set(files)], n, root);
      expect(leaks, `secret markers in files:\n${describeLeaks(leaks)}`).toEqual([]);

      for (const file of storeFiles) {
        const info = await stat(file).catch(() => undefined);
        if (!info) continue;
        expect((info.mode & 0o777).toString(8), file).toBe("600");
        // No temporary files were left beside a store.
        const siblings = await readdir(join(file, ".."));
        expect(
          siblings.filter((s) => s.endsWith(".tmp")),
          file,
        ).toEqual([]);
      }
    },
  );
}
