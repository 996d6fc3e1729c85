/**
 * The surface pass: what two surfaces of one service say changed without looking at types —
 * operations added, removed, renamed or moved; parameters renamed; tool steps, toolsets, triggers
 * and auth. It also picks the operation pairs whose request or response fingerprints differ: only
 * those go to the checker (typecheck.ts), so an edit that leaves the schemas alone costs nothing there.
 */
import type { Change, ChangeKind } from "./change.js";
import {
  operationKey,
  parameterRenames,
  toolRenames,
  type OperationSurface,
  type ServiceSurface,
  type ToolSurface,
} from "./surface.js";

/** One operation in both versions whose declarations the checker must compare. */
export interface TypedPair {
  old: OperationSurface;
  now: OperationSurface;
  /** Renamed parameters: "in newName" → old name (compared with each other, not as removed + added). */
  renames: Map<string, string>;
}

export interface SurfaceComparison {
  changes: Change[];
  pairs: TypedPair[];
}

const change = (
  kind: ChangeKind,
  breaking: boolean,
  target: string,
  detail: string,
  decidedBy: Change["decidedBy"] = "model",
): Change => ({ kind, breaking, decidedBy, target, detail });

const where = (op: OperationSurface) => `${op.method} ${op.path}`;

/** Fingerprints of everything the typed client's declarations of an operation depend on. */
const signature = (op: OperationSurface) =>
  JSON.stringify([op.parameters.map((p) => [p.in, p.name, p.required, p.schema]), op.body ?? null, op.response]);

/**
 * Old operations paired with the new ones at their endpoints (method and path, parameter names
 * left out). A spec may hold two operations at one endpoint whose paths differ only in their
 * parameters' names (`/cards/{filter}` beside `/cards/{idCard}`: a route the mock refuses, SF193,
 * but a lenient spec keeps both), so the pairing goes in rounds: first each with the one written at
 * its very path, then with the one of its operationId, then with any left at its endpoint.
 */
function pairByEndpoint(old: ServiceSurface, now: ServiceSurface): Map<OperationSurface, OperationSurface> {
  const nowByKey = new Map<string, OperationSurface[]>();
  for (const op of now.operations) nowByKey.set(operationKey(op), [...(nowByKey.get(operationKey(op)) ?? []), op]);
  const partner = new Map<OperationSurface, OperationSurface>();
  const taken = new Set<OperationSurface>();
  const round = (pick: (before: OperationSurface, open: OperationSurface[]) => OperationSurface | undefined) => {
    for (const before of old.operations) {
      if (partner.has(before)) continue;
      const after = pick(
        before,
        (nowByKey.get(operationKey(before)) ?? []).filter((op) => !taken.has(op)),
      );
      if (after) {
        partner.set(before, after);
        taken.add(after);
      }
    }
  };
  round((before, open) => open.find((op) => op.path === before.path));
  round((before, open) => open.find((op) => op.operationId === before.operationId));
  round((_, open) => open[0]);
  return partner;
}

export function compareSurfaces(old: ServiceSurface, now: ServiceSurface): SurfaceComparison {
  const changes: Change[] = [];
  const pairs: TypedPair[] = [];
  const partners = pairByEndpoint(old, now);
  const oldKeys = new Set(old.operations.map(operationKey));
  const nowById = new Map(now.operations.map((op) => [op.operationId, op]));
  const matched = new Set<OperationSurface>(partners.values());
  for (const before of old.operations) {
    // Same method and path; else the same operationId at a place no old operation held (moved).
    const moved = nowById.get(before.operationId);
    let after = partners.get(before);
    if (!after && moved && !oldKeys.has(operationKey(moved)) && !matched.has(moved)) after = moved;
    if (!after) {
      changes.push(
        change(
          "operation-removed",
          true,
          before.operationId,
          `${where(before)} removed; calls to ${before.operationId}() no longer compile`,
          "declarations",
        ),
      );
      continue;
    }
    matched.add(after);
    if (after.operationId !== before.operationId) {
      changes.push({
        ...change(
          "operation-renamed",
          true,
          after.operationId,
          `${before.operationId} → ${after.operationId} (${where(after)})`,
          "declarations",
        ),
        migratable: true,
      });
    } else if (operationKey(after) !== operationKey(before)) {
      changes.push(change("operation-moved", false, after.operationId, `${where(before)} → ${where(after)}`));
    }
    if (after.deprecated && !before.deprecated)
      changes.push(change("operation-deprecated", false, after.operationId, "marked deprecated"));
    const renames = parameterRenames(before, after);
    for (const [key, was] of renames) {
      const [place, name] = key.split(" ") as [string, string];
      changes.push({
        ...change("parameter-renamed", true, after.operationId, `${place} parameter ${was} → ${name}`, "declarations"),
        migratable: true,
      });
    }
    if (signature(before) !== signature(after)) pairs.push({ old: before, now: after, renames });
  }
  for (const op of now.operations)
    if (!matched.has(op)) changes.push(change("operation-added", false, op.operationId, `${where(op)} added`));
  changes.push(
    ...compareTools(old, now),
    ...compareToolsets(old, now),
    ...compareTriggers(old, now),
    ...compareAuth(old, now),
  );
  return { changes, pairs };
}

