/**
 * Spectral in `stepforge lint`: its run (the CLI, an optional peer dependency) and how its findings
 * join the check stage's without contradicting them.
 *
 * The check stage decides the verdict, in lint as in generate. Spectral's findings are advice:
 * - a finding about a defect the check stage reports too (the same rule's defect at the same node,
 *   or a node inside it) is left out: the check stage's diagnostic says it, with its severity and,
 *   in a lenient spec, the repair generate makes;
 * - a finding that follows from a broken `$ref` (the component it meant now looks unused) is left
 *   out: the SF107 names that component;
 * - every other finding is a warning: generate writes code for the spec regardless, so an error
 *   here would be a verdict generate does not share.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { packageBin } from "../runtime/internal/package-bin.js";
import type { DiagnosticCode } from "./catalogue.js";
import { toPointer, type Diagnostic } from "./diagnostics.js";

const run = promisify(execFile);

interface SpectralResult {
  code: string | number;
  message: string;
  severity: number;
  path?: Array<string | number>;
  source?: string;
  range: { start: { line: number; character: number } };
}

/** A Spectral finding with the absolute file it is about. */
export interface SpectralFinding extends Diagnostic {
  source: string;
}

/**
 * Spectral rules whose defects the check stage reports itself, with the codes it reports them
 * under. A rule not listed here is advice only.
 */
export const COVERED_BY: Readonly<Record<string, readonly DiagnosticCode[]>> = {
  parser: ["SF002"],
  "invalid-ref": ["SF106", "SF107"],
  "oas3-schema": ["SF102", "SF103", "SF110", "SF111", "SF115", "SF116", "SF191"],
  "path-params": ["SF113", "SF114", "SF115", "SF191"],
  "operation-operationId": ["SF117"],
  "operation-operationId-unique": ["SF112", "SF118"],
  "oas3-valid-media-example": ["SF192"],
  "oas3-valid-schema-example": ["SF192"],
};

/** Rules that say a component is unused: after a `$ref` typo, the component it meant is. */
const UNUSED_RULES = new Set(["oas3-unused-component"]);

const spectralBin = () => packageBin("@stoplight/spectral-cli", "spectral");

/** Spectral's findings on `specFiles` (absolute paths) with the ruleset, severities as Spectral gives them. */
export async function runSpectral(specFiles: string[], rulesetFile: string): Promise<SpectralFinding[]> {
  if (specFiles.length === 0) return [];
  let stdout: string;
  try {
    const args = [
      spectralBin(),
      "lint",
      "-r",
      rulesetFile,
      "-f",
      "json",
      "--quiet",
      "--fail-severity",
      "error",
      ...specFiles,
    ];
    ({ stdout } = await run(process.execPath, args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1" },
    }));
  } catch (error) {
    // Spectral exits 1 when it found errors; its JSON is still on stdout.
    const e = error as { stdout?: string; stderr?: string };
    if (!e.stdout?.trim().startsWith("["))
      throw new Error(`spectral failed: ${(e.stderr ?? String(error)).trim().split("\n")[0]}`);
    stdout = e.stdout;
  }
  const results = JSON.parse(stdout.trim() || "[]") as SpectralResult[];
  return results.map((r) => ({
    code: String(r.code),
    severity: r.severity === 0 ? "error" : "warning",
    message: r.message,
    file: r.source ?? specFiles[0]!,
    source: r.source ?? specFiles[0]!,
    line: r.range.start.line + 1,
    column: r.range.start.character + 1,
    ...(r.path ? { pointer: toPointer(r.path) } : {}),
  }));
}

/** True when one pointer is the other or inside it. */
function overlaps(a: string, b: string): boolean {
  if (a === "/" || b === "/") return true;
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Spectral's findings on one spec, as lint reports them beside the check stage's `checked`
 * findings on the same spec: duplicates and consequences left out, the rest warnings.
 */
export function reconcile(spectral: readonly Diagnostic[], checked: readonly Diagnostic[]): Diagnostic[] {
  const meant = new Set(checked.map((d) => d.related).filter((p): p is string => p !== undefined));
  return spectral
    .filter((finding) => {
      const pointer = finding.pointer;
      if (pointer === undefined) return true;
      if (UNUSED_RULES.has(finding.code) && meant.has(pointer)) return false;
      const codes = COVERED_BY[finding.code];
      return (
        !codes?.length ||
        !checked.some(
          (d) => codes.includes(d.code as DiagnosticCode) && d.pointer !== undefined && overlaps(d.pointer, pointer),
        )
      );
    })
    .map((finding) => (finding.severity === "error" ? { ...finding, severity: "warning" as const } : finding));
}
