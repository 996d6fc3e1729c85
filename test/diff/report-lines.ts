/**
 * The report `stepforge diff` gives for one edit of a spec, one line a change: breaking (B) or
 * compatible (c), kind, target, detail and what decided it, so a test reads the whole verdict.
 */
import { compareSpecs } from "../../generator/diff/index.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { loadSpecText } from "../../generator/load.js";

export type Json = Record<string, any>;

/** Compares `old` with a copy of it that `edit` changed (`old` itself is left as it is). */
export async function reportLines(old: Json, edit: (doc: Json) => void, service = "widgets"): Promise<string[]> {
  const now = structuredClone(old);
  edit(now);
  const model = (doc: Json, file: string) => checkForDiff(loadSpecText(file, JSON.stringify(doc)), service);
  const result = await compareSpecs(model(old, "old.json"), model(now, "new.json"));
  return result.changes.map((c) => `${c.breaking ? "B" : "c"} ${c.kind} ${c.target}: ${c.detail} [${c.decidedBy}]`);
}
