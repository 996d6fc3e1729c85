/**
 * File-tree helpers shared by the pipeline (comparing and writing output) and the no-change cache,
 * kept apart from both so the cache can use them without loading the pipeline.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, sep } from "node:path";

export function toPosix(path: string): string {
  return path.split(sep).join("/");
}

/** Every file below `dir`, sorted, as absolute paths; none when `dir` does not exist. */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const abs = join(at, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else found.push(abs);
    }
  };
  walk(dir);
  return found;
}
