/**
 * A project's service (or a `--spec FILE`) built from its spec in this process, so `mock`, `call`,
 * `tools`, `mcp`, `triggers` and `webhook` work on it before `stepforge generate` has run, and
 * never on stale output: the spec is checked and the four modules the commands run on (descriptor,
 * tools, triggers, mock) are emitted exactly as `generate` writes them, then loaded with jiti
 * (cli/ts-loader.ts). They import only the runtime, so neither openapi-typescript nor Handlebars
 * (the generator's optional peers) is needed.
 *
 * The emitted files are kept in a cache folder named by a hash of everything they depend on (the
 * spec's text, the config's overrides, stepforge's version and the generator's code), so a second
 * command on an unchanged spec skips the check and emit stages and jiti's own cache skips the
 * transpiling.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { emitDescriptor, emitTriggers } from "../generator/emit/descriptor.js";
import type { EmitContext, GeneratedFile } from "../generator/emit/file.js";
import { emitMock } from "../generator/emit/mock.js";
import { emitTools } from "../generator/emit/tools.js";
import { filesBelow, toPosix } from "../generator/files.js";
import { loadSpecFile } from "../generator/load.js";
import { packageRoot } from "../generator/package-root.js";
import { checkProjectSpec } from "../generator/project-spec.js";
import type { ServiceSource } from "./project.js";

export interface BuiltService {
  /** Folder holding `<id>/descriptor.ts`, `tools.ts`, `mock.ts` and (with triggers) `triggers.ts`. */
  dir: string;
  id: string;
}

/** What the emitted modules depend on besides the spec: this copy's generator and runtime code. */
let codeStamp: string | undefined;
function generatorStamp(): string {
  if (codeStamp) return codeStamp;
  const here = dirname(fileURLToPath(import.meta.url));
  const hash = createHash("sha256");
  const version = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string })
    .version;
  hash.update(version);
  for (const file of [...filesBelow(join(here, "..", "generator")), ...filesBelow(join(here, "..", "runtime"))]) {
    const st = statSync(file);
    hash.update(`${file}:${st.size}:${st.mtimeMs}\n`);
  }
  codeStamp = hash.digest("hex");
  return codeStamp;
}

/**
 * The cache: the project's node_modules/.cache/stepforge when it has node_modules, else a folder
 * of this user's in the system's temporary folder (refused when another user owns it).
 */
function cacheRoot(projectDir: string): string {
  const local = join(projectDir, "node_modules");
  if (existsSync(local)) return join(local, ".cache", "stepforge", "services");
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const dir = join(tmpdir(), `stepforge-services-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === "function" && st.uid !== uid)) {
    throw new Error(`${dir} is not a folder of this user; remove it (stepforge keeps generated services there)`);
  }
  return dir;
}

/** This copy's runtime index, as the generated modules import it (the .js name also for the sources). */
function ownRuntimeIndex(): string {
  return fileURLToPath(new URL("../runtime/index.js", import.meta.url));
}

export async function buildSpecService(source: ServiceSource, projectDir = process.cwd()): Promise<BuiltService> {
  const spec = readFileSync(source.specFile);
  const overrides = { id: source.id, ...(source.baseUrl !== undefined ? { baseUrl: source.baseUrl } : {}) };
  const runtime = ownRuntimeIndex();
  const key = createHash("sha256")
    .update(spec)
    .update(JSON.stringify({ overrides, runtime }))
    .update(source.specFile)
    .update(generatorStamp())
    .digest("hex");
  const dir = join(cacheRoot(projectDir), key.slice(0, 24));
  const done = join(dir, "service.json");
  if (existsSync(done)) return JSON.parse(readFileSync(done, "utf8")) as BuiltService;

  const model = checkProjectSpec(loadSpecFile(source.specFile), overrides);
  const fromService = join(dir, model.id);
  const runtimeImport = toPosix(relative(fromService, runtime));
  const context: EmitContext = { runtimeImport, specLabel: toPosix(relative(projectDir, source.specFile)) };
  const files: GeneratedFile[] = [];
  for (const emit of [emitDescriptor, emitTools, emitTriggers, emitMock]) files.push(...(await emit(model, context)));
  // Written beside the final folder and renamed into place: a reader never sees half a service.
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  for (const file of files) {
    mkdirSync(dirname(join(staging, file.path)), { recursive: true });
    writeFileSync(join(staging, file.path), file.content);
  }
  const built: BuiltService = { dir, id: model.id };
  writeFileSync(join(staging, "service.json"), JSON.stringify(built));
  try {
    renameSync(staging, dir);
  } catch {
    // Another process built the same service first: its copy is identical.
    rmSync(staging, { recursive: true, force: true });
  }
  prune(dirname(dir));
  return built;
}

/** One folder per spec version ever built would pile up (every save of a spec is one): keep the newest. */
const KEPT_BUILDS = 64;

function prune(root: string): void {
  try {
    const builds = readdirSync(root)
      .filter((name) => /^[0-9a-f]{24}$/.test(name))
      .map((name) => ({ path: join(root, name), mtime: statSync(join(root, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of builds.slice(KEPT_BUILDS)) rmSync(old.path, { recursive: true, force: true });
  } catch {
    // Another process pruning at the same time: what it left is pruned next time.
  }
}
