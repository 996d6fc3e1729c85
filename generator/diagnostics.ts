/**
 * Diagnostics: every problem the pipeline finds, with a stable code, the place in the spec
 * (file:line:col) and a message that says what to change.
 */
import type { DiagnosticCode } from "./catalogue.js";

export type Severity = "error" | "warning";

export interface Diagnostic {
  /**
   * Stable code from the catalogue (catalogue.ts), e.g. SF102; documented in docs/diagnostics.md. Spectral's rule names
   * in `lint`.
   */
  code: DiagnosticCode | (string & {});
  severity: Severity;
  message: string;
  file: string;
  line: number;
  column: number;
  /** JSON pointer of the offending node, when known. */
  pointer?: string;
  /**
   * JSON pointer of another node the finding is about: the existing target a broken `$ref` most
   * likely meant. lint leaves out what follows from the mistake there (that target looks unused).
   */
  related?: string;
}

/** `file:line:col severity CODE message (at /json/pointer)`: the pointer finds the place in one-line JSON too. */
export function formatDiagnostic(d: Diagnostic): string {
  const at = d.pointer !== undefined && d.pointer !== "/" ? ` (at ${d.pointer})` : "";
  return `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}${at}`;
}

/** Thrown when a stage cannot go on; carries every diagnostic found so far. */
export class SpecError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "SpecError";
  }
}

export function toPointer(path: ReadonlyArray<string | number>): string {
  return "/" + path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}
