/**
 * The no-change fast path of `stepforge generate`.
 *
 * A full run loads the TypeScript compiler (for openapi-typescript) and emits every file: about two seconds even
 * when nothing changed. Most runs change nothing, so after each full run we record what went in (the
 * spec files and the generator's own code) and a hash of every file that came out. The next run
 * hashes the same inputs (plus the templates and the installed versions of the generator's
 * dependencies) and the files on disk; when all of them match, the output is exactly what a
 * full run would write, and the run stops there without importing the pipeline.
 *
 * The record lives in node_modules/.cache/stepforge (never committed, never read by `--check`, which
 * always runs the whole pipeline). A record that cannot be read or written only costs a full run.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { filesBelow, toPosix } from "./files.js";

export interface CachedService {
  id: string;
  operations: number;
}

interface CacheRecord {
  version: 1;
  inputs: string;
  services: CachedService[];
  /** Output path (relative to outDir, posix) → sha256 of its content. */
  files: Record<string, string>;
  /** Extra files outside outDir that the run owns (the package.json exports map), by absolute path. */
  outside: Record<string, string>;
}

export interface CacheKey {
  specFiles: readonly string[];
  outDir: string;
  projectRoot: string;
  serviceId?: string;
  /** Anything else the run's output depends on (a project config's overrides and package name). */
  variant?: string;
}

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

/**
 * The generator's code: this directory, the runtime next to it (the runtime's descriptor schemas
 * validate the extensions) and the templates. Whichever form is running — dist/*.js or the .ts
 * sources under tsx — is hashed, so a rebuilt generator never reuses an old record.
 */
function generatorCode(projectRoot: string): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [
    ...filesBelow(here),
    ...filesBelow(join(here, "..", "runtime")),
    ...filesBelow(join(projectRoot, "templates")),
  ];
}

/**
 * The installed version of every dependency the generator runs on (openapi-typescript, handlebars,
 * yaml, ...): an upgrade can change the output without touching a file hashed above.
 */
function dependencyVersions(projectRoot: string): string {
  const pkg = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  // The generator's own tools (openapi-typescript, handlebars) are optional peer dependencies.
  return [...new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})])]
    .sort()
    .map((name) => {
      try {
        const manifest = readFileSync(join(projectRoot, "node_modules", name, "package.json"), "utf8");
        return `${name}@${(JSON.parse(manifest) as { version?: string }).version}`;
      } catch {
        return `${name}@?`; // installed elsewhere (hoisted): its version is then not part of the key
      }
    })
    .join(",");
}

/** Digest of everything a run reads: specs, generator code, templates, dependency versions. */
export function inputsHash(key: CacheKey): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      outDir: resolve(key.outDir),
      serviceId: key.serviceId ?? null,
      variant: key.variant ?? null,
      node: process.versions.node,
      deps: dependencyVersions(key.projectRoot),
    }),
  );
  for (const file of [...key.specFiles.map((f) => resolve(f)), ...generatorCode(key.projectRoot)]) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

function recordPath(key: CacheKey): string {
  return join(
    key.projectRoot,
    "node_modules",
    ".cache",
    "stepforge",
    `generate-${sha256(resolve(key.outDir)).slice(0, 16)}.json`,
  );
}

/**
 * The services of the last run when nothing it read or wrote has changed since; undefined means
 * "run the pipeline". Any error (a missing record, a deleted spec, an unreadable file) is a miss.
 */
export function unchangedSince(key: CacheKey): CachedService[] | undefined {
  try {
    const record = JSON.parse(readFileSync(recordPath(key), "utf8")) as CacheRecord;
    if (record.version !== 1) return undefined;
    const outDir = resolve(key.outDir);
    const onDisk = filesBelow(outDir).map((abs) => toPosix(relative(outDir, abs)));
    // A file added by hand is a miss too: a full run would report or remove it. Counted before the
    // inputs are hashed (the generator's code, ~0.1 s): a deleted output folder is a miss at once.
    if (onDisk.length !== Object.keys(record.files).length) return undefined;
    if (record.inputs !== inputsHash(key)) return undefined;
    for (const path of onDisk) {
      const expected = record.files[path];
      if (expected === undefined || sha256(readFileSync(join(outDir, path))) !== expected) return undefined;
    }
    for (const [abs, expected] of Object.entries(record.outside)) {
      if (sha256(readFileSync(abs)) !== expected) return undefined;
    }
    return record.services;
  } catch {
    return undefined;
  }
}

/** One record per output directory ever generated would pile up (temp dirs): keep the newest few. */
const KEPT_RECORDS = 32;

function pruneRecords(dir: string): void {
  const records = readdirSync(dir)
    .filter((name) => /^generate-[0-9a-f]+\.json$/.test(name))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of records.slice(KEPT_RECORDS)) rmSync(old.path, { force: true });
}

/** Records a finished full run: call after the output is written. Failing to record is not an error. */
export function remember(key: CacheKey, services: CachedService[], outside: readonly string[] = []): void {
  try {
    const outDir = resolve(key.outDir);
    const files: Record<string, string> = {};
    for (const abs of filesBelow(outDir)) files[toPosix(relative(outDir, abs))] = sha256(readFileSync(abs));
    const record: CacheRecord = {
      version: 1,
      inputs: inputsHash(key),
      services,
      files,
      outside: Object.fromEntries(outside.map((abs) => [abs, sha256(readFileSync(abs))])),
    };
    const path = recordPath(key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(record));
    pruneRecords(dirname(path));
  } catch {
    // A read-only install or a full disk: the next run is simply a full one.
  }
}
