/**
 * Which files in an output folder `stepforge generate` wrote, so a later run can remove the ones it
 * no longer writes (a service whose id changed leaves its old folder behind otherwise, and that
 * folder keeps compiling) without ever touching a file of the user's.
 *
 * The record (`.stepforge-files.json` in the output folder) lists every file a run wrote, with the
 * sha256 of its content and the spec it came from. A file is removed only when
 * - the record lists it, from a spec this run generates (or from any spec, for a project run,
 *   whose config names every spec: a spec dropped from the config loses its files too), and
 * - it still holds exactly what stepforge wrote: a file edited since is kept and reported.
 * Folders left empty by a removal go too; nothing outside the output folder is ever touched.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { toPosix } from "./files.js";

export const OWNED_FILE = ".stepforge-files.json";

interface OwnedRecord {
  version: 1;
  /** Output path (posix, relative to the folder) → its content's sha256 and its spec (relative to the folder). */
  files: Record<string, { sha256: string; spec: string }>;
}

/** A file of this run: its path in the output folder, its content, and its spec ("" for the root index). */
export interface OwnedFile {
  path: string;
  content: string;
  spec: string;
}

export interface StaleFiles {
  /** Files to remove: listed, from a spec of this run, unchanged since written. */
  remove: string[];
  /** Files no longer generated but edited since: kept. */
  edited: string[];
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

function read(outDir: string): OwnedRecord {
  try {
    const record = JSON.parse(readFileSync(join(outDir, OWNED_FILE), "utf8")) as OwnedRecord;
    if (record.version === 1 && record.files && typeof record.files === "object") return record;
  } catch {
    // none yet, or unreadable: nothing is known to be ours
  }
  return { version: 1, files: {} };
}

/** A spec file as the record names it: relative to the output folder, forward slashes. */
export function specKey(outDir: string, specFile: string): string {
  return toPosix(relative(resolve(outDir), resolve(specFile)));
}

/**
 * The files a run with these outputs leaves stale. `specs`: the record keys of the specs this run
 * generates, or "all" for a project run.
 */
export function staleFiles(
  outDir: string,
  files: readonly OwnedFile[],
  specs: ReadonlySet<string> | "all",
): StaleFiles {
  const record = read(outDir);
  const written = new Set(files.map((f) => f.path));
  const stale: StaleFiles = { remove: [], edited: [] };
  for (const [path, entry] of Object.entries(record.files).sort(([a], [b]) => a.localeCompare(b))) {
    if (written.has(path) || (specs !== "all" && entry.spec !== "" && !specs.has(entry.spec))) continue;
    const abs = join(outDir, path);
    // Only a path inside the folder: a hand-edited record must not reach elsewhere.
    if (relative(resolve(outDir), resolve(abs)).startsWith("..") || !existsSync(abs)) continue;
    (sha256(readFileSync(abs)) === entry.sha256 ? stale.remove : stale.edited).push(path);
  }
  return stale;
}

/** Removes the stale files and the folders they leave empty; then records what this run wrote. */
export function settleOwned(
  outDir: string,
  files: readonly OwnedFile[],
  stale: StaleFiles,
  specs: ReadonlySet<string> | "all",
): void {
  const root = resolve(outDir);
  for (const path of stale.remove) {
    const abs = join(root, path);
    rmSync(abs, { force: true });
    for (let dir = dirname(abs); dir !== root && dir.startsWith(root); dir = dirname(dir)) {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    }
  }
  const previous = read(outDir);
  const kept = Object.entries(previous.files).filter(
    ([path, entry]) =>
      specs !== "all" && entry.spec !== "" && !specs.has(entry.spec) && !files.some((f) => f.path === path),
  );
  // Edited files stay listed: they are still ours to remove once they match again (or are deleted).
  const edited = Object.entries(previous.files).filter(([path]) => stale.edited.includes(path));
  const record: OwnedRecord = {
    version: 1,
    files: Object.fromEntries(
      [...kept, ...edited, ...files.map((f) => [f.path, { sha256: sha256(f.content), spec: f.spec }] as const)].sort(
        ([a], [b]) => a.localeCompare(b),
      ),
    ),
  };
  writeFileSync(join(root, OWNED_FILE), `${JSON.stringify(record, null, 2)}\n`);
}
