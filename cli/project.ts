/** The project's own specs, in a fixed order. */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { packageRoot } from "../generator/package-root.js";

export function projectSpecs(root = packageRoot()): string[] {
  const dir = join(root, "specs");
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => resolve(dir, f));
}
