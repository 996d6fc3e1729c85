/**
 * Finding the packages stepforge uses but does not depend on. Spectral (`lint`), Prism (`mock
 * --prism`) and the generator's openapi-typescript and Handlebars (`generate`) are optional peer
 * dependencies of the tooling; ioredis (Redis state), proper-lockfile (state and connections in a
 * folder) and the MCP SDK (MCP servers) are optional peers of the runtime: an application that only
 * imports `stepforge/trello` installs none of them, and its bundle carries none of them. When a
 * command or a feature needs one that is missing, it says so in one sentence with the exact command
 * to add it, instead of failing inside Node's module loader.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A tool a command needs is not installed; the message names it and the command that adds it. */
export class MissingPackageError extends Error {
  override name = "MissingPackageError";
  constructor(
    readonly feature: string,
    readonly packages: readonly string[],
    /** "dev" for tools a project runs while building (`npm install -D`), "runtime" for what it ships with. */
    readonly dependency: "dev" | "runtime" = "dev",
    /** What the project must do before npm will install them (said first, as "first …, then"). */
    firstStep?: string,
  ) {
    const list = packages.length === 1 ? packages[0]! : `${packages.slice(0, -1).join(", ")} and ${packages.at(-1)!}`;
    const they = packages.length === 1 ? ["is", "it"] : ["are", "them"];
    super(
      `${feature} needs ${list}, which ${they[0]} not installed; add ${they[1]} to your project: ` +
        `${firstStep ? `first ${firstStep}, then ` : ""}${installCommand(packages, dependency)}`,
    );
  }
}

const here = dirname(fileURLToPath(import.meta.url));

/** stepforge's own package.json (this file sits in runtime/ or dist/runtime/). */
function ownManifest(): { devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> } {
  for (let dir = here; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as {
        name?: string;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      if (pkg.name === "stepforge") return pkg;
    }
    if (dirname(dir) === dir) return {};
  }
}

/** The version this package is tested with (its pinned devDependency), else its peer range. */
function suggestedVersion(name: string): string {
  const pkg = ownManifest();
  return pkg.devDependencies?.[name] ?? pkg.peerDependencies?.[name] ?? "latest";
}

/**
 * The directory of an installed package as Node would find it from here: `node_modules/<name>`
 * in this directory or any parent. Looked up by path rather than `require.resolve`, which fails on
 * packages whose `exports` hide package.json or offer no `require` condition.
 */
export function installedPackageDir(name: string): string | undefined {
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The npm command that adds `packages` at the versions this package is tested with. */
export function installCommand(packages: readonly string[], dependency: "dev" | "runtime" = "dev"): string {
  const install = dependency === "dev" ? "npm install -D" : "npm install";
  return `${install} ${packages.map((p) => `${p}@${suggestedVersion(p)}`).join(" ")}`;
}

/** Those of `names` that are not installed where Node would look for them from here. */
export function missingPackages(names: readonly string[]): string[] {
  return names.filter((n) => installedPackageDir(n) === undefined);
}

/**
 * Throws one MissingPackageError naming every package `feature` needs that is not installed;
 * `firstStep` says what must come before installing those (see MissingPackageError).
 */
export function requirePackages(
  feature: string,
  names: readonly string[],
  dependency: "dev" | "runtime" = "dev",
  firstStep?: (missing: readonly string[]) => string | undefined,
): void {
  const missing = missingPackages(names);
  if (missing.length > 0) throw new MissingPackageError(feature, missing, dependency, firstStep?.(missing));
}

/** The script behind an installed package's bin (run with this Node, no shell, no npx). */
export function packageBin(packageName: string, binName: string, feature = `running ${binName}`): string {
  const dir = installedPackageDir(packageName);
  if (!dir) throw new MissingPackageError(feature, [packageName]);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.[binName];
  if (!bin)
    throw new Error(
      `${packageName} has no bin "${binName}"; reinstall it: npm install -D ${packageName}@` +
        `${suggestedVersion(packageName)}`,
    );
  return join(dir, bin);
}

/**
 * Loads an optional runtime peer (ioredis, proper-lockfile, the MCP SDK) when a feature first needs
 * it, or throws MissingPackageError naming the feature and `npm install <name>`.
 *
 * The specifier is a variable on purpose: bundlers (esbuild, Rollup, webpack) inline every
 * `import("literal")` they can see, so a literal here put ioredis, proper-lockfile and graceful-fs
 * (~190 KB minified) into every application bundle that imports a client, Redis or not. An
 * application that does use the feature installs the peer and Node loads it at run time.
 */
export async function importPeer<T>(specifier: string, feature: string): Promise<T> {
  const name = specifier.startsWith("@") ? specifier.split("/", 2).join("/") : specifier.split("/", 1)[0]!;
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if (notFound(error, name)) throw new MissingPackageError(feature, [name], "runtime");
    throw error;
  }
}

/** Node's "cannot find this package" (not a failure inside a package that is there). */
function notFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  // Node names the package ('ioredis'); some loaders (vitest's) name the whole specifier ('pkg/sub.js').
  if (typeof message !== "string") return false;
  return [`'${name}'`, `'${name}/`, `"${name}"`, `"${name}/`].some((quoted) => message.includes(quoted));
}