function compareTools(old: ServiceSurface, now: ServiceSurface): Change[] {
  const changes: Change[] = [];
  const renames = toolRenames(old, now);
  const renamedFrom = new Set(renames.values());
  const oldByName = new Map(old.tools.map((t) => [t.name, t]));
  // A surface written by an older stepforge hashed schemas another way: its hashes say nothing here.
  const sameScheme = (old.fingerprints ?? 1) === (now.fingerprints ?? 1);
  for (const tool of old.tools) {
    if (!now.tools.some((t) => t.name === tool.name) && !renamedFrom.has(tool.name))
      changes.push(change("tool-removed", true, tool.name, "step removed"));
  }
  for (const tool of now.tools) {
    const renamed = renames.get(tool);
    const before = oldByName.get(renamed ?? tool.name);
    if (!before) {
      changes.push(change("tool-added", false, tool.name, "step added"));
      continue;
    }
    if (renamed)
      changes.push({ ...change("tool-renamed", true, tool.name, `${renamed} → ${tool.name}`), migratable: true });
    changes.push(...compareToolFields(before, tool, sameScheme));
    if (before.description !== tool.description || before.title !== tool.title) {
      changes.push(
        change(
          "tool-description-changed",
          false,
          tool.name,
          before.title !== tool.title ? `title "${before.title}" → "${tool.title}"` : "description changed",
        ),
      );
    }
    if (before.readOnly !== tool.readOnly || before.destructive !== tool.destructive) {
      const flags = (t: ToolSurface) => `${t.readOnly ? "read-only" : "write"}${t.destructive ? ", destructive" : ""}`;
      changes.push(
        change(
          "tool-annotations-changed",
          before.readOnly && !tool.readOnly,
          tool.name,
          `${flags(before)} → ${flags(tool)}`,
        ),
      );
    }
  }
  return changes;
}

