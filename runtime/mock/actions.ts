/**
 * What an operation does to the mock's state, one function per `x-stepforge-mock` action kind.
 * Each gets the request context and the engine's parts and returns the answer; none of them
 * knows which service it runs for.
 */
import type { OperationDescriptor } from "../descriptor.js";
import { getPath, keyOf, numberOf, setOwn } from "../internal/values.js";
import type { Answers } from "./answers.js";
import type { MockOperation, MockOperationSpec, MockService } from "./model-types.js";
import type { Pager } from "./paging.js";
import type { RecordShaper } from "./shape.js";
import type { Store } from "./store.js";
import { render, renderString, setPath, type Context } from "./template.js";
import { bump, jsonReply, type MockCounters, type Rec, type Reply } from "./types.js";
import type { Webhooks } from "./webhooks.js";

/** Everything an action may use. */
export interface Act {
  op: MockOperationSpec;
  desc: OperationDescriptor;
  m: MockOperation;
  ctx: Context;
  status: number;
  contentType: string;
  model: MockService;
  store: Store;
  answers: Answers;
  pager: Pager;
  webhooks: Webhooks | undefined;
  counters: MockCounters;
  /** The success body when the spec gives no template: its example, or a sample from its schema. */
  example: () => unknown;
  /** The parent the call works under (`parent` template), when the operation has one. */
  parent: string | undefined;
  /** The record field holding that parent: the operation's `parentField`, else the resource's. */
  parentField: string | undefined;
  /** Completes records and shapes answers by their resource's `schema`. */
  shaper: RecordShaper;
}

export type Action = (a: Act) => Reply;

const RESULT_DEFAULT = { id: "{key}", status: "{status}" };

export function splitValues(v: unknown): unknown[] {
  if (v === undefined || v === null || v === "") return [];
  if (Array.isArray(v)) return v;
  if (typeof v === "string")
    return v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  return [v];
}

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

function resourceOf(a: Act): string {
  if (!a.m.resource) throw new Error(`${a.desc.operationId}: action ${a.m.action} needs a resource`);
  return a.m.resource;
}

/** The record as the resource's schema answers it (see shape.ts); the record itself without a schema. */
function shown(a: Act, record: Rec): Rec {
  const schema = a.m.resource ? a.store.spec(a.m.resource).schema : undefined;
  return schema === undefined ? record : a.shaper.output(a.m.resource!, schema, record);
}

/** Gives a record its resource schema's required fields and valid top-level values (see shape.ts). */
function completed(a: Act, resource: string, record: Rec): void {
  const spec = a.store.spec(resource);
  if (spec.schema === undefined) return;
  const keep = [spec.idField, ...(a.parentField ? [a.parentField] : []), ...(a.m.key ? [a.m.key] : [])];
  a.shaper.complete(resource, spec.schema, record, keep);
}

/** One record in the service's record envelope; a bare record is sent from its kept bytes. */
function recordReply(a: Act, record: Rec | undefined, extra: Context = {}): Reply {
  const template = a.m.respond ?? a.model.envelopes.record ?? "{record}";
  const answered = record && shown(a, record);
  if (template === "{record}" && record && answered === record && a.contentType.includes("json")) {
    return jsonReply(a.status, a.store.serialised(record), a.contentType);
  }
  return jsonReply(a.status, render(template, { ...a.ctx, ...extra, record: answered }), a.contentType);
}

function listReply(a: Act, all: Rec[]): Reply {
  let order: Map<Rec, number> | undefined;
  const table = a.m.resource ? a.store.table(a.m.resource) : undefined;
  const created = table && {
    of: (r: Rec) => (order ??= new Map([...table.values()].map((x, i) => [x, i]))).get(r) ?? -1,
    count: () => table.size,
  };
  const result = a.pager.page(a.desc, a.m, all, (a.ctx.query ?? {}) as Rec, created);
  if ("badToken" in result)
    return a.answers.of("badRequest", a.ctx, {
      field: result.badToken,
      detail: `${result.badToken} is not a valid paging token`,
    });
  a.ctx.resultCount = result.items.length;
  const items = result.items.map((r) => shown(a, r));
  const page = withNextUrl(a, result.page);
  return jsonReply(
    a.status,
    render(a.m.respond ?? a.model.envelopes.list ?? "{items}", { ...a.ctx, items, page }),
    a.contentType,
  );
}

