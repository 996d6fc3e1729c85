/**
 * The report `stepforge diff` gives for one edit of a spec, one line a change: breaking (B) or
 * compatible (c), kind, target, detail and what decided it, so a test reads the whole verdict.
 *
 * Each report is made twice: the way `stepforge diff` makes it, with the operations the edit left
 * alone stubbed on both sides (generator/diff/unchanged.ts), and from the whole documents. The two
 * must be the same: every kind-of-change test is also a test of the stubbing. The whole documents
 * are checked with every part of the check stage (check/zod-parts.ts), the stubbed ones with the
 * parts the command picks (none for a plain spec: check/parts.ts), so it is a test of that too.
 */
import { expect } from "vitest";
import { compareSpecs } from "../../generator/diff/index.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { checkForDiff, checkSidesForDiff, partsForDiff } from "../../generator/diff/specs.js";
import { loadSpecText } from "../../generator/load.js";

export type Json = Record<string, any>;

/** Compares `old` with a copy of it that `edit` changed (`old` itself is left as it is). */
export async function reportLines(old: Json, edit: (doc: Json) => void, service = "widgets"): Promise<string[]> {
  const now = structuredClone(old);
  edit(now);
  const [oldSpec, nowSpec] = [
    loadSpecText("old.json", JSON.stringify(old)),
    loadSpecText("new.json", JSON.stringify(now)),
  ];
  const parts = await partsForDiff(oldSpec, nowSpec);
  const stubbed = await compareSpecs(...checkSidesForDiff(oldSpec, nowSpec, service, parts));
  const whole = await compareSpecs(
    checkForDiff(oldSpec, service, EXTENSION_PARTS),
    checkForDiff(nowSpec, service, EXTENSION_PARTS),
  );
  expect(stubbed).toEqual(whole);
  return stubbed.changes.map((c) => `${c.breaking ? "B" : "c"} ${c.kind} ${c.target}: ${c.detail} [${c.decidedBy}]`);
}
