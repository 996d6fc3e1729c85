/**
 * The packed tarball, made once per set of package inputs and shared by every test file that
 * installs stepforge as another project would (test/consumer, test/diff/consumer, test/project).
 *
 * Packing (npm pack, whose prepack compiles a fresh dist/) costs about a minute on 2 cores; done
 * by each suite it was most of their time. The tarball is kept in a cache folder named by a hash
 * of everything stagePackage copies, so an unchanged tree reuses it, and a lock (proper-lockfile)
 * makes test files that start together wait for the one pack instead of running their own.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { filesBelow } from "../../generator/files.js";
import { packageRoot } from "../../generator/package-root.js";
import { outsideEnv, run, STAGED_PATHS, stagePackage } from "../consumer/helpers.js";

export interface Packed {
  /** Absolute path of the .tgz. */
  tarball: string;
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
  /** Seconds the pack took in this process; 0 when the cache had it. */
  packSeconds: number;
}

/** sha256 over every file the staged copy would hold (paths and contents). */
function inputsHash(root: string): string {
  const hash = createHash("sha256");
  for (const path of STAGED_PATHS) {
    const abs = join(root, path);
    for (const file of statSync(abs).isDirectory() ? filesBelow(abs) : [abs]) {
      hash.update(`\0${file.slice(root.length)}\0`);
      hash.update(readFileSync(file));
    }
  }
  return hash.digest("hex").slice(0, 20);
}

let packing: Promise<Packed> | undefined;

/** The tarball of the tree as it is now: from the cache, or packed here (once, under a lock). */
export function packedTarball(): Promise<Packed> {
  packing ??= pack();
  return packing;
}

async function pack(): Promise<Packed> {
  const root = packageRoot();
  const dir = join(tmpdir(), "stepforge-tarball", inputsHash(root));
  const record = join(dir, "packed.json");
  mkdirSync(dir, { recursive: true });
  const cached = (): Packed | undefined => {
    if (!existsSync(record)) return undefined;
    const packed = JSON.parse(readFileSync(record, "utf8")) as Packed;
    return existsSync(packed.tarball) ? { ...packed, packSeconds: 0 } : undefined;
  };
  const hit = cached();
  if (hit) return hit;
  // Another test file may be packing the same tree: wait for it (a pack takes a minute or two here).
  const release = await lockfile.lock(dir, {
    lockfilePath: join(dir, ".lock"),
    retries: { retries: 600, minTimeout: 500, maxTimeout: 1000 },
  });
  try {
    const again = cached();
    if (again) return again;
    const started = performance.now();
    const staged = join(dir, "stage");
    rmSync(staged, { recursive: true, force: true });
    mkdirSync(staged);
    stagePackage(root, staged);
    const env = outsideEnv(root);
    const result = await run("npm", ["pack", "--json", "--pack-destination", dir], staged, env);
    if (result.code !== 0) throw new Error(`npm pack failed: ${result.stderr}`);
    const [info] = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as Array<
      Omit<Packed, "tarball" | "packSeconds">
    >;
    rmSync(staged, { recursive: true, force: true });
    const packed: Packed = {
      ...info!,
      tarball: join(dir, info!.filename),
      packSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
    writeFileSync(record, JSON.stringify(packed));
    return packed;
  } finally {
    await release();
  }
}

/**
 * Writes the package.json of an application that installs the packed tarball, with `devTools`
 * (optional peers and tools) at the versions this repository pins: how the outside suites set
 * up the project a user would have.
 */
export function writeAppManifest(dir: string, name: string, tarball: string, devTools: readonly string[]): void {
  const pinned = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const devDependencies: Record<string, string> = {};
  for (const tool of devTools) {
    const version = pinned.devDependencies[tool];
    if (version === undefined) throw new Error(`${tool} is not a devDependency of stepforge: pin it there first`);
    devDependencies[tool] = version;
  }
  const manifest = {
    name,
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: { stepforge: `file:${tarball}` },
    devDependencies,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}
