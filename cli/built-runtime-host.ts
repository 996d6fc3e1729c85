/**
 * Type-checking generated code as a consumer does: against the runtime's built declarations in
 * dist/, not its TypeScript sources. Used by the dist/ compile of generated modules and by the
 * tests that type-check generated output (test/helpers/tsc.ts), where checking the runtime's
 * sources again was most of each run (the runtime's own sources are checked once, by the
 * project's type-check test).
 */
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * A compiler host that resolves the generated code's runtime imports (`../../runtime/index.js`) to
 * the runtime's built declarations in dist/ when they exist, instead of its TypeScript sources: the
 * generated modules are then compiled as a consumer compiles them, without parsing and checking
 * the whole runtime (and its dependencies' types) again. That was two thirds of a cold `generate`.
 * The emitted imports are unchanged: dist/ mirrors the source layout.
 */
export function againstBuiltRuntime(
  ts: typeof import("typescript"),
  root: string,
  options: import("typescript").CompilerOptions,
): import("typescript").CompilerHost {
  const host = ts.createCompilerHost(options);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const runtimeSources = join(root, "runtime") + sep;
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions) =>
    literals.map((literal) => {
      const found = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected);
      const file = found.resolvedModule?.resolvedFileName;
      if (!file || !file.startsWith(runtimeSources) || file.endsWith(".d.ts")) return found;
      const built = join(root, "dist", relative(root, file)).replace(/\.ts$/, ".d.ts");
      return existsSync(built)
        ? { resolvedModule: { ...found.resolvedModule!, resolvedFileName: built, extension: ts.Extension.Dts } }
        : found;
    });
  return host;
}
