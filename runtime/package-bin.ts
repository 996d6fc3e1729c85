/** The script behind an installed package's bin (run with this Node, no shell, no npx). */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export function packageBin(packageName: string, binName: string): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve(`${packageName}/package.json`);
  const pkg = require(pkgPath) as { bin: string | Record<string, string> };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin[binName];
  if (!bin) throw new Error(`${packageName} has no bin "${binName}"`);
  return join(dirname(pkgPath), bin);
}
