/** Running tools in a project outside the repository, with nothing of the repository leaking in. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { closeSync, cpSync, openSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { joinedPattern } from "../helpers/pattern.js";
export { freePort } from "../helpers/ports.js";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment for commands in the consumer project: no npm_* variables inherited from the
 * `npm test` / `npx vitest` that started us (they name the repository as the project), and no
 * PATH entry inside the repository (its node_modules/.bin would lend its tsc or stepforge).
 */
export function outsideEnv(repoRoot: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === "INIT_CWD" || key === "NODE_PATH" || key === "NODE_OPTIONS") continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(":")
    .filter((dir) => dir && !dir.startsWith(repoRoot))
    .join(":");
  env.NO_COLOR = "1";
  return env;
}

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === "number"
          ? (error as { code: number }).code
          : 1
        : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a command whose stdout goes to a file (some CLIs exit before a pipe drains). */
export function runToFile(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  file: string,
): Promise<Run> {
  const fd = openSync(file, "w");
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", fd, "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => {
      closeSync(fd);
      resolve({ code: code ?? 1, stdout: readFileSync(file, "utf8"), stderr });
    });
  });
}

/**
 * Starts a long-running command and resolves once its stdout contains `text` (or rejects when it exits first or the
 * time is up).
 */
export function startUntil(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  text: string,
  timeoutMs: number,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no "${text}" within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes(text)) {
        clearTimeout(timer);
        resolve({ child, output: () => stdout + stderr });
      }
    });
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before "${text}"; stdout: ${stdout} stderr: ${stderr}`));
    });
  });
}

/** Sends SIGTERM and resolves with the exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

/**
 * Bytes of every file below `dir`, not descending into nested node_modules (those packages are counted on their own).
 */
export function packageBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") total += packageBytes(path);
    } else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** What `npm install` put in a project: package count and megabytes, from `npm ls --parseable`. */
export async function installSize(
  project: string,
  env: NodeJS.ProcessEnv,
  omitDev: boolean,
): Promise<{ packages: number; mb: number; names: string[] }> {
  const ls = await run("npm", ["ls", "--all", "--parseable", ...(omitDev ? ["--omit=dev"] : [])], project, env);
  const dirs = [...new Set(ls.stdout.split("\n").filter((l) => l.trim() && l.trim() !== project))];
  const bytes = dirs.reduce((sum, dir) => sum + packageBytes(dir), 0);
  const names = dirs.map((d) => d.slice(d.lastIndexOf("node_modules/") + "node_modules/".length));
  return { packages: dirs.length, mb: Math.round((bytes / 1024 / 1024) * 10) / 10, names };
}

/** What none of the commands may print: the failures of the package before it was installable. */
export const BROKEN = joinedPattern(
  [
    /Require stack|ERR_MODULE_NOT_FOUND|Cannot find module|Cannot find package|dist\/ is missing|TS2307/,
    /|^\s+at .+:\d+:\d+\)?$/,
  ],
  "m",
);

/** What a staged copy of the package holds: everything `npm pack` builds from or ships. */
export const STAGED_PATHS = [
  "bin",
  "cli",
  "generated",
  "generator",
  "runtime",
  "specs",
  "templates",
  "docs",
  "scripts/build-package.js",
  ".spectral.yaml",
  "package.json",
  "LICENSE",
  "README.md",
  "tsconfig.json",
  "tsconfig.build.json",
] as const;

/** What a fresh checkout holds to install and build: the staged paths but those only readers need. */
export const CHECKOUT_PATHS = STAGED_PATHS.filter((path) => !["docs", "LICENSE", "README.md"].includes(path));

/**
 * The package's inputs copied to DIR (beside the repository), so packing (which rebuilds dist/)
 * never races other suites reading the repository's dist/. Pack DIR with `npm pack`; test files
 * use test/helpers/tarball.ts, which packs once for all of them.
 */
export function stagePackage(root: string, dir: string): string {
  for (const path of STAGED_PATHS) {
    cpSync(join(root, path), join(dir, path), { recursive: true });
  }
  // prepack's compiler; npm pack never packs node_modules.
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}
