// Type-checks a tsconfig's program as a consumer of the package would: the modules of the given
// source folders (default: the runtime) resolve to their built declarations in dist/ (when built)
// instead of their TypeScript sources, so the code is checked against their public types without
// checking those sources again (the build, or test/project.test.ts, checks them). Prints
// diagnostics as tsc does. Plain JavaScript so that node runs it without a loader.
// Usage: node tsc-built-runtime.mjs TSCONFIG PACKAGE_ROOT [FOLDER,FOLDER...]
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";

const [tsconfig, root, folders = "runtime"] = process.argv.slice(2);
const ts = createRequire(import.meta.url)("typescript");

function againstBuilt(options) {
  const host = ts.createCompilerHost(options);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const sources = folders.split(",").map((folder) => join(root, folder) + sep);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions) =>
    literals.map((literal) => {
      const found = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected);
      const file = found.resolvedModule?.resolvedFileName;
      if (!file || !sources.some((dir) => file.startsWith(dir)) || file.endsWith(".d.ts")) return found;
      const built = join(root, "dist", relative(root, file)).replace(/\.ts$/, ".d.ts");
      if (!existsSync(built)) return found;
      return { resolvedModule: { ...found.resolvedModule, resolvedFileName: built, extension: ts.Extension.Dts } };
    });
  return host;
}

const fail = (diagnostics) => {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => "\n" };
  process.stdout.write(ts.formatDiagnostics(diagnostics, host));
  process.exit(2);
};
const parsed = ts.getParsedCommandLineOfConfigFile(
  tsconfig,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
);
if (parsed.errors.length > 0) fail(parsed.errors);
const program = ts.createProgram({
  rootNames: parsed.fileNames,
  options: parsed.options,
  host: againstBuilt(parsed.options),
});
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) fail(diagnostics);
