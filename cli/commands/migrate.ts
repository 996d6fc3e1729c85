/**
 * `stepforge migrate [PATHS] [--dry-run]`: rewrites a consumer project's calls after renames in the
 * generated code it uses (operations, parameters, tool step names), from the names each service's
 * surface.json records, and lists with file:line:column what it cannot fix (generator/diff/migrate.ts).
 * Run it in the consumer's project (where its tsconfig.json is) after `stepforge generate`.
 *
 * Exit 0 when nothing is left to fix by hand, 1 when something is (listed on stderr), 2 on a usage
 * error. --dry-run writes nothing and prints the rewrite as a unified diff.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { flagsAndWordsOf } from "../flags.js";
import { COMMAND_PACKAGES } from "../command-packages.js";

export async function migrateCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const { values, positionals } = flagsAndWordsOf(argv, { "dry-run": { type: "boolean", default: false } });
  requirePackages(
    "stepforge migrate: rewriting call sites",
    values["dry-run"] ? [...COMMAND_PACKAGES.migrate.packages, "diff"] : COMMAND_PACKAGES.migrate.packages,
  );
  const { migrateProject } = await import("../../generator/diff/migrate.js");
  const cwd = process.cwd();
  const result = migrateProject(cwd, positionals);
  if (result.services.length === 0) {
    err.write(
      "stepforge migrate: the project reaches no generated service with a surface.json " +
        "(run stepforge generate first, then migrate where your tsconfig.json is)\n",
    );
    return 1;
  }
  if (values["dry-run"]) {
    const { createTwoFilesPatch } = await import("diff");
    for (const change of result.changes)
      out.write(
        createTwoFilesPatch(`a/${change.file}`, `b/${change.file}`, change.before, change.after, "", "", {
          context: 3,
        }),
      );
  } else {
    for (const change of result.changes) writeFileSync(resolve(cwd, change.file), change.after);
  }
  const fixes = result.changes.reduce((n, c) => n + c.fixes.length, 0);
  for (const change of result.changes)
    for (const fix of change.fixes) (values["dry-run"] ? err : out).write(`${change.file}:${fix}\n`);
  const verb = values["dry-run"] ? "would rewrite" : "rewrote";
  (values["dry-run"] ? err : out).write(
    `${verb} ${fixes} call site${fixes === 1 ? "" : "s"} in ${result.changes.length} file` +
      `${result.changes.length === 1 ? "" : "s"} (${result.services.join(", ")})\n`,
  );
  for (const r of result.refused) err.write(`${r.file}:${r.line}:${r.column} cannot fix: ${r.message}\n`);
  if (result.refused.length > 0)
    err.write(
      `stepforge migrate: ${result.refused.length} call site${result.refused.length === 1 ? "" : "s"} ` +
        `to fix by hand (listed above)\n`,
    );
  return result.refused.length > 0 ? 1 : 0;
}
