/**
 * `stepforge generate --spec FILE --out DIR --package NAME`: what DIR needs to be built and
 * published as a package of its own. package.json maps one entry per generated service (and per
 * module with its own entry, such as `<id>/mock`) to the compiled files in DIR/dist/, and depends
 * on stepforge for the runtime the generated code imports; tsconfig.json compiles DIR to DIR/dist.
 *
 * A package.json that already exists keeps every key the user set: only `name`, `type`,
 * `exports` and the stepforge dependency are ours. tsconfig.json is written only when absent.
 * Both depend only on the generated files' paths, so the output is deterministic.
 */

/** The part of a generated file this module reads (see GeneratedFile in emit/file.ts). */
export interface ManifestInput {
  path: string;
  ownEntry?: boolean;
}

export interface ManifestRequest {
  packageName: string;
  /** Ids of the services generated into DIR. */
  serviceIds: readonly string[];
  files: readonly ManifestInput[];
  /** The installed stepforge's version: the dependency is `^<version>`. */
  stepforgeVersion: string;
  /** The TypeScript version stepforge is built and tested with (for devDependencies). */
  typescriptVersion: string;
  /** DIR/package.json as it is now, if any. */
  existing?: string;
}

/** npm's rules for a package name (lower case, URL-safe, optionally scoped, at most 214 characters). */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 214) return "must be 1 to 214 characters long";
  if (!/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name))
    return "must be lower case letters, digits and - . _ ~, optionally with an @scope/ prefix";
  return undefined;
}

/** types, the ES module for import, and the same module as `default` (require() of ESM on Node ≥ 20.19). */
type Entry = { types: string; import: string; default: string };

export function packageExports(serviceIds: readonly string[], files: readonly ManifestInput[]): Record<string, Entry> {
  const entry = (module: string): Entry => ({
    types: `./dist/${module}.d.ts`,
    import: `./dist/${module}.js`,
    default: `./dist/${module}.js`,
  });
  const exports: Record<string, Entry> = {};
  if (files.some((f) => f.path === "index.ts")) exports["."] = entry("index");
  for (const id of [...serviceIds].sort()) {
    exports[`./${id}`] = entry(`${id}/index`);
    const own = files
      .filter((f) => f.ownEntry && f.path.startsWith(`${id}/`) && f.path.endsWith(".ts"))
      .map((f) => f.path.replace(/\.ts$/, ""));
    for (const module of own.sort()) exports[`./${module}`] = entry(module);
  }
  return exports;
}

export function packageManifest(request: ManifestRequest): string {
  let pkg: Record<string, unknown> = {};
  if (request.existing !== undefined) {
    try {
      pkg = JSON.parse(request.existing) as Record<string, unknown>;
    } catch {
      pkg = undefined as never;
    }
    if (!pkg || typeof pkg !== "object" || Array.isArray(pkg))
      throw new Error(
        "the existing package.json in the output folder is not a JSON object; fix it or " +
          "remove it, then run generate again",
      );
  }
  const defaults: Record<string, unknown> = {
    name: request.packageName,
    version: "0.1.0",
    type: "module",
    sideEffects: false,
    files: ["dist/"],
    scripts: { build: "tsc -p tsconfig.json", prepack: "tsc -p tsconfig.json" },
    devDependencies: { typescript: `^${request.typescriptVersion}` },
  };
  const merged: Record<string, unknown> = { ...defaults, ...pkg };
  merged.name = request.packageName;
  merged.type = "module";
  merged.exports = packageExports(request.serviceIds, request.files);
  merged.dependencies = {
    ...((pkg.dependencies as Record<string, string> | undefined) ?? {}),
    stepforge: `^${request.stepforgeVersion}`,
  };
  return `${JSON.stringify(merged, null, 2)}\n`;
}

/** tsconfig.json for DIR: strict, NodeNext, declarations, DIR/*.ts → DIR/dist/. */
export function packageTsconfig(): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023", "DOM"],
      strict: true,
      declaration: true,
      skipLibCheck: true,
      rootDir: ".",
      outDir: "dist",
    },
    include: ["**/*.ts"],
    exclude: ["dist", "node_modules"],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
