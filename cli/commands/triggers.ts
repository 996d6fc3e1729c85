/**
 * `stepforge triggers list [--json] [--service S] [--spec FILE]... [--project DIR]`: every trigger
 * the specs in scope declare (the project's, the --spec files', else the bundled ones).
 */
import { flagsOf, SCOPE_OPTIONS } from "../flags.js";
import { pickService, resolveScope } from "../project.js";
import { loadServices } from "../services.js";

export async function triggersCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "list") {
    const { UsageError } = await import("../usage.js");
    throw new UsageError(
      `unknown triggers command ${JSON.stringify(sub ?? "")}; use: stepforge triggers list [--json]`,
    );
  }
  const { values } = flagsOf(rest, {
    ...SCOPE_OPTIONS,
    json: { type: "boolean", default: false },
    service: { type: "string" },
  });
  const scope = await resolveScope({ specs: values.spec, project: values.project });
  const sources = values.service === undefined ? scope.services : [pickService(scope, values.service)];
  const rows = (await loadServices(sources, process.cwd(), { triggers: true })).flatMap((service) =>
    (service.triggers?.triggers ?? []).map((t) => ({
      service: service.id,
      name: t.name,
      title: t.title,
      instant: t.kind === "webhook",
      kind: t.kind,
      description: t.description,
      // the seed document's name for it, so a reader can match the two lists
      ...(t.seedName ? { seedName: t.seedName } : {}),
      options: t.options,
      // what it watches: the scope's name and meaning (a configuration's scope.<name>)
      ...(t.scope ? { scope: { name: t.scope, description: service.triggers!.scopes[t.scope]?.description } } : {}),
      ...(t.kind !== "webhook" ? { intervalSeconds: t.intervalSeconds } : {}),
    })),
  );
  if (values.json) {
    out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(0, ...rows.map((r) => r.name.length));
  for (const r of rows)
    out.write(
      `${r.name.padEnd(width)}  ${r.instant ? "instant" : "polling"}  ${r.title}` +
        `${r.seedName && r.seedName !== r.title ? ` (seed: ${r.seedName})` : ""}\n`,
    );
  out.write(
    `${rows.length} trigger${rows.length === 1 ? "" : "s"}` +
      (rows.length === 0
        ? ` (${sources.map((s) => s.id).join(", ")} declare${sources.length === 1 ? "s" : ""} none)`
        : "") +
      "\n",
  );
  return 0;
}
