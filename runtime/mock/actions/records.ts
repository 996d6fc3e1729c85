/**
 * Actions on one record: create, read, update, delete, push/pull on an array field and the update
 * of one element of such an array (a check item inside its checklist).
 */
import { getPath, keyOf, numberOf } from "../../internal/values.js";
import { render, renderString, setPath } from "../template.js";
import { bump, jsonReply, type Rec } from "../types.js";
import {
  applySet,
  completed,
  fire,
  recordReply,
  requestFields,
  resourceOf,
  shown,
  target,
  writeLog,
  type Act,
  type Action,
} from "./act.js";

/** Merges `patch` into `target`: nested plain objects field by field, anything else replaced. */
export function deepMerge(target: Rec, patch: Rec): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === "__proto__" || k === "constructor" || k === "prototype") continue;
    const cur = target[k];
    if (v && typeof v === "object" && !Array.isArray(v) && cur && typeof cur === "object" && !Array.isArray(cur))
      deepMerge(cur as Rec, v as Rec);
    else target[k] = v;
  }
}

/** What an update changed: the previous (`changed`) and new (`changedTo`) values of each changed field. */
function changes(before: Rec, after: Rec): { changed?: Rec; changedTo?: Rec } {
  const changed: Rec = {};
  const changedTo: Rec = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    changed[key] = before[key] ?? null;
    changedTo[key] = after[key] ?? null;
  }
  return Object.keys(changed).length ? { changed, changedTo } : {};
}

/**
 * An array element's position (`top`, `bottom`, a number, nothing: bottom) among its siblings,
 * and the array re-sorted by it (Trello's check items inside a checklist).
 */
export function placeInArray(list: Rec[], item: Rec, position: { field: string; step: number }): void {
  const f = position.field;
  const others = list
    .filter((x) => x !== item)
    .map((x) => numberOf(x[f]))
    .filter(Number.isFinite);
  const asked = item[f];
  if (asked === "top") item[f] = others.length ? Math.min(...others) / 2 : position.step;
  else if (asked === undefined || asked === "bottom" || asked === "" || !Number.isFinite(numberOf(asked)))
    item[f] = others.length ? Math.max(...others) + position.step : position.step;
  else item[f] = numberOf(asked);
  list.sort((x, y) => numberOf(x[f] ?? 0) - numberOf(y[f] ?? 0));
}

function placed(a: Act, resource: string, record: Rec, requested: unknown): void {
  const p = a.store.spec(resource).position;
  if (!p) return;
  const pos = a.store.position(resource, record, requested);
  if (pos !== undefined) record[p.field] = pos;
}

export const create: Action = (a) => {
  const resource = resourceOf(a);
  const spec = a.store.spec(resource);
  const id = a.store.newId(resource);
  a.ctx.newId = id;
  const fields = requestFields(a);
  const record: Rec = { ...(render(spec.defaults, a.ctx) as Rec), ...fields, [spec.idField]: id };
  if (a.parentField && a.parent !== undefined) setPath(record, a.parentField, a.parent);
  applySet(a, record);
  completed(a, resource, record);
  if (spec.position) placed(a, resource, record, fields[spec.position.field]);
  if (spec.createdField) record[spec.createdField] = a.ctx.now;
  if (spec.updatedField) record[spec.updatedField] = a.ctx.now;
  a.store.put(resource, record);
  bump(a.counters.creates, resource);
  writeLog(a, [{ record, status: "created" }]);
  fire(a, record, resource);
  return recordReply(a, record);
};

export const read: Action = (a) => {
  const record = target(a, resourceOf(a));
  return record ? recordReply(a, record) : a.answers.of("notFound", a.ctx, { field: "id" });
};

export const update: Action = (a) => {
  const resource = resourceOf(a);
  const spec = a.store.spec(resource);
  const record = target(a, resource);
  if (!record) return a.answers.of("notFound", a.ctx, { field: "id" });
  const old = structuredClone(record);
  const fields = requestFields(a);
  delete fields[spec.idField];
  if (a.parentField) delete fields[a.parentField];
  const requestedPos = spec.position ? fields[spec.position.field] : undefined;
  if (a.m.merge === "replace") {
    // A PUT: the body takes the record's place; the mock's own fields (id, parent) stay.
    const kept = [spec.idField, a.parentField, spec.createdField].filter((f): f is string => f !== undefined);
    for (const key of Object.keys(record)) if (!kept.includes(key)) delete record[key];
    Object.assign(record, fields);
  } else if (a.m.merge === "deep") deepMerge(record, fields);
  else Object.assign(record, fields);
  applySet(a, record);
  completed(a, resource, record);
  if (spec.position && requestedPos !== undefined) placed(a, resource, record, requestedPos);
  if (spec.updatedField) record[spec.updatedField] = a.ctx.now;
  a.store.touch(record);
  bump(a.counters.updates, resource);
  writeLog(a, [{ record, status: "updated" }]);
  fire(a, record, resource, { old, ...changes(old, record) });
  return recordReply(a, record);
};

