/**
 * Actions over a request's list of inputs, answering one result per input: `upsert` (create or
 * update each by a lookup field) and `link`/`unlink`/`isLinked` (relation membership).
 */
import { getPath, keyOf, setOwn } from "../../internal/values.js";
import { render, renderString } from "../template.js";
import { bump, jsonReply, type Rec } from "../types.js";
import { UNSAFE_KEYS, resourceOf, splitValues, writeLog, type Action } from "./act.js";

const RESULT_DEFAULT = { id: "{key}", status: "{status}" };

/** An input's own fields, without the keys that would reach a prototype when written with `=` or Object.assign. */
function safeFields(input: object): Rec {
  const out: Rec = {};
  for (const [key, value] of Object.entries(input)) if (!UNSAFE_KEYS.includes(key)) setOwn(out, key, value);
  return out;
}

export const upsert: Action = (a) => {
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

export const relate: Action = (a) => {
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
