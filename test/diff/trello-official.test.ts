/**
 * Atlassian's official Trello spec (255 operations, OpenAPI 3.0, not written for stepforge) against
 * a copy with planted changes (test/diff/trello-planted.ts): the report lists every one of them,
 * with the verdict each deserves, and nothing about the operations left alone.
 */
import { describe, expect, it } from "vitest";
import { compareSpecs } from "../../generator/diff/index.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { NO_PARTS } from "../../generator/check/parts.js";
import { checkForDiff, checkSidesForDiff, partsForDiff } from "../../generator/diff/specs.js";
import { stubUnchanged } from "../../generator/diff/unchanged.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import { plantedTrello, TRELLO_OFFICIAL } from "./trello-planted.js";

describe("diff of the official Trello spec against an edited copy", { timeout: 300_000 }, () => {
  it("finds every planted change, breaking where it should be", async () => {
    const { text, planted } = plantedTrello();
    const [oldSpec, nowSpec] = [loadSpecFile(TRELLO_OFFICIAL), loadSpecText("trello-edited.json", text)];
    const old = checkForDiff(oldSpec, "trello", EXTENSION_PARTS);
    const now = checkForDiff(nowSpec, "trello", EXTENSION_PARTS);
    expect(old.operations.length).toBe(255);
    const report = await compareSpecs(old, now);
    // What `stepforge diff` runs: the operations no edit reached are stubs on both sides, and the
    // report is the same to the letter.
    expect(stubUnchanged(oldSpec.data, nowSpec.data)?.stubs).toBeGreaterThan(150);
    // A plain spec on both sides: checked with no zod-backed part (check/parts.ts), the same report.
    const parts = await partsForDiff(oldSpec, nowSpec);
    expect(parts).toBe(NO_PARTS);
    expect(await compareSpecs(...checkSidesForDiff(oldSpec, nowSpec, "trello", parts))).toEqual(report);
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
