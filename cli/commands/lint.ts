/**
 * `stepforge lint [--spec FILE]... [--project DIR]`: Spectral with stepforge's ruleset, plus the
 * check stage generate runs (extensions included). It lints what the other commands work on: the
 * --spec files, else the project's specs (stepforge.config.*), else the bundled ones.
 */
import { join } from "node:path";
import { formatDiagnostic } from "../../generator/diagnostics.js";
import { lintSpecs } from "../../generator/lint.js";
import { packageRoot } from "../../generator/package-root.js";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { flagsOf, SCOPE_OPTIONS } from "../flags.js";
import { resolveScope } from "../project.js";
import { COMMAND_PACKAGES } from "../command-packages.js";

export async function lintCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = flagsOf(argv, SCOPE_OPTIONS);
  // Spectral is an optional peer dependency: say how to add it before doing any work.
  requirePackages("linting with Spectral", COMMAND_PACKAGES.lint.packages);
  const scope = await resolveScope({ specs: values.spec, project: values.project, sameIdsAllowed: true });
  const specs = scope.services.map((s) => s.specFile);
  const found = await lintSpecs(specs, join(packageRoot(), ".spectral.yaml"));
  for (const d of found) out.write(`${formatDiagnostic(d)}\n`);
  const errors = found.filter((d) => d.severity === "error").length;
  const warnings = found.length - errors;
  const what = scope.project ? ` (${scope.project.file})` : "";
  out.write(
    `${plural(specs.length, "spec")} linted${what}: ${plural(errors, "error")}, ${plural(warnings, "warning")}\n`,
  );
  return errors > 0 ? 1 : 0;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
