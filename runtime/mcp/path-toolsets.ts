/**
 * Toolsets for a service whose spec declares none (no `x-stepforge.tools.toolsets`, no tags the
 * generator grouped by): its steps grouped by the first part of their paths that tells them apart,
 * so `--toolsets` can trim a public spec's hundreds of steps, and the budget's message can name
 * groups that fit.
 *
 * - Version and parameter segments carry no meaning (`/v1/`, `/2010-04-01/`, `/{id}/`) and a
 *   file extension neither (`Calls.json`); a method-style segment groups by its first word
 *   (Slack's `chat.postMessage` → `chat`).
 * - Leading segments every step shares are skipped (Twilio's `/Accounts/{AccountSid}/…` would
 *   put every step in one group; its groups are `calls`, `messages`, …).
 * - A step whose path says nothing more (the API Call step) belongs to no group.
 */
import type { Toolset } from "../tools/extension-types.js";
import type { ToolDefinition } from "../tools/types.js";

const VERSION = /^(v\d+([._]\d+)*|\d[\d.-]*|api|rest)$/i;

/** The segments of a path that name something, as toolset-name words. */
function wordsOf(path: string): string[] {
  return path
    .split("/")
    .filter((s) => s.length > 0 && !s.includes("{"))
    .map((s) => s.replace(/\.(json|xml|csv)$/i, ""))
    .filter((s) => !VERSION.test(s))
    .map((s) => (s.includes(".") ? s.split(".")[0]! : s))
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, ""),
    )
    .filter((s) => s.length > 0);
}

/** A valid toolset name (`[a-z][a-z0-9_]{0,31}`) from a path word. */
function toolsetName(word: string): string {
  const name = /^[a-z]/.test(word) ? word : `n${word}`;
  return name.slice(0, 32).replace(/_+$/, "");
}

function pathOf(tool: ToolDefinition): string | undefined {
  return tool.kind === "operation" ? tool.descriptor.operations[tool.operationId]?.path : undefined;
}

/** Groups of `tools` by path, for a service that declares no toolsets; sorted by name. */
export function pathToolsets(tools: readonly ToolDefinition[]): Toolset[] {
  const words = new Map<ToolDefinition, string[]>();
  for (const tool of tools) {
    const path = pathOf(tool);
    if (path !== undefined) words.set(tool, wordsOf(path));
  }
  // Skip the leading words every step shares, while every step has a word after them.
  let level = 0;
  const lists = [...words.values()].filter((w) => w.length > 0);
  while (lists.length > 0 && lists.every((w) => w.length > level + 1 && w[level] === lists[0]![level])) level++;
  const groups = new Map<string, string[]>();
  for (const [tool, w] of words) {
    if (w.length === 0) continue;
    const name = toolsetName(w[Math.min(level, w.length - 1)]!);
    const steps = groups.get(name) ?? [];
    steps.push(tool.name);
    groups.set(name, steps);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, steps]) => ({
      name,
      description: `The steps whose paths start with "${name}" (grouped by path: the spec declares no toolsets).`,
      steps,
    }));
}
