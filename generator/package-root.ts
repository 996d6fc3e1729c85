/**
 * The stepforge package root (runtime/, specs/, templates/, .spectral.yaml), found by walking up
 * from this file, so it works the same from source and from dist/.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "stepforge")
      return (cached = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the stepforge package root");
    dir = parent;
  }
}