/**
 * `{page.nextUrl}` (and `nextUrlOrNull`): this list's address with the next page's parameters,
 * for envelopes whose next-page field is a link; absolute when the request named its host.
 */
function withNextUrl(a: Act, page: Rec): Rec {
  const next = page.nextParams as Record<string, string> | undefined;
  let nextUrl: string | undefined;
  if (next) {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries((a.ctx.query ?? {}) as Record<string, unknown>)) query.set(k, String(v));
    for (const [k, v] of Object.entries(next)) query.set(k, v);
    nextUrl = `${typeof a.ctx.origin === "string" ? a.ctx.origin : ""}${String(a.ctx.route ?? "")}?${query}`;
  }
  return { ...page, nextUrl, nextUrlOrNull: nextUrl ?? null };
}

const UNSAFE_KEYS = ["__proto__", "constructor", "prototype"];

/** An input's own fields, without the keys that would reach a prototype when written with `=` or Object.assign. */
function safeFields(input: object): Rec {
  const out: Rec = {};
  for (const [key, value] of Object.entries(input)) if (!UNSAFE_KEYS.includes(key)) setOwn(out, key, value);
  return out;
}

function requestFields(a: Act): Rec {
  const src = a.m.from === "none" ? {} : getPath(a.ctx, a.m.from);
  if (!src || typeof src !== "object" || Array.isArray(src)) return {};
  const fields = structuredClone(src as Rec);
  // JSON.parse makes "__proto__" an own key; Object.assign would set the record's prototype with it.
  for (const key of UNSAFE_KEYS) if (Object.hasOwn(fields, key)) delete fields[key];
  return fields;
}

function applySet(a: Act, record: Rec): void {
  for (const [path, t] of Object.entries(a.m.set)) {
    const v = render(t, { ...a.ctx, record });
    if (v !== undefined) setPath(record, path, v);
  }
}

/** The record the call names (`id`, looked up by `key` when given), under the call's parent. */
function target(a: Act, resource: string): Rec | undefined {
  const record = a.store.find(resource, renderString(a.m.id ?? "{path.id}", a.ctx), a.m.key);
  const parentField = a.parentField;
  if (record && a.parent !== undefined && parentField && keyOf(getPath(record, parentField)) !== a.parent)
    return undefined;
  return record;
}

/** Records the call writes elsewhere too (`log`): an activity per lead, a notification. */
function writeLog(a: Act, touched: Array<{ record: Rec | undefined; status: string; input?: unknown }>): void {
  for (const entry of a.m.log) {
    for (const t of touched) {
      if (entry.when && !entry.when.includes(t.status)) continue;
      const spec = a.store.spec(entry.resource);
      const id = a.store.newId(entry.resource);
      const record = render(entry.record, {
        ...a.ctx,
        record: t.record,
        status: t.status,
        input: t.input,
        newId: id,
      }) as Rec;
      a.store.put(entry.resource, { ...record, [spec.idField]: id });
      bump(a.counters.creates, entry.resource);
    }
  }
}

