/**
 * What a listing may cost before the server stops listing steps one by one: a size and a tool
 * count (default 120 KB and 128 tools), lowered by the client the server is for. A public spec
 * lists hundreds of steps (Stripe's 452 are 416 KB); clients cut what they take (Cursor 40 tools,
 * VS Code 128 per request, Windsurf 50) and every listed byte is context the model pays for on
 * each turn. Over the budget the server serves the meta-tools instead (search_steps,
 * describe_step, call_step: a few KB whatever the steps) and says once why, and which toolsets
 * would fit as tools.
 *
 * Client limits (reference agent-surface-2026.md, "Dynamic tools and budgets"):
 * - Cursor: 40 tools; server name + tool name at most 60 characters;
 * - VS Code / GitHub Copilot: 128 tools per request;
 * - Claude Code: cuts a tool result at 25,000 tokens (defers tool definitions, so no tool cap);
 * - Windsurf: 50 tools (a 2026 table says 100; the lower is kept);
 * - Claude Desktop, generic: no documented cap beyond the default budget.
 */
import { createHash } from "node:crypto";
import type { ServiceCatalog } from "./catalog.js";
import { toolsetsOfCatalog } from "./catalog.js";
import type { ListedTool, ServedTool } from "./listing.js";

export interface ListingBudget {
  /** Bytes of the `tools/list` answer (JSON). */
  maxBytes: number;
  /** Tools listed. */
  maxTools: number;
}

export const DEFAULT_LISTING_BUDGET: ListingBudget = { maxBytes: 120 * 1024, maxTools: 128 };

export const CLIENT_NAMES = ["cursor", "vscode", "claude-code", "claude-desktop", "windsurf", "generic"] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

export interface ClientProfile {
  name: ClientName;
  /** As a person names it, in messages. */
  label: string;
  /** Most tools the client takes from a server. */
  maxTools?: number;
  /** Longest server name + tool name the client takes. */
  maxQualifiedName?: number;
  /** Largest result the client keeps whole, in bytes of JSON. */
  maxResultBytes?: number;
}

/** Bytes per token assumed for a result limit given in tokens (JSON tokenises at about 3-4 bytes). */
const BYTES_PER_TOKEN = 3;

export const CLIENT_PROFILES: Readonly<Record<ClientName, ClientProfile>> = {
  cursor: { name: "cursor", label: "Cursor", maxTools: 40, maxQualifiedName: 60 },
  vscode: { name: "vscode", label: "VS Code", maxTools: 128 },
  "claude-code": { name: "claude-code", label: "Claude Code", maxResultBytes: 25_000 * BYTES_PER_TOKEN },
  "claude-desktop": { name: "claude-desktop", label: "Claude Desktop" },
  windsurf: { name: "windsurf", label: "Windsurf", maxTools: 50 },
  generic: { name: "generic", label: "a generic MCP client" },
};

/** The profile of a client name; an unknown name is an error naming the choices. */
export function clientProfile(name: string): ClientProfile {
  const found = (CLIENT_PROFILES as Record<string, ClientProfile>)[name];
  if (!found) throw new RangeError(`unknown client "${name}"; the clients are ${CLIENT_NAMES.join(", ")}`);
  return found;
}

/** The budget a listing for `profile` must keep: the given one, with the client's tool cap. */
export function budgetFor(budget: ListingBudget, profile: ClientProfile | undefined): ListingBudget {
  return {
    maxBytes: budget.maxBytes,
    maxTools: Math.min(budget.maxTools, profile?.maxTools ?? Number.POSITIVE_INFINITY),
  };
}

/**
 * A tool name the client takes: names over `max` characters are cut and end in a short hash of the
 * whole name, so two long names that share a start stay apart and a name is the same on every run.
 */
export function clientToolName(name: string, max: number): string {
  if (name.length <= max) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 6);
  return `${name.slice(0, Math.max(1, max - hash.length - 1)).replace(/_+$/, "")}_${hash}`;
}

export const listingBytes = (tools: readonly ListedTool[]): number => Buffer.byteLength(JSON.stringify({ tools }));

const kb = (bytes: number): string => `${Math.max(1, Math.round(bytes / 1024))} KB`;

/** Why a per-step listing does not fit, or undefined when it does. */
export function overBudget(
  tools: readonly ListedTool[],
  budget: ListingBudget,
  profile?: ClientProfile,
): string | undefined {
  const limits = budgetFor(budget, profile);
  const bytes = listingBytes(tools);
  const reasons: string[] = [];
  if (tools.length > limits.maxTools) {
    const cap =
      profile?.maxTools !== undefined && profile.maxTools <= budget.maxTools
        ? `${profile.label} takes at most ${limits.maxTools}`
        : `over the budget of ${limits.maxTools}`;
    reasons.push(`${tools.length} tools (${cap})`);
  }
  if (bytes > limits.maxBytes)
    reasons.push(
      `${kb(bytes)} of tools/list (over the budget of ${kb(limits.maxBytes)}, ` +
        `about ${Math.round(bytes / 4 / 1000)}k tokens a turn)`,
    );
  return reasons.length ? reasons.join(" and ") : undefined;
}

/**
 * Toolsets of the served services that fit the budget alone, largest first (their step counts and
 * listing sizes), for the message that asks for `--toolsets`.
 */
export function fittingToolsets(
  catalogs: readonly ServiceCatalog[],
  served: readonly ServedTool[],
  budget: ListingBudget,
  profile?: ClientProfile,
): string[] {
  const limits = budgetFor(budget, profile);
  const byName = new Map(served.map((s) => [s.definition.name, s]));
  const services = new Set(served.map((s) => s.definition.service));
  const out: Array<{ label: string; steps: number; bytes: number }> = [];
  for (const catalog of catalogs) {
    if (!services.has(catalog.id)) continue;
    for (const set of toolsetsOfCatalog(catalog)) {
      const listed = set.steps.flatMap((n) => (byName.has(n) ? [byName.get(n)!.listed] : []));
      if (listed.length === 0) continue;
      const bytes = listingBytes(listed);
      if (listed.length <= limits.maxTools && bytes <= limits.maxBytes)
        out.push({ label: services.size > 1 ? `${catalog.id}.${set.name}` : set.name, steps: listed.length, bytes });
    }
  }
  // The largest groups that fit first: they are the ones worth listing as tools.
  return out
    .sort((a, b) => b.steps - a.steps || a.label.localeCompare(b.label))
    .map((t) => `${t.label} (${t.steps} step${t.steps === 1 ? "" : "s"}, ${kb(t.bytes)})`);
}

/** The one message a server over its budget says (stderr of `stepforge mcp`). */
export function budgetNotice(why: string, fitting: readonly string[], profile?: ClientProfile): string {
  const shown = fitting.slice(0, 12);
  const more = fitting.length > shown.length ? `, and ${fitting.length - shown.length} more` : "";
  const pick = shown.length
    ? " To list steps as tools instead, pick toolsets that fit (combine them within the budget): " +
      `--toolsets ${shown.join(", ")}${more}.`
    : " No single toolset fits; narrow with --service or --read-only, or raise --max-tools / --max-listing-bytes.";
  const forClient = profile && profile.name !== "generic" ? ` for ${profile.label}` : "";
  const serving = "serving the meta-tools search_steps, describe_step and call_step instead (as --dynamic)";
  return `the listing${forClient} would be ${why}: ${serving}.${pick}`;
}
