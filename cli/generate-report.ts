/**
 * The change report of `stepforge generate` (and of each round of `--watch`): what the run is about
 * to write against what the output folder holds, per service; the gate of `--fail-on-breaking`;
 * and the CHANGELOG.md section of `--changelog`. The comparison itself is generator/diff/.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bumpFor, nextVersion, type Bump } from "../generator/diff/change.js";
import { compareWithDisk, type ServiceReport } from "../generator/diff/index.js";
import { changelogSection, reportText, withChangelogSection } from "../generator/diff/report.js";
import type { GeneratedFile } from "../generator/emit/file.js";
import type { ServiceModel } from "../generator/model.js";
import { runtimeImportFor, specLabel } from "../generator/pipeline.js";

export interface RunReport {
  reports: ServiceReport[];
  /** Previous spec version of each service (info.version), for the suggested version. */
  versions: Map<string, string>;
  /** surface.json of each service, to write with the rest. */
  surfaces: GeneratedFile[];
  breaking: number;
  text: string;
}

/** Compares the files a run is about to write with `outDir`, service by service. */
export async function reportRun(
  outDir: string,
  projectRoot: string,
  models: readonly ServiceModel[],
  files: readonly GeneratedFile[],
): Promise<RunReport> {
  const { reports, surfaces, versions } = await compareWithDisk(
    outDir,
    models,
    files,
    (id) => runtimeImportFor(outDir, id, projectRoot),
    (model) => specLabel(model.spec.file, projectRoot),
  );
  const text = reports.map((r) => reportText(r, versions.get(r.service))).join("");
  return {
    reports,
    versions,
    surfaces,
    breaking: reports.reduce((n, r) => n + r.changes.filter((c) => c.breaking).length, 0),
    text,
  };
}

const BUMPS: Bump[] = ["none", "patch", "minor", "major"];

/**
 * `--changelog`: a Keep a Changelog section for this run's changes, newest first, in
 * `file`. Its version is `version` bumped by the largest bump any service asks for
 * ("Unreleased" when the package has no version). Returns the heading, or undefined when
 * nothing changed (the file is left alone).
 */
export function writeChangelog(
  file: string,
  run: RunReport,
  version: string | undefined,
  date = new Date().toISOString().slice(0, 10),
): string | undefined {
  const changed = run.reports.filter((r) => r.changes.length > 0);
  if (changed.length === 0) return undefined;
  const bump = changed
    .map((r) => (r.status === "changed" ? bumpFor(r.changes) : r.status === "removed" ? "major" : "minor"))
    .reduce((a, b) => (BUMPS.indexOf(b) > BUMPS.indexOf(a) ? b : a), "none" as Bump);
  const heading = (version && nextVersion(version, bump)) ?? "Unreleased";
  const existing = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  writeFileSync(file, withChangelogSection(existing, changelogSection(changed, heading, date)));
  return heading;
}

/** The version of the package a changelog belongs to: DIR/package.json's, else the one service's spec version. */
export function packageVersion(dir: string, run: RunReport): string | undefined {
  const manifest = join(dir, "package.json");
  if (existsSync(manifest)) {
    const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown }).version;
    if (typeof version === "string") return version;
  }
  return run.versions.size === 1 ? [...run.versions.values()][0] : undefined;
}
