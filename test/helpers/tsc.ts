/** Runs the project's TypeScript compiler on a tsconfig and returns its diagnostics text. */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../../generator/package-root.js";

const require = createRequire(import.meta.url);
const TSC = require.resolve("typescript/bin/tsc");
const BUILT_RUNTIME = fileURLToPath(new URL("./tsc-built-runtime.mjs", import.meta.url));

export interface TypecheckOptions {
  /**
   * Resolve the runtime's modules to their built declarations in dist/ (as a consumer of the
   * package sees them) instead of checking the runtime's sources again: for tests that check
   * generated code, not the runtime (test/project.test.ts checks the runtime's sources).
   */
  againstBuiltRuntime?: boolean;
  /** The same for these source folders (`["runtime", "cli"]`); overrides `againstBuiltRuntime`. */
  againstBuilt?: readonly string[];
}

export function typecheck(tsconfigPath: string, options: TypecheckOptions = {}): { ok: boolean; output: string } {
  const built = options.againstBuilt ?? (options.againstBuiltRuntime ? ["runtime"] : []);
  const args =
    built.length > 0
      ? [BUILT_RUNTIME, tsconfigPath, packageRoot(), built.join(",")]
      : [TSC, "--noEmit", "-p", tsconfigPath];
  const run = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 32 * 1024 * 1024 });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/**
 * Writes `tsconfigPath` to check every .ts file below `dirs` (generated code) in one program, as the
 * package's own sources are checked: its tsconfig, strict, no output.
 */
export function writeGeneratedTsconfig(tsconfigPath: string, dirs: string[]): void {
  const root = packageRoot();
  writeFileSync(
    tsconfigPath,
    JSON.stringify({
      extends: resolve(root, "tsconfig.json"),
      compilerOptions: { rootDir: root, noEmit: true },
      include: dirs.map((d) => `${d}/**/*.ts`),
      exclude: [],
    }),
  );
}

/**
 * Type-checks generated code as the package's own sources are checked (its tsconfig, strict),
 * against the built runtime: writes `tsconfigPath` to take in every .ts file below `dirs`.
 */
export function typecheckGenerated(tsconfigPath: string, dirs: string[]): { ok: boolean; output: string } {
  writeGeneratedTsconfig(tsconfigPath, dirs);
  return typecheck(tsconfigPath, { againstBuiltRuntime: true });
}
