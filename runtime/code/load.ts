/**
 * Reading what the code mode needs from disk: each service's generated declarations (`client.ts`
 * and `types.ts` from the sources, or `client.d.ts` and `types.d.ts` from a build), the compiler,
 * ts-blank-space when it is installed, and the runtime's operation types (the generated client's
 * `OperationData`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as TS from "typescript";
import { CompilerApiError, loadCompilerApi, type CompilerApi } from "../internal/compiler-api.js";
import type { ServiceCatalog } from "../mcp/catalog.js";
import type { TypeBlanker } from "./typecheck.js";

/** One service as the code mode serves it: its steps and the text of its generated declarations. */
export interface CodeService {
  catalog: ServiceCatalog;
  /** The generated `client.ts` (or `client.d.ts`). */
  client: string;
  /** The generated `types.ts` (or `types.d.ts`). */
  types: string;
}

/** A package the code mode needs is missing; the message says what to install. */
export class CodeModeSetupError extends Error {
  override name = "CodeModeSetupError";
}

function readFirst(dir: string, names: string[]): string | undefined {
  const file = names.map((n) => join(dir, n)).find((f) => existsSync(f));
  return file ? readFileSync(file, "utf8") : undefined;
}

/** Each catalogue's declarations from `<generatedDir>/<service>/`. */
export function loadCodeServices(catalogs: readonly ServiceCatalog[], generatedDir: string): CodeService[] {
  return catalogs.map((catalog) => {
    const dir = join(generatedDir, catalog.id);
    const client = readFirst(dir, ["client.ts", "client.d.ts"]);
    const types = readFirst(dir, ["types.ts", "types.d.ts"]);
    if (client === undefined || types === undefined) {
      throw new CodeModeSetupError(
        `${catalog.id}: no generated client.ts/types.ts (or .d.ts) in ${dir}; run stepforge generate`,
      );
    }
    return { catalog, client, types };
  });
}

/**
 * The compiler the check uses: the project's `typescript` when it has the JavaScript API, else the
 * TypeScript 5.9 inside ts-morph (a project on TypeScript 7: runtime/internal/compiler-api.ts).
 */
export function loadCompiler(): CompilerApi {
  try {
    return loadCompilerApi("the code mode's type check", { dependency: "runtime" });
  } catch (error) {
    if (error instanceof CompilerApiError) throw new CodeModeSetupError(error.message);
    throw error;
  }
}

export async function loadTypeScript(): Promise<typeof TS> {
  return loadCompiler().ts;
}

/**
 * ts-blank-space's `blankSourceFile` (an optional peer: without it a checked run's types are
 * stripped by the compiler's emitter, about 1 ms slower a run); undefined when it is not installed.
 */
export async function loadTypeBlanker(): Promise<TypeBlanker | undefined> {
  try {
    const loaded = (await import("ts-blank-space")) as { blankSourceFile?: TypeBlanker };
    return typeof loaded.blankSourceFile === "function" ? loaded.blankSourceFile : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The declarations of the runtime's operation types (OperationData), read beside this module: the
 * built .d.ts in a package, the TypeScript source in a checkout run from source.
 */
export function operationTypesDeclarations(): string {
  const file = [".d.ts", ".ts"]
    .map((extension) => fileURLToPath(new URL(`../client/operation-types${extension}`, import.meta.url)))
    .find((path) => existsSync(path));
  if (!file)
    throw new CodeModeSetupError(
      `the runtime's client/operation-types declarations are missing beside ${fileURLToPath(import.meta.url)}; ` +
        "reinstall stepforge (or run `npm run build` in a checkout)",
    );
  return readFileSync(file, "utf8");
}
