/**
 * `stepforge lint`: the project's Spectral ruleset (.spectral.yaml: OpenAPI rules plus ours) and
 * the stepforge check stage (the one generate runs), reported together as file:line:col.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { packageBin } from "../runtime/internal/package-bin.js";
import { SpecError, type Diagnostic } from "./diagnostics.js";
import { loadSpecFile } from "./load.js";
import { checkSpec } from "./check/index.js";

const run = promisify(execFile);

interface SpectralResult {
  code: string | number;
  message: string;
  severity: number;
  source?: string;
  range: { start: { line: number; character: number } };
}

const spectralBin = () => packageBin("@stoplight/spectral-cli", "spectral");

export async function runSpectral(specFiles: string[], rulesetFile: string): Promise<Diagnostic[]> {
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [spectralBin(), "lint", "-r", rulesetFile, "-f", "json", "--quiet", "--fail-severity", "error", ...specFiles], {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1" },
    }));
  } catch (error) {
    // Spectral exits 1 when it found errors; its JSON is still on stdout.
    const e = error as { stdout?: string; stderr?: string; code?: number };
    if (!e.stdout?.trim().startsWith("[")) throw new Error(`spectral failed: ${(e.stderr ?? String(error)).trim().split("\n")[0]}`);
    stdout = e.stdout;
  }
  const results = JSON.parse(stdout.trim() || "[]") as SpectralResult[];
  return results.map((r) => ({
    code: String(r.code),
    severity: r.severity === 0 ? "error" : "warning",
    message: r.message,
    file: r.source ? relativeOrSame(r.source) : specFiles[0]!,
    line: r.range.start.line + 1,
    column: r.range.start.character + 1,
  }));
}

function relativeOrSame(file: string): string {
  const cwd = process.cwd();
  const abs = resolve(file);
  return abs.startsWith(cwd + "/") ? abs.slice(cwd.length + 1) : file;
}

export async function lintSpecs(specFiles: string[], rulesetFile: string): Promise<Diagnostic[]> {
  const found: Diagnostic[] = [];
  for (const file of specFiles) {
    try {
      // The same check stage generate runs (tool steps included), so both agree; warnings too.
      found.push(...checkSpec(loadSpecFile(file)).warnings);
    } catch (error) {
      if (error instanceof SpecError) found.push(...error.diagnostics);
      else throw error;
    }
  }
  found.push(...(await runSpectral(specFiles, rulesetFile)));
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code));
}
