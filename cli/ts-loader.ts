/**
 * Loading TypeScript at run time: a project's `stepforge.config.ts` and the modules generated in
 * memory for a project's specs (cli/spec-services.ts). Node 20 cannot run .ts files, so jiti
 * (unjs/jiti, no dependencies of its own) transpiles them, caching the result on disk.
 *
 * `stepforge/config` and `stepforge/runtime` resolve to this copy of stepforge wherever the file
 * sits (a config in a project that installed stepforge elsewhere, or runs it with npx). Every other
 * import, JavaScript ones included, is loaded by Node itself (`tryNative`), so a module is never
 * loaded twice: a generated module shares the runtime, and its registries, with the CLI.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createJiti, type Jiti } from "jiti";

let loader: Jiti | undefined;

/** The folder of one of this copy's modules: dist/… when built, the .ts sources under tsx or vitest. */
function own(relativeToCli: string): string {
  return fileURLToPath(new URL(relativeToCli, import.meta.url));
}

function ownModule(relativeToCli: string): string {
  const js = own(`${relativeToCli}.js`);
  return existsSync(js) ? js : own(`${relativeToCli}.ts`);
}

export function tsLoader(): Jiti {
  loader ??= createJiti(import.meta.url, {
    alias: { "stepforge/config": ownModule("./config/define"), "stepforge/runtime": own("../runtime") },
    tryNative: true,
    interopDefault: true,
  });
  return loader;
}

/** Imports a .ts/.mts/.js/.mjs module by absolute path. */
export async function importModule<T>(file: string): Promise<T> {
  return (await tsLoader().import(file)) as T;
}
