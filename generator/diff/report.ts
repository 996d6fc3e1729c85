/**
 * How a comparison is shown: the text report `generate` and `diff` print, the JSON of
 * `diff --json`, and a CHANGELOG.md section in Keep a Changelog form (`generate --changelog`).
 */
import { bumpFor, nextVersion, type Bump, type Change, type ServiceReport } from "./change.js";

export interface Summary {
  service: string;
  status: ServiceReport["status"];
  breaking: number;
  bump: Bump;
  version?: string | undefined;
  suggestedVersion?: string | undefined;
}

export function summarize(report: ServiceReport, version?: string): Summary {
  const bump = report.status === "changed" ? bumpFor(report.changes) : report.status === "removed" ? "major" : "minor";
  const suggested = version ? nextVersion(version, bump) : undefined;
  return {
    service: report.service,
    status: report.status,
    breaking: report.changes.filter((c) => c.breaking).length,
    bump,
    ...(version ? { version } : {}),
    ...(suggested ? { suggestedVersion: suggested } : {}),
  };
}

/** Identical changes of several operations (one component used by many) as one line. */
function grouped(changes: readonly Change[]): Array<{ change: Change; targets: string[] }> {
  const groups = new Map<string, { change: Change; targets: string[] }>();
  for (const change of changes) {
    const key = `${change.kind}\0${change.breaking}\0${change.detail}`;
    const group = groups.get(key);
    if (group) group.targets.push(change.target);
    else groups.set(key, { change, targets: [change.target] });
  }
  return [...groups.values()].sort((a, b) => Number(b.change.breaking) - Number(a.change.breaking));
}

const targetsText = (targets: string[]) =>
  targets.length <= 3 ? targets.join(", ") : `${targets.slice(0, 3).join(", ")} and ${targets.length - 3} more`;

/** The report of one service, a heading line then one line per change (identical ones grouped). */
export function reportText(report: ServiceReport, version?: string): string {
  const s = summarize(report, version);
  const suggestion = s.suggestedVersion
    ? `suggested version ${s.suggestedVersion} (${s.bump}; was ${s.version})`
    : `suggested bump: ${s.bump}`;
  if (report.status !== "changed") return `${report.service}: ${report.changes[0]!.detail}\n`;
  if (report.changes.length === 0) return `${report.service}: no API changes\n`;
  const n = report.changes.length;
  const lines = [`${report.service}: ${n} API change${n === 1 ? "" : "s"}, ${s.breaking} breaking — ${suggestion}`];
  for (const { change, targets } of grouped(report.changes)) {
    const migrate = change.migratable ? " (stepforge migrate updates call sites)" : "";
    lines.push(
      `  ${change.breaking ? "breaking  " : "compatible"}  ${change.kind.padEnd(27)} ${targetsText(targets)}: ` +
        `${change.detail}${migrate}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `--json`: every change of every service, with its verdict and how it was decided. */
export function reportJson(
  reports: readonly ServiceReport[],
  versions: ReadonlyMap<string, string> = new Map(),
): string {
  const services = reports.map((r) => ({
    ...summarize(r, versions.get(r.service)),
    checked: r.checked,
    changes: r.changes,
  }));
  return `${JSON.stringify({ breaking: services.some((s) => s.breaking > 0), services }, null, 2)}\n`;
}

type Section = "Added" | "Changed" | "Deprecated" | "Removed";

function sectionOf(change: Change): Section {
  if (change.kind === "operation-deprecated") return "Deprecated";
  if (/-removed$/.test(change.kind)) return "Removed";
  if (/-added$/.test(change.kind) && !change.breaking) return "Added";
  return "Changed";
}

/**
 * One release section in Keep a Changelog form: `## [version] - date`, then Added, Changed,
 * Deprecated and Removed, each entry naming its service and target, breaking ones marked.
 */
export function changelogSection(reports: readonly ServiceReport[], version: string, date: string): string {
  const order: Section[] = ["Added", "Changed", "Deprecated", "Removed"];
  const entries = new Map<Section, string[]>(order.map((s) => [s, []]));
  for (const report of reports) {
    for (const { change, targets } of grouped(report.changes)) {
      const mark = change.breaking ? "**Breaking:** " : "";
      entries
        .get(sectionOf(change))!
        .push(`- ${mark}${report.service}: ${targets.map((t) => `\`${t}\``).join(", ")}: ${change.detail}`);
    }
  }
  const body = order
    .filter((s) => entries.get(s)!.length > 0)
    .map((s) => `### ${s}\n\n${entries.get(s)!.join("\n")}\n`);
  return `## [${version}] - ${date}\n\n${body.join("\n")}`;
}

const PREAMBLE =
  "# Changelog\n\nAll notable changes to this package are documented in this file.\n\nThe " +
  "format is based on [Keep a Changelog](https://keepachangelog.com/en/1.1.0/),\nand " +
  "this project adheres to [Semantic Versioning](https://semver.org/spec/v2.0.0.html).\n";

/** A release section's subsections (### Added, …) and their entries. */
function subsections(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) found.set(heading[1]!, (current = found.get(heading[1]!) ?? []));
    else if (line.startsWith("- ") && current) current.push(line);
  }
  return found;
}

/**
 * CHANGELOG.md with `section` as its newest entry: after the preamble, before the first release.
 * When the newest release has the same version (the package was not released in between), the
 * entries join it instead, each subsection keeping its entries once.
 */
export function withChangelogSection(existing: string | undefined, section: string): string {
  const text = existing ?? PREAMBLE;
  const first = text.search(/^## /m);
  if (first < 0) return `${text.trimEnd()}\n\n${section}`;
  const version = (heading: string) => /^## \[([^\]]+)\]/.exec(heading)?.[1];
  const end = text.slice(first + 3).search(/^## /m);
  const newest = end < 0 ? text.slice(first) : text.slice(first, first + 3 + end);
  if (version(newest) === undefined || version(newest) !== version(section))
    return `${text.slice(0, first)}${section}\n${text.slice(first)}`;
  const merged = subsections(newest);
  for (const [name, entries] of subsections(section))
    merged.set(name, [...new Set([...(merged.get(name) ?? []), ...entries])]);
  const order = ["Added", "Changed", "Deprecated", "Removed", ...merged.keys()].filter(
    (n, i, all) => merged.has(n) && all.indexOf(n) === i,
  );
  const body = order.map((name) => `### ${name}\n\n${merged.get(name)!.join("\n")}\n`).join("\n");
  return (
    `${text.slice(0, first)}${section.split("\n")[0]}\n\n${body}` +
    `${end < 0 ? "" : `\n${text.slice(first + newest.length)}`}`
  );
}
