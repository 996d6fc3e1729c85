/**
 * Atlassian's official Trello spec (255 operations, OpenAPI 3.0, not written for stepforge) against
 * a copy with planted changes (test/diff/trello-planted.ts): the report lists every one of them,
 * with the verdict each deserves, and nothing about the operations left alone.
 */
import { describe, expect, it } from "vitest";
import { warmUpInput } from "../../generator/diff/checker-warm-up.js";
import { compareSpecs } from "../../generator/diff/index.js";
import { checkPairs } from "../../generator/diff/typecheck.js";
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

describe("the checker thread's warm-up pass", () => {
  // It must stay a real pass (declarations written, aliases resolved, every kind of walk taken) for
  // V8 to compile what the first real pass runs; a warm-up whose input broke would quietly warm nothing.
  it("walks requests and responses through objects, enums, arrays, maps, unions and nullability", () => {
    const kinds = new Set(checkPairs(warmUpInput()).map((c) => `${c.kind} ${c.breaking ? "breaking" : "compatible"}`));
    expect([...kinds].sort()).toMatchInlineSnapshot(`
      [
        "parameter-enum-value-added compatible",
        "parameter-enum-value-removed breaking",
        "parameter-required breaking",
        "parameter-type-changed breaking",
        "request-enum-value-added compatible",
        "request-enum-value-removed breaking",
        "request-field-added breaking",
        "response-enum-value-added breaking",
        "response-enum-value-removed compatible",
        "response-field-removed breaking",
        "response-field-required breaking",
        "response-type-changed breaking",
        "response-type-changed compatible",
      ]
    `);
  });
});
