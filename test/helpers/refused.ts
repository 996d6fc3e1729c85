/** What the check stage refuses a spec for, read in-process (load, then check). */
import { checkSpec } from "../../generator/check/index.js";
import { type Diagnostic, SpecError } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";

/** The diagnostics the spec `text` (read as `file`) is refused with; throws when it is accepted. */
export function refusedFor(file: string, text: string): Diagnostic[] {
  try {
    checkSpec(loadSpecText(file, text));
  } catch (error) {
    if (error instanceof SpecError) return error.diagnostics;
    throw error;
  }
  throw new Error("expected the spec to be refused");
}
