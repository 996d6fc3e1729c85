/**
 * `stepforge diff OLD NEW [--json] [--service ID] [--fail-on-breaking]`: the API changes between two
 * versions of a spec (files, or git revisions such as HEAD~1:specs/trello.yaml), each breaking or
 * compatible, and the semver bump they ask for. Nothing is generated or written. Exit 0 when both
 * specs were read and compared (whatever changed, unless --fail-on-breaking found a breaking change:
 * then 1, as `generate --fail-on-breaking`, so a CI step can gate a spec edit before generating),
 * 1 when one could not be read or checked, 2 on a usage error.
 *
 * Without --service the service is named as every other command names it, so the tool steps in
 * the report are the ones the user has: the project's id for a spec of the project's config, else
 * the spec's x-stepforge.id, else its file name (`specs/bookshelf.yaml` → `bookshelf`) — never
 * the spec's title, whose wording changes.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CheckPass } from "../../generator/diff/checker-thread.js";
import type { LoadedSpec } from "../../generator/load.js";
import { locateCompilerApi } from "../../runtime/internal/compiler-api.js";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { UsageError } from "../usage.js";
import { COMMAND_PACKAGES, overridesFirst } from "../command-packages.js";

/** The file a side names: itself, or the PATH of REV:PATH. */
function sidePath(arg: string): string {
  return existsSync(arg) ? arg : (/^[^:]+:(.+)$/.exec(arg)?.[1] ?? arg);
}

/** The id both sides are compared under when --service is not given (see the header). */
async function defaultServiceId(args: readonly string[], sides: readonly LoadedSpec[]): Promise<string | undefined> {
  const paths = args.map((arg) => resolve(sidePath(arg)));
  // The project's config (and zod, which reads it) loads only here: the checker's thread starts sooner.
  const [{ resolveScope }, { idFromFileName }] = await Promise.all([
    import("../project.js"),
    import("../config/load.js"),
  ]);
  try {
    const scope = await resolveScope({});
    // The new side first: when both are the project's specs, the current one names the service.
    for (const path of [...paths].reverse()) {
      const own = scope.project ? scope.services.find((s) => resolve(s.specFile) === path) : undefined;
      if (own) return own.id;
    }
  } catch {
    // A broken config in the folder does not stop comparing two files; they are named by their files.
  }
  const declares = (side: LoadedSpec) =>
    typeof (side.data["x-stepforge"] as { id?: unknown } | undefined)?.id === "string";
  const declared = sides.some(declares);
  return declared ? undefined : idFromFileName(paths[1]!);
}

export async function diffCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean", default: false },
      service: { type: "string" },
      "fail-on-breaking": { type: "boolean", default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 2)
    throw new UsageError(`name two specs, the old then the new (files or REV:PATH); got ${positionals.length}`);
  // The checker compares declarations openapi-typescript writes, with the compiler it runs on.
  requirePackages("stepforge diff: comparing declarations", COMMAND_PACKAGES.diff.packages, "dev", overridesFirst);
  locateCompilerApi("stepforge diff: comparing declarations");
  // First, so the compiler loads on its own thread while the specs are read and checked here.
  const { startCheckerThread } = await import("../../generator/diff/checker-thread.js");
  const checker = startCheckerThread();
  try {
    return await compare(values, positionals, out, checker.check, err);
  } finally {
    await checker.stop();
  }
}

async function compare(
  values: { json: boolean; service?: string; "fail-on-breaking": boolean },
  positionals: string[],
  out: NodeJS.WritableStream,
  check: CheckPass,
  err: NodeJS.WritableStream,
): Promise<number> {
  // Loaded together: the loader reads the three module graphs' files at once instead of in turn.
  const [{ compareSpecs }, { checkSidesForDiff, loadSide, partsForDiff }, { reportJson, reportText }] =
    await Promise.all([
      import("../../generator/diff/index.js"),
      import("../../generator/diff/specs.js"),
      import("../../generator/diff/report.js"),
    ]);
  const sides = positionals.map((arg) => loadSide(arg));
  const serviceId = values.service ?? (await defaultServiceId(positionals, sides));
  const parts = await partsForDiff(...sides);
  const [old, now] = checkSidesForDiff(sides[0]!, sides[1]!, serviceId, parts);
  const report = await compareSpecs(old, now, check);
  const versions = new Map([[report.service, old.version]]);
  out.write(values.json ? reportJson([report], versions) : reportText(report, old.version));
  const breaking = report.changes.filter((change) => change.breaking).length;
  if (!values["fail-on-breaking"] || breaking === 0) return 0;
  // The changes themselves are in the report (text or JSON) on stdout; stderr says why the exit is 1.
  err.write(
    `stepforge diff: ${breaking} breaking change${breaking === 1 ? "" : "s"} ` +
      `(${values.json ? 'those with "breaking": true in the report' : "listed above"}) (--fail-on-breaking)\n`,
  );
  return 1;
}