function compareToolFields(before: ToolSurface, tool: ToolSurface, sameScheme: boolean): Change[] {
  const changes: Change[] = [];
  for (const field of before.fields) {
    if (!tool.fields.some((f) => f.name === field.name))
      changes.push(change("tool-field-removed", true, tool.name, `field ${field.name} removed`));
  }
  for (const field of tool.fields) {
    const was = before.fields.find((f) => f.name === field.name);
    if (!was) {
      changes.push(
        change(
          "tool-field-added",
          field.required,
          tool.name,
          `${field.required ? "required" : "optional"} field ${field.name} added`,
        ),
      );
      continue;
    }
    if (was.required !== field.required)
      changes.push(
        change(
          field.required ? "tool-field-required" : "tool-field-optional",
          field.required,
          tool.name,
          `field ${field.name} became ${field.required ? "required" : "optional"}`,
        ),
      );
    const differs = sameScheme
      ? was.schema.hash !== field.schema.hash
      : JSON.stringify([was.schema.types, was.schema.enum]) !== JSON.stringify([field.schema.types, field.schema.enum]);
    if (differs) {
      const lostTypes = (was.schema.types ?? []).filter((t) => field.schema.types && !field.schema.types.includes(t));
      const same = (a: unknown) => (b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      // Values the old field listed that the new one no longer lists (none when the new one lists none).
      const lostValues =
        field.schema.enum && was.schema.enum ? was.schema.enum.filter((v) => !field.schema.enum!.some(same(v))) : [];
      const detail =
        lostValues.length > 0 && was.schema.enum
          ? `field ${field.name}: values ${lostValues.map((v) => JSON.stringify(v)).join(", ")} no longer accepted`
          : lostTypes.length > 0
            ? `field ${field.name}: no longer accepts ${lostTypes.join(", ")}`
            : `field ${field.name}: schema changed (treated as breaking: wider and narrower look alike here)`;
      const wider =
        lostTypes.length === 0 &&
        lostValues.length === 0 &&
        Boolean(was.schema.enum) &&
        (field.schema.enum?.length ?? 0) > was.schema.enum!.length;
      changes.push(
        change("tool-field-changed", !wider, tool.name, wider ? `field ${field.name}: accepts more values` : detail),
      );
    } else if (was.description !== field.description) {
      changes.push(change("tool-description-changed", false, tool.name, `field ${field.name}: description changed`));
    }
  }
  return changes;
}

function compareToolsets(old: ServiceSurface, now: ServiceSurface): Change[] {
  const changes: Change[] = [];
  // A renamed step is the same member of its toolsets (the rename is reported once, as tool-renamed).
  const renamedTo = new Map([...toolRenames(old, now)].map(([tool, was]) => [was, tool.name]));
  const stillThere = new Set(now.tools.map((t) => t.name));
  const wasThere = new Set(old.tools.map((t) => renamedTo.get(t.name) ?? t.name));
  for (const [name, members] of Object.entries(old.toolsets)) {
    const steps = members.map((s) => renamedTo.get(s) ?? s);
    const after = now.toolsets[name];
    if (!after) changes.push(change("toolset-removed", true, name, "toolset removed"));
    else {
      // Steps added or removed are reported as such; a toolset change is a step that stays but moves.
      const left = steps.filter((s) => !after.includes(s) && stillThere.has(s));
      const joined = after.filter((s) => !steps.includes(s) && wasThere.has(s));
      if (left.length + joined.length > 0)
        changes.push(
          change(
            "toolset-changed",
            left.length > 0,
            name,
            [...joined.map((s) => `+${s}`), ...left.map((s) => `-${s}`)].join(" "),
          ),
        );
    }
  }
  for (const name of Object.keys(now.toolsets))
    if (!old.toolsets[name]) changes.push(change("toolset-added", false, name, "toolset added"));
  return changes;
}

function compareTriggers(old: ServiceSurface, now: ServiceSurface): Change[] {
  const changes: Change[] = [];
  for (const trigger of old.triggers)
    if (!now.triggers.some((t) => t.name === trigger.name))
      changes.push(change("trigger-removed", true, trigger.name, "trigger removed"));
  for (const trigger of now.triggers) {
    const was = old.triggers.find((t) => t.name === trigger.name);
    if (!was) {
      changes.push(change("trigger-added", false, trigger.name, `${trigger.kind} trigger added`));
      continue;
    }
    const reasons: string[] = [];
    if (was.kind !== trigger.kind) reasons.push(`kind ${was.kind} → ${trigger.kind}`);
    if (was.rule !== trigger.rule) reasons.push("what makes it fire changed");
    for (const [name, option] of Object.entries(trigger.options)) {
      const before = was.options[name];
      if (!before) {
        if (option.required) reasons.push(`required option ${name} added`);
      } else if (option.required && !before.required) reasons.push(`option ${name} became required`);
      else if (before.type !== option.type || (before.values ?? []).some((v) => !(option.values ?? []).includes(v)))
        reasons.push(`option ${name} accepts less`);
    }
    for (const name of Object.keys(was.options)) if (!trigger.options[name]) reasons.push(`option ${name} removed`);
    if (reasons.length > 0) changes.push(change("trigger-changed", true, trigger.name, reasons.join("; ")));
    else if (JSON.stringify(was) !== JSON.stringify(trigger))
      changes.push(
        change("trigger-description-changed", false, trigger.name, "title, description or an optional option changed"),
      );
  }
  return changes;
}

function compareAuth(old: ServiceSurface, now: ServiceSurface): Change[] {
  const changes: Change[] = [];
  const [a, b] = [old.auth, now.auth];
  const target = "auth";
  if (a.kind !== b.kind) changes.push(change("auth-changed", true, target, `${a.kind} → ${b.kind}`));
  else {
    for (const mode of a.modes)
      if (!b.modes.includes(mode)) changes.push(change("auth-mode-removed", true, target, `mode ${mode} removed`));
    for (const mode of b.modes)
      if (!a.modes.includes(mode)) changes.push(change("auth-mode-added", false, target, `mode ${mode} added`));
    if (a.settings !== b.settings && changes.length === 0)
      changes.push(change("auth-changed", false, target, "placements, token endpoints or scopes changed"));
  }
  for (const [name, field] of Object.entries(b.fields)) {
    const was = a.fields[name];
    if (!was)
      changes.push(
        change(
          "connection-field-added",
          field.required,
          target,
          `${field.required ? "required" : "optional"} connection field ${name} added`,
        ),
      );
    else if (field.required && !was.required)
      changes.push(change("connection-field-required", true, target, `connection field ${name} became required`));
  }
  for (const name of Object.keys(a.fields))
    if (!b.fields[name])
      changes.push(change("connection-field-removed", false, target, `connection field ${name} removed`));
  if (a.baseUrl !== b.baseUrl) changes.push(change("base-url-changed", false, target, `${a.baseUrl} → ${b.baseUrl}`));
  return changes;
}
