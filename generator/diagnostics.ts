/**
 * Diagnostics: every problem the pipeline finds, with a stable code, the place in the spec
 * (file:line:col) and a message that says what to change.
 */
export type Severity = "error" | "warning";

export interface Diagnostic {
  /** Stable code, e.g. SF102; documented in docs/diagnostics.md. */
  code: string;
  severity: Severity;
  message: string;
  file: string;
  line: number;
  column: number;
  /** JSON pointer of the offending node, when known. */
  pointer?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`;
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
