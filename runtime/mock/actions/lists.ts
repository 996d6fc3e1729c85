/**
 * Actions that answer many records: `list` (filtered by `where`, paged by paging.ts), `linked`
 * (the members of a relation) and `pageToken` (a token pointing into a list from a date).
 */
import { getPath, keyOf } from "../../internal/values.js";
import { render, renderString } from "../template.js";
import { jsonReply, type Rec } from "../types.js";
import { listReply, resourceOf, splitValues, type Act, type Action } from "./act.js";

/** The records matching the `where` filters (field `a|b` tries several, `~` contains). */
function filtered(a: Act, resource: string): Rec[] {
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

export const list: Action = (a) => listReply(a, filtered(a, resourceOf(a)));

/**
 * A page token pointing into a list (Marketo's activity paging token): the position of the first
 * record whose `sinceField` is at or after `since`, so later pages show what happened since.
 */
export const pageToken: Action = (a) => {
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

export const linked: Action = (a) => {
  const resource = resourceOf(a);
  const keys = a.store.relation(a.m.relation!, renderString(a.m.owner, a.ctx) ?? "");
  return listReply(
    a,
    [...keys].map((k) => a.store.find(resource, k)).filter((r): r is Rec => r !== undefined),
  );
};
