/**
 * `stepforge mcp --code`: the code mode's tool set (runtime/code) over the generated services of
 * this package, for mcp.ts to serve instead of the steps.
 */
import { fileURLToPath } from "node:url";
import type { Accounts } from "../../runtime/mcp/accounts.js";
import type { Selection, ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { CodeModeSetupError, createCodeMode, loadCodeServices, type CodeMode } from "../../runtime/code/index.js";
import { UsageError } from "../usage.js";

export interface CodeModeFlags {
  resultBytes?: number | undefined;
  maxLimitWaitMs?: number | undefined;
  signal: AbortSignal;
}

/** The code mode over every catalogue's generated declarations (found beside the catalogues' tools). */
export async function startCodeMode(
  catalogs: ServiceCatalog[],
  selection: Selection,
  accounts: Accounts,
  flags: CodeModeFlags,
): Promise<CodeMode> {
  const generated = fileURLToPath(new URL("../../generated/", import.meta.url));
  try {
    return await createCodeMode({
      services: loadCodeServices(catalogs, generated),
      connections: accounts,
      selection,
      ...flags,
    });
  } catch (error) {
    if (error instanceof CodeModeSetupError) throw new UsageError(`--code: ${error.message}`);
    throw error;
  }
}
