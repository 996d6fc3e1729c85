/** `stepforge lint [--spec FILE]...`: Spectral with the project ruleset, plus extension validation. */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatDiagnostic } from "../../generator/diagnostics.js";
import { lintSpecs } from "../../generator/lint.js";
import { packageRoot } from "../../generator/package-root.js";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { projectSpecs } from "../project.js";

export async function lintCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { spec: { type: "string", multiple: true } }, strict: true, allowPositionals: false });
  // Spectral is an optional peer dependency: say how to add it before doing any work.
  requirePackages("linting with Spectral", ["@stoplight/spectral-cli"]);
  const root = packageRoot();
  const specs = values.spec?.length ? values.spec.map((s) => resolve(s)) : projectSpecs(root);
  const found = await lintSpecs(specs, join(root, ".spectral.yaml"));
  for (const d of found) out.write(`${formatDiagnostic(d)}\n`);
  const errors = found.filter((d) => d.severity === "error").length;
  const warnings = found.length - errors;
  out.write(`${specs.length} spec${specs.length === 1 ? "" : "s"} linted: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
  return errors > 0 ? 1 : 0;
}
