/**
 * Which steps a server offers: the services asked for, narrowed to toolsets. Toolsets are declared
 * per service in the spec (`x-stepforge.tools.toolsets`) and selected by name:
 *
 * - `cards`: the toolset of that name in every selected service that declares it;
 * - `trello.cards`: only Trello's;
 * - `cards:read` / `cards:write`: only its read-only steps, or only the others;
 * - `all`: every step (`all:read` every read-only step).
 *
 * A name that matches nothing is an error listing the toolsets there are. A selected write that
 * declares a check step (`x-stepforge-tool.check`) brings that read step along.
 *
 * A service that declares no toolsets gets groups by path (path-toolsets.ts).
 */
import type { ToolDefinition } from "../tools/types.js";
import type { Toolset } from "../tools/extension-types.js";
import { pathToolsets } from "./path-toolsets.js";

/** One service as a server sees it: its steps and their toolsets (a generated `tools.ts`). */
export interface ServiceCatalog {
  id: string;
  title: string;
  tools: readonly ToolDefinition[];
  toolsets: readonly Toolset[];
}

export interface Selection {
  /** Service ids; empty or absent: every service. */
  services?: readonly string[] | undefined;
  /** Toolset selectors (see above); empty or absent: every step. */
  toolsets?: readonly string[] | undefined;
  /** Only steps that only read. */
  readOnly?: boolean | undefined;
}

/** A selection that cannot be served; the message names the flag and the choices. */
export class SelectionError extends Error {
  override name = "SelectionError";
}

const derived = new WeakMap<ServiceCatalog, readonly Toolset[]>();

/** The toolsets of a service: those it declares, else its steps grouped by path. */
export function toolsetsOfCatalog(catalog: ServiceCatalog): readonly Toolset[] {
  if (catalog.toolsets.length > 0) return catalog.toolsets;
  let found = derived.get(catalog);
  if (!found) derived.set(catalog, (found = pathToolsets(catalog.tools)));
  return found;
}

function available(catalogs: readonly ServiceCatalog[]): string {
  return catalogs.map((c) => `${c.id}: ${[...toolsetsOfCatalog(c).map((t) => t.name), "all"].join(", ")}`).join("; ");
}

export function selectTools(catalogs: readonly ServiceCatalog[], selection: Selection = {}): ToolDefinition[] {
  const ids = selection.services?.length ? [...new Set(selection.services)] : catalogs.map((c) => c.id);
  for (const id of ids) {
    if (!catalogs.some((c) => c.id === id))
      throw new SelectionError(
        `unknown service "${id}" in --service; the services are ${catalogs.map((c) => c.id).join(", ")}`,
      );
  }
  const chosen = catalogs.filter((c) => ids.includes(c.id));
  const picked = new Set<ToolDefinition>();
  const selectors = selection.toolsets?.length ? selection.toolsets : ["all"];
  for (const raw of selectors) {
    const match = /^(?:([a-z][a-z0-9]*)\.)?([a-z][a-z0-9_]*)(?::(read|write))?$/.exec(raw.trim());
    if (!match)
      throw new SelectionError(
        `"${raw}" in --toolsets is not a toolset name; write NAME, SERVICE.NAME, or either ` +
          `with :read or :write (e.g. cards:read)`,
      );
    const [, service, name, mode] = match;
    let matched = 0;
    for (const catalog of chosen) {
      if (service && catalog.id !== service) continue;
      const listed =
        name === "all"
          ? catalog.tools.map((t) => t.name)
          : toolsetsOfCatalog(catalog).find((t) => t.name === name)?.steps;
      if (!listed) continue;
      // A set: a public spec's "all" is a thousand steps, checked against each step.
      const steps = new Set(listed);
      for (const tool of catalog.tools) {
        if (!steps.has(tool.name)) continue;
        if (mode === "read" && !tool.annotations.readOnlyHint) continue;
        if (mode === "write" && tool.annotations.readOnlyHint) continue;
        picked.add(tool);
        matched++;
      }
    }
    if (matched === 0)
      throw new SelectionError(
        `--toolsets "${raw}" matches no step of ${ids.join(", ")}; the toolsets are ${available(chosen)}`,
      );
  }
  // A write's "outcome unknown" advice names its check step: it must be served with the write, or
  // the advice would send the model to a step the server does not have.
  for (const catalog of chosen) {
    for (const tool of catalog.tools) {
      if (!picked.has(tool) || !tool.check) continue;
      const check = catalog.tools.find((t) => t.name === tool.check!.step);
      if (check) picked.add(check);
    }
  }
  const out = chosen.flatMap((c) => c.tools.filter((t) => picked.has(t)));
  return selection.readOnly ? out.filter((t) => t.annotations.readOnlyHint) : out;
}

/** The toolsets a step belongs to, by service. */
export function toolsetsOf(catalogs: readonly ServiceCatalog[], tool: ToolDefinition): string[] {
  const catalog = catalogs.find((c) => c.id === tool.service);
  return catalog
    ? toolsetsOfCatalog(catalog)
        .filter((t) => t.steps.includes(tool.name))
        .map((t) => t.name)
    : [];
}
