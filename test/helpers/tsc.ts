/** Runs the project's TypeScript compiler on a tsconfig and returns its diagnostics text. */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const TSC = require.resolve("typescript/bin/tsc");

export function typecheck(tsconfigPath: string): { ok: boolean; output: string } {
  const run = spawnSync(process.execPath, [TSC, "--noEmit", "-p", tsconfigPath], {
    encoding: "utf8",
    maxBuffer: 32 * 1024 * 1024,
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}