function fire(a: Act, record: Rec | undefined, resource: string | undefined, extra: Context = {}): void {
  if (a.m.event && a.webhooks) a.webhooks.fire(a.m.event, a.m.eventData, record, { ...a.ctx, ...extra }, resource);
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

const create: Action = (a) => {
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

const read: Action = (a) => {
  const record = target(a, resourceOf(a));
  return record ? recordReply(a, record) : a.answers.of("notFound", a.ctx, { field: "id" });
};

const update: Action = (a) => {
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

const remove: Action = (a) => {
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

const pushOrPull: Action = (a) => {
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
const updateItem: Action = (a) => {
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

/** The records matching the `where` filters (field `a|b` tries several, `~` contains). */
export function filtered(a: Act, resource: string): Rec[] {
  const conditions = Object.entries(a.m.where)
    .map(([field, t]) => {
      let values = splitValues(render(t, a.ctx)).map(keyOf);
      const map = a.m.whereMap?.[field];
      if (map) values = values.map((v) => (Object.hasOwn(map, v) ? map[v]! : v)).filter((v) => v !== "");
      return [renderString(field, a.ctx) ?? field, values] as const;
    })
    .filter(([field, values]) => values.length > 0 && field !== "");
  let pool = a.store.all(resource, a.parent, a.parentField);
  if (a.m.newerThan !== undefined || a.m.olderThan !== undefined) {
    // Creation order is the table's insertion order, whatever order the list is shown in.
    const order = [...a.store.table(resource).values()];
    const at = (t: string | undefined) =>
      t === undefined ? -1 : order.indexOf(a.store.find(resource, renderString(t, a.ctx)) as Rec);
    const after = at(a.m.newerThan);
    const before = at(a.m.olderThan);
    pool = pool.filter((r) => {
      const i = order.indexOf(r);
      return (after < 0 || i > after) && (before < 0 || i < before);
    });
  }
  const items = pool.filter((r) =>
    conditions.every(([field, values]) => {
      const contains = field.startsWith("~");
      const fields = (contains ? field.slice(1) : field).split("|");
      return fields.some((f) => {
        const v = getPath(r, f);
        const have = Array.isArray(v) ? v.map(keyOf) : v === undefined || v === null ? [] : [keyOf(v)];
        return contains
          ? have.some((h) => values.some((want) => h.toLowerCase().includes(want.toLowerCase())))
          : have.some((h) => values.includes(h));
      });
    }),
  );
  return a.m.newestFirst ? items.reverse() : items;
}

const list: Action = (a) => listReply(a, filtered(a, resourceOf(a)));

/**
 * A page token pointing into a list (Marketo's activity paging token): the position of the first
 * record whose `sinceField` is at or after `since`, so later pages show what happened since.
 */
const pageToken: Action = (a) => {
  const resource = resourceOf(a);
  const since = renderString(a.m.since, a.ctx);
  const field = a.m.sinceField ?? a.store.spec(resource).createdField ?? "createdAt";
  const all = [...a.store.table(resource).values()];
  const sinceMs = since === undefined ? Number.NaN : Date.parse(since);
  const atOrAfter = (r: Rec) => {
    const v = getPath(r, field);
    const ms = Date.parse(keyOf(v));
    // Dates compare as instants (offsets differ); anything else as text.
    return Number.isFinite(ms) && Number.isFinite(sinceMs) ? ms >= sinceMs : keyOf(v ?? "") >= (since ?? "");
  };
  const at = since === undefined ? all.length : all.findIndex(atOrAfter);
  const token = a.pager.encode(at < 0 ? all.length : at, a.m, "record");
  return jsonReply(a.status, render(a.m.respond ?? tokenAnswer(a), { ...a.ctx, token }), a.contentType);
};

/**
 * The answer of a pageToken operation without `respond`, from its response schema: the token in
 * the first top-level field named for a token or cursor, else the token alone.
 */
function tokenAnswer(a: Act): unknown {
  const names =
    a.op.success.schema === undefined
      ? []
      : [...a.shaper.view(`op:${a.op.operationId}`, a.op.success.schema).properties.keys()];
  const field = names.find((n) => /token|cursor/i.test(n));
  return field === undefined ? "{token}" : { [field]: "{token}" };
}

const upsert: Action = (a) => {
  const resource = resourceOf(a);
  const spec = a.store.spec(resource);
  const inputs = splitValues(getPath(a.ctx, a.m.inputs ?? "body.input"));
  const lookup = renderString(a.m.lookupField, a.ctx) || a.m.key || spec.idField;
  const touched: Array<{ record: Rec; status: string; input: unknown }> = [];
  const results = inputs.map((input) => {
    // JSON.parse makes "__proto__" an own key; Object.assign below would set the record's prototype with it.
    const inRec = input && typeof input === "object" ? safeFields(input) : { [lookup]: input };
    const existing = inRec[lookup] === undefined ? undefined : a.store.find(resource, inRec[lookup], lookup);
    let record: Rec;
    let outcome: string;
    if (existing) {
      Object.assign(existing, inRec, { [spec.idField]: existing[spec.idField] });
      if (spec.updatedField) existing[spec.updatedField] = a.ctx.now;
      a.store.touch(existing);
      record = existing;
      outcome = a.m.statuses.updated ?? "updated";
      bump(a.counters.updates, resource);
      touched.push({ record, status: "updated", input: inRec });
    } else {
      const id = a.store.newId(resource);
      record = { ...(render(spec.defaults, { ...a.ctx, newId: id }) as Rec), ...inRec, [spec.idField]: id };
      if (spec.createdField) record[spec.createdField] = a.ctx.now;
      if (spec.updatedField) record[spec.updatedField] = a.ctx.now;
      a.store.put(resource, record);
      outcome = a.m.statuses.created ?? "created";
      bump(a.counters.creates, resource);
      touched.push({ record, status: "created", input: inRec });
    }
    return render(a.m.result ?? { id: "{record.id}", status: "{status}" }, {
      ...a.ctx,
      input: inRec,
      record,
      status: outcome,
    });
  });
  writeLog(a, touched);
  return jsonReply(
    a.status,
    render(a.m.respond ?? a.model.envelopes.list ?? "{items}", { ...a.ctx, items: results }),
    a.contentType,
  );
};

const relate: Action = (a) => {
  const resource = resourceOf(a);
  const spec = a.store.spec(resource);
  const set = a.store.relation(a.m.relation!, renderString(a.m.owner, a.ctx) ?? "");
  const inputs = splitValues(getPath(a.ctx, a.m.inputs ?? "body.input"));
  const touched: Array<{ record: Rec; status: string; input: unknown }> = [];
  const results = inputs.map((input) => {
    // Own fields only: an input is request data, its prototype is not.
    let key = input && typeof input === "object" ? getPath(input, [a.m.key ?? spec.idField]) : input;
    if (spec.id.format === "integer" && typeof key === "string" && /^\d+$/.test(key)) key = Number(key);
    const record = a.store.find(resource, key);
    const rctx = { ...a.ctx, input, key, record };
    if (!record) return render(a.m.missingResult ?? { id: "{key}", status: "skipped" }, rctx);
    const k = keyOf(key);
    let outcome: string;
    if (a.m.action === "link") {
      set.add(k);
      outcome = a.m.statuses.linked ?? "added";
      touched.push({ record, status: "added", input });
    } else if (a.m.action === "unlink") {
      if (!set.has(k)) return render(a.m.missingResult ?? { id: "{key}", status: "skipped" }, rctx);
      set.delete(k);
      outcome = a.m.statuses.unlinked ?? "removed";
      touched.push({ record, status: "removed", input });
    } else outcome = set.has(k) ? (a.m.statuses.member ?? "memberof") : (a.m.statuses.notMember ?? "notmemberof");
    return render(a.m.result ?? RESULT_DEFAULT, { ...rctx, status: outcome });
  });
  writeLog(a, touched);
  return jsonReply(
    a.status,
    render(a.m.respond ?? a.model.envelopes.list ?? "{items}", { ...a.ctx, items: results }),
    a.contentType,
  );
};

const linked: Action = (a) => {
  const resource = resourceOf(a);
  const keys = a.store.relation(a.m.relation!, renderString(a.m.owner, a.ctx) ?? "");
  return listReply(
    a,
    [...keys].map((k) => a.store.find(resource, k)).filter((r): r is Rec => r !== undefined),
  );
};

const example: Action = (a) => {
  const out = a.m.respond !== undefined ? render(a.m.respond, a.ctx) : a.example();
  // Logged once per input (a campaign requested for each lead), or once.
  const inputs = a.m.inputs ? splitValues(getPath(a.ctx, a.m.inputs)) : [undefined];
  const touched = a.m.log.length ? inputs.map((input) => ({ record: undefined, status: "done", input })) : [];
  writeLog(a, touched);
  fire(a, undefined, a.m.resource);
  return jsonReply(a.status, out, a.contentType);
};

export const ACTIONS: Record<MockOperation["action"], Action> = {
  example,
  create,
  read,
  update,
  delete: remove,
  push: pushOrPull,
  pull: pushOrPull,
  updateItem,
  list,
  pageToken,
  upsert,
  link: relate,
  unlink: relate,
  isLinked: relate,
  linked,
};
