/**
 * `stepforge proxy --service S|--spec FILE --upstream URL [--port N] [--host H]
 *                  [--strip-prefix PATH] [--record FILE.har] [--report FILE] [--quiet]`
 *
 * Starts the validation proxy (runtime/observe/proxy.ts) for one service: prints its address,
 * then one line per exchange (method, path, operation, status, differences) unless --quiet, and
 * runs until SIGINT or SIGTERM. The drift report (JSON and Markdown) and the HAR recording are
 * written every few seconds while traffic flows and once more at the end; the report's summary is
 * printed last. Exit 0; 1 when the spec does not load or the port cannot be taken; 2 on a usage
 * error.
 */
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { extname } from "node:path";
import { startValidationProxy } from "../../runtime/observe/proxy.js";
import type { DriftReportJson } from "../../runtime/observe/drift-report.js";
import { resolveScope, scopeOfSpecFiles } from "../project.js";
import { UsageError } from "../usage.js";
import { mockTargets } from "./mock.js";
import { conformanceFromSpec } from "./proxy-spec.js";
import { stopRequested } from "./stop-signal.js";
import { flagsOf, switchFlags, valueFlags } from "../flags.js";
import type { ServingCommand } from "../command.js";

/** `--report drift` → drift.json and drift.md; `--report drift.md` → drift.md and drift.json. */
export function reportFiles(given: string): { json: string; markdown: string } {
  const ext = extname(given).toLowerCase();
  const stem = ext === ".json" || ext === ".md" ? given.slice(0, -ext.length) : given;
  return { json: `${stem}.json`, markdown: `${stem}.md` };
}

function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

export function summaryLines(report: DriftReportJson): string {
  const s = report.summary;
  const kinds = Object.entries(s.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const seen = `${report.exchanges} exchanges over ${s.operationsSeen} operations`;
  const ways = `${s.differences} ways${kinds ? ` (${kinds})` : ""}`;
  const differ = `${s.operationsWithDifferences} differ from the spec in ${ways}`;
  const lines = [`${report.service}: ${seen}; ${differ}`];
  s.mostImportant.forEach((d, i) => {
    const where = `${d.direction}${d.status !== undefined ? ` ${d.status}` : ""} ${d.pointer || "(whole)"}`;
    lines.push(`  ${i + 1}. ${d.operation} ${where}: ${d.kind}, expected ${d.expected} (${d.count}x)`);
  });
  if (report.unknownRoutes.length)
    lines.push(`  ${report.unknownRoutes.length} request paths matched no operation of the spec`);
  return `${lines.join("\n")}\n`;
}

/** `until` and `specFiles` are for tests: stop without a signal, read other spec files than the project's. */
export const proxyCommand: ServingCommand = async (argv, out, err, until, specFiles) => {
  const { values } = flagsOf(argv, {
    ...valueFlags("service", "spec", "upstream", "port", "host", "strip-prefix", "record", "report"),
    ...switchFlags("quiet"),
  });
  if (values.upstream === undefined)
    throw new UsageError("--upstream URL is required: the real service's address, e.g. https://api.trello.com");
  if (values.service === undefined && values.spec === undefined)
    throw new UsageError("name the service: --service S (a service of this project) or --spec FILE");
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number (0-65535), got "${values.port}"`);
  if (values["strip-prefix"] !== undefined && !values["strip-prefix"].startsWith("/"))
    throw new UsageError(`--strip-prefix must be a path starting with "/", e.g. /1`);
  if (values.record !== undefined && !values.record.toLowerCase().endsWith(".har"))
    throw new UsageError(`--record takes a file ending in .har, got "${values.record}"`);
  let specFile: string;
  // The service's id as the project names it (its config or file name), not the spec title's.
  let serviceId = values.service;
  if (values.spec !== undefined) {
    if (!existsSync(values.spec)) throw new UsageError(`--spec ${values.spec}: no such file`);
    specFile = values.spec;
  } else {
    // The service is one of the project's (stepforge.config.*), else a bundled one; tests pass spec files.
    const scope = specFiles ? scopeOfSpecFiles(specFiles) : await resolveScope({});
    const [target] = await mockTargets(values.service!, { prism: false }, scope);
    if (target!.problem) {
      err.write(`${target!.problem}\n`);
      err.write(`stepforge proxy: the spec of ${target!.id} (${target!.specFile}) has errors; fix them first\n`);
      return 1;
    }
    specFile = target!.specFile;
    serviceId = target!.id;
  }
  const { definition, label } = conformanceFromSpec(specFile, serviceId);
  let proxy;
  try {
    proxy = await startValidationProxy({
      definition,
      upstream: values.upstream,
      port,
      host: values.host,
      stripPrefix: values["strip-prefix"],
      record: values.record !== undefined,
      specLabel: label,
      onExchange: values.quiet
        ? undefined
        : (e) => {
            const found = e.differences ? ` ${e.differences} difference${e.differences === 1 ? "" : "s"}` : "";
            const answer = e.status ?? "no answer";
            out.write(`${e.method} ${e.path.slice(0, 200)} ${e.operationId ?? "(no operation)"} ${answer}${found}\n`);
          },
    });
  } catch (error) {
    if (/upstream|stripPrefix/.test((error as Error).message)) throw new UsageError((error as Error).message);
    err.write(`stepforge proxy: ${(error as Error).message}\n`);
    return 1;
  }
  const files = values.report !== undefined ? reportFiles(values.report) : undefined;
  let written = -1;
  const save = () => {
    if (proxy.exchanges === written) return;
    written = proxy.exchanges;
    if (files) {
      writeAtomically(files.json, `${JSON.stringify(proxy.report(), null, 2)}\n`);
      writeAtomically(files.markdown, proxy.markdown());
    }
    const har = proxy.har();
    if (har && values.record) writeAtomically(values.record, `${JSON.stringify(har, null, 1)}\n`);
  };
  const without = values["strip-prefix"] ? ` (without ${values["strip-prefix"]})` : "";
  out.write(`${definition.descriptor.id} proxy ${proxy.url} -> ${values.upstream}${without}; Ctrl-C stops it\n`);
  if (values.host !== undefined && !["127.0.0.1", "localhost", "::1"].includes(values.host)) {
    const who = `anyone who reaches it can send requests to ${values.upstream} through it`;
    err.write(`stepforge proxy: listening on ${values.host}: ${who}\n`);
  }
  const timer = setInterval(save, 5000);
  timer.unref();
  try {
    await stopRequested(until);
  } finally {
    clearInterval(timer);
    await proxy.close();
    save();
  }
  out.write(summaryLines(proxy.report()));
  if (files) out.write(`drift report: ${files.json}, ${files.markdown}\n`);
  if (values.record) out.write(`recording: ${values.record} (${proxy.har()?.log.entries.length ?? 0} exchanges)\n`);
  return 0;
};