export const remove: Action = (a) => {
  const resource = resourceOf(a);
  const record = target(a, resource);
  if (!record) return a.answers.of("notFound", a.ctx, { field: "id" });
  a.store.remove(resource, record);
  bump(a.counters.deletes, resource);
  writeLog(a, [{ record, status: "deleted" }]);
  fire(a, record, resource);
  return jsonReply(
    a.status,
    a.m.respond !== undefined ? render(a.m.respond, { ...a.ctx, record: shown(a, record) }) : a.example(),
    a.contentType,
  );
};

const same = (x: unknown, v: unknown): boolean =>
  JSON.stringify(x) === JSON.stringify(v) ||
  Boolean(
    x &&
      typeof x === "object" &&
      v &&
      typeof v === "object" &&
      (x as Rec).id !== undefined &&
      (x as Rec).id === (v as Rec).id,
  );

export const pushOrPull: Action = (a) => {
  const resource = resourceOf(a);
  const record = target(a, resource);
  if (!record) return a.answers.of("notFound", a.ctx, { field: "id" });
  a.ctx.newId = a.store.newId(resource);
  const value = render(a.m.value ?? "{body.value}", { ...a.ctx, record });
  const current = getPath(record, a.m.field!);
  const list = Array.isArray(current) ? current : [];
  if (a.m.action === "push" && !list.some((x) => same(x, value))) {
    list.push(value);
    if (a.m.position && value && typeof value === "object") placeInArray(list as Rec[], value as Rec, a.m.position);
  }
  setPath(
    record,
    a.m.field!,
    a.m.action === "pull" ? list.filter((x) => JSON.stringify(x) !== JSON.stringify(value)) : list,
  );
  a.store.touch(record);
  bump(a.counters.updates, resource);
  writeLog(a, [{ record, status: a.m.action === "push" ? "added" : "removed", input: value }]);
  fire(a, record, resource, { value });
  return jsonReply(
    a.status,
    render(a.m.respond ?? a.model.envelopes.record ?? "{record}", { ...a.ctx, record, value }),
    a.contentType,
  );
};

/** Changes one element of an array field (a check item inside its checklist), found by its id. */
export const updateItem: Action = (a) => {
  const resource = resourceOf(a);
  const itemId = renderString(a.m.itemId, a.ctx);
  const field = a.m.field!;
  const where = Object.entries(a.m.where).map(([f, t]) => [f, renderString(t, a.ctx)] as const);
  for (const record of a.store.all(resource, a.parent, a.parentField)) {
    if (where.some(([f, v]) => v !== undefined && keyOf(getPath(record, f)) !== v)) continue;
    const list = getPath(record, field);
    const item = Array.isArray(list)
      ? (list.find((x) => x && typeof x === "object" && keyOf((x as Rec).id) === itemId) as Rec | undefined)
      : undefined;
    if (!item) continue;
    const old = structuredClone(item);
    const fields = requestFields(a);
    delete fields.id;
    if (a.m.merge === "deep") deepMerge(item, fields);
    else Object.assign(item, fields);
    for (const [path, t] of Object.entries(a.m.set)) {
      const v = render(t, { ...a.ctx, record, item });
      if (v !== undefined) setPath(item, path, v);
    }
    if (a.m.position && fields[a.m.position.field] !== undefined) placeInArray(list as Rec[], item, a.m.position);
    a.store.touch(record);
    bump(a.counters.updates, resource);
    writeLog(a, [{ record: item, status: "updated" }]);
    fire(a, record, resource, { item, old, ...changes(old, item) });
    return jsonReply(a.status, render(a.m.respond ?? "{item}", { ...a.ctx, record, item }), a.contentType);
  }
  return a.answers.of("notFound", a.ctx, { field: "id" });
};
