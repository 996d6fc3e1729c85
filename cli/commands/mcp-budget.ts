/**
 * `stepforge mcp` flags for the listing budget and the client profile:
 *
 *   --client cursor|vscode|claude-code|claude-desktop|windsurf|generic
 *   --max-tools N            most tools listed one per step (default 128; the client may lower it)
 *   --max-listing-bytes N    most bytes of tools/list (default 122880, i.e. 120 KB)
 *
 * Over the budget the server serves the meta-tools (as --dynamic) and says so once on stderr,
 * naming toolsets that would fit (runtime/mcp/budget.ts).
 */
import { CLIENT_NAMES, clientProfile, type ClientName, type ListingBudget } from "../../runtime/mcp/budget.js";
import { UsageError } from "../usage.js";

export const BUDGET_FLAGS = {
  client: { type: "string" },
  "max-tools": { type: "string" },
  "max-listing-bytes": { type: "string" },
} as const;

export interface BudgetFlags {
  client?: string | undefined;
  "max-tools"?: string | undefined;
  "max-listing-bytes"?: string | undefined;
}

function wholeNumber(flag: string, value: string, least: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < least)
    throw new UsageError(`--${flag} must be a whole number, at least ${least}, got "${value}"`);
  return n;
}

/** The server options these flags give; a bad value is a usage error naming the flag and the fix. */
export function budgetOptions(values: BudgetFlags): { budget: Partial<ListingBudget>; client?: ClientName } {
  const budget: Partial<ListingBudget> = {};
  if (values["max-tools"] !== undefined) budget.maxTools = wholeNumber("max-tools", values["max-tools"], 1);
  if (values["max-listing-bytes"] !== undefined)
    budget.maxBytes = wholeNumber("max-listing-bytes", values["max-listing-bytes"], 1000);
  if (values.client === undefined) return { budget };
  try {
    return { budget, client: clientProfile(values.client).name };
  } catch {
    throw new UsageError(`--client must be one of ${CLIENT_NAMES.join(", ")}, got "${values.client}"`);
  }
}
