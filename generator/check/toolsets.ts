/**
 * Default toolsets for a spec that declares none (`x-stepforge.tools.toolsets`): one per tag, in
 * the order tags first appear (the document's `tags` list first), so `stepforge mcp --toolsets
 * pets,store:read` can offer a model ten steps instead of four hundred. An operation without a
 * tag goes to the toolset of its first path segment that names something (`/v1/users/{id}` →
 * `users`; version and `api` prefixes and parameters skipped), or `other`. An operation with
 * several tags is in each of their toolsets, as a step may be in several.
 *
 * Names follow the toolset syntax (`^[a-z][a-z0-9_]{0,31}$`): `User Accounts` → `user_accounts`,
 * `2FA` → `t_2fa`; unique (numbered when two tags make one name), never `all` (the selector for
 * every step). Deterministic: document order decides.
 */
import type { Toolset } from "../../runtime/tools/extension.js";
import type { SurfaceOperation, ToolStepModel } from "../model.js";
import { asArray, asObject, type Json } from "../refs.js";
import { sentence } from "../schema.js";
import { snakeCase } from "../names.js";

const MAX_NAME = 32;
/** Path segments that group nothing: versions and API prefixes. */
const NOT_A_GROUP = /^(v\d+(\.\d+)*|api|rest|\d+(\.\d+)*)$/i;
/** Longest description kept from a tag's own (a toolset list is read by people and models choosing). */
const MAX_DESCRIPTION = 200;

/** The groups an operation belongs to: its tags, or its first meaningful path segment. */
function groupsOf(op: SurfaceOperation): Array<{ key: string; tag: boolean }> {
  if (op.tags.length > 0) return [...new Set(op.tags)].map((key) => ({ key, tag: true }));
  const segment = op.path.split("/").find((s) => s !== "" && !s.includes("{") && !NOT_A_GROUP.test(s));
  return [{ key: segment ?? "other", tag: false }];
}

function toolsetName(key: string, taken: Set<string>): string {
  let base = snakeCase(key).slice(0, MAX_NAME).replace(/_+$/, "");
  if (!/^[a-z]/.test(base)) base = `t_${base}`.slice(0, MAX_NAME).replace(/_+$/, "");
  if (base === "t") base = "other";
  let name = base;
  for (let i = 2; taken.has(name) || name === "all"; i++)
    name = `${base.slice(0, MAX_NAME - String(i).length - 1)}_${i}`;
  taken.add(name);
  return name;
}

/** A tag's description as one short sentence, or what the toolset holds. */
function describe(key: string, tag: boolean, declared: Json | undefined): string {
  const own = typeof declared?.description === "string" ? declared.description.split(/\n\s*\n/)[0]!.trim() : "";
  if (own) {
    const text = sentence(own);
    return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1).replace(/\s+\S*$/, "")}…`;
  }
  return tag ? `Operations tagged "${key}".` : `Operations under /${key}.`;
}

export function defaultToolsets(doc: Json, operations: SurfaceOperation[], steps: ToolStepModel[]): Toolset[] {
  const declaredTags = new Map<string, Json>();
  for (const entry of asArray(doc.tags)) {
    const tag = asObject(entry);
    if (tag && typeof tag.name === "string" && !declaredTags.has(tag.name)) declaredTags.set(tag.name, tag);
  }
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  // Groups in the document's tag order, then in the order operations first use them.
  const groups = new Map<string, { tag: boolean; steps: string[] }>();
  for (const name of declaredTags.keys()) groups.set(`tag:${name}`, { tag: true, steps: [] });
  for (const step of steps) {
    const op = byId.get(step.operationId);
    if (!op) continue;
    for (const { key, tag } of groupsOf(op)) {
      const id = `${tag ? "tag" : "path"}:${key}`;
      const group = groups.get(id) ?? { tag, steps: [] };
      if (!group.steps.includes(step.name)) group.steps.push(step.name);
      groups.set(id, group);
    }
  }
  const taken = new Set<string>();
  const toolsets: Toolset[] = [];
  for (const [id, group] of groups) {
    if (group.steps.length === 0) continue;
    const key = id.slice(id.indexOf(":") + 1);
    toolsets.push({
      name: toolsetName(key, taken),
      description: describe(key, group.tag, group.tag ? declaredTags.get(key) : undefined),
      steps: group.steps,
    });
  }
  return toolsets;
}
