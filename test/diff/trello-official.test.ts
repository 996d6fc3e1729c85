/**
 * Atlassian's official Trello spec (255 operations, OpenAPI 3.0, not written for stepforge) against
 * a copy with planted changes (test/diff/trello-planted.ts): the report lists every one of them,
 * with the verdict each deserves, and nothing about the operations left alone.
 */
import { describe, expect, it } from "vitest";
import { compareSpecs } from "../../generator/diff/index.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import { plantedTrello, TRELLO_OFFICIAL } from "./trello-planted.js";

describe("diff of the official Trello spec against an edited copy", { timeout: 300_000 }, () => {
  it("finds every planted change, breaking where it should be", async () => {
    const { text, planted } = plantedTrello();
    const old = checkForDiff(loadSpecFile(TRELLO_OFFICIAL), "trello");
    const now = checkForDiff(loadSpecText("trello-edited.json", text), "trello");
    expect(old.operations.length).toBe(255);
    const report = await compareSpecs(old, now);
    const missing = planted.filter(
      ({ expect: e }) =>
        !report.changes.some(
          (c) => c.kind === e.kind && c.breaking === e.breaking && c.target === e.target && c.detail.includes(e.detail),
        ),
    );
    expect(missing.map((p) => p.edit)).toEqual([]);
    // Only operations the edits touch are reported (the schemas they share included).
    const touched = new Set(report.changes.filter((c) => !c.target.startsWith("trello_")).map((c) => c.target));
    expect(touched.size).toBeLessThan(60);
    expect(report.checked).toBeLessThan(80);
  });
});
