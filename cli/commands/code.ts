/**
 * `stepforge mcp --code`: the code mode's tool set (runtime/code) over the served services, for
 * mcp.ts to serve instead of the steps. A bundled service's declarations are this package's
 * generated/; a project's (or `--spec`) service's are built from its spec (cli/spec-declarations.ts).
 */
import { fileURLToPath } from "node:url";
import { requirePackages } from "../../runtime/internal/package-bin.js";
import { overridesFirst } from "../command-packages.js";
import type { Accounts } from "../../runtime/mcp/accounts.js";
import type { Selection, ServiceCatalog } from "../../runtime/mcp/catalog.js";
import {
  CodeModeSetupError,
  createCodeMode,
  loadCodeServices,
  type CodeMode,
  type CodeService,
} from "../../runtime/code/index.js";
import type { ServiceSource } from "../project.js";

export interface CodeModeFlags {
  resultBytes?: number | undefined;
  maxLimitWaitMs?: number | undefined;
  signal: AbortSignal;
}

/** Each catalogue's declarations: the package's generated/ for a bundled service, else built from its spec. */
async function codeServices(
  catalogs: readonly ServiceCatalog[],
  sourceOf: (id: string) => ServiceSource,
  projectDir: string,
): Promise<CodeService[]> {
  const generated = fileURLToPath(new URL("../../generated/", import.meta.url));
  const services: CodeService[] = [];
  for (const catalog of catalogs) {
    const source = sourceOf(catalog.id);
    if (source.origin === "bundled") {
      services.push(...loadCodeServices([catalog], generated));
      continue;
    }
    requirePackages(
      `stepforge mcp --code: the declarations of ${source.id}`,
      ["openapi-typescript"],
      "dev",
      overridesFirst,
    );
    const { buildSpecDeclarations } = await import("../spec-declarations.js");
    services.push(...loadCodeServices([catalog], await buildSpecDeclarations(source, projectDir)));
  }
  return services;
}

/** The code mode over every catalogue's declarations; `sourceOf` names where each service comes from. */
export async function startCodeMode(
  catalogs: ServiceCatalog[],
  selection: Selection,
  accounts: Accounts,
  flags: CodeModeFlags,
  sourceOf: (id: string) => ServiceSource,
  projectDir = process.cwd(),
): Promise<CodeMode> {
  try {
    return await createCodeMode({
      services: await codeServices(catalogs, sourceOf, projectDir),
      connections: accounts,
      selection,
      ...flags,
    });
  } catch (error) {
    // A package or a build the code mode lacks: the sentence says what to do; the usage would not.
    if (error instanceof CodeModeSetupError) throw new CodeModeSetupError(`--code: ${error.message}`);
    throw error;
  }
}
