/**
 * `stepforge diff OLD NEW [--json] [--service ID]`: the API changes between two versions of a spec
 * (files, or git revisions such as HEAD~1:specs/trello.yaml), each breaking or compatible, and the
 * semver bump they ask for. Nothing is generated or written. Exit 0 when both specs were read and
 * compared (whatever changed), 1 when one could not be read or checked, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { UsageError } from "../usage.js";

export async function diffCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: "boolean", default: false }, service: { type: "string" } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 2)
    throw new UsageError(`name two specs, the old then the new (files or REV:PATH); got ${positionals.length}`);
  // The checker compares declarations openapi-typescript writes, with the compiler it runs on.
  requirePackages("stepforge diff: comparing declarations", ["openapi-typescript", "typescript"]);
  const { compareSpecs } = await import("../../generator/diff/index.js");
  const { checkForDiff, loadSide } = await import("../../generator/diff/specs.js");
  const { reportJson, reportText } = await import("../../generator/diff/report.js");
  const [old, now] = positionals.map((arg) => checkForDiff(loadSide(arg), values.service)) as [
    ReturnType<typeof checkForDiff>,
    ReturnType<typeof checkForDiff>,
  ];
  const report = await compareSpecs(old, now);
  const versions = new Map([[report.service, old.version]]);
  out.write(values.json ? reportJson([report], versions) : reportText(report, old.version));
  return 0;
}
