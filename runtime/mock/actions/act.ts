/**
 * What an action gets (`Act`: the operation, the request context and the engine's parts) and the
 * steps several actions share: finding the record a call names, reading the request's fields,
 * `set` templates, log records, webhook events and the record and list replies. Apart from the
 * actions themselves so that each action module reads as what its actions do.
 */
import type { OperationDescriptor } from "../../descriptor.js";
import { getPath, keyOf } from "../../internal/values.js";
import type { Answers } from "../answers.js";
import type { MockOperation, MockOperationSpec, MockService } from "../extension-types.js";
import type { Pager } from "../paging.js";
import type { RecordShaper } from "../shape.js";
import type { Store } from "../store.js";
import { render, renderString, setPath, type Context } from "../template.js";
import { bump, jsonReply, type MockCounters, type Rec, type Reply } from "../types.js";
import type { Webhooks } from "../webhooks.js";

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

export function resourceOf(a: Act): string {
  if (!a.m.resource) throw new Error(`${a.desc.operationId}: action ${a.m.action} needs a resource`);
  return a.m.resource;
}

/** The record as the resource's schema answers it (see shape.ts); the record itself without a schema. */
export function shown(a: Act, record: Rec): Rec {
  const schema = a.m.resource ? a.store.spec(a.m.resource).schema : undefined;
  return schema === undefined ? record : a.shaper.output(a.m.resource!, schema, record);
}

/** Gives a record its resource schema's required fields and valid top-level values (see shape.ts). */
export function completed(a: Act, resource: string, record: Rec): void {
  const spec = a.store.spec(resource);
  if (spec.schema === undefined) return;
  const keep = [spec.idField, ...(a.parentField ? [a.parentField] : []), ...(a.m.key ? [a.m.key] : [])];
  a.shaper.complete(resource, spec.schema, record, keep);
}

/** One record in the service's record envelope; a bare record is sent from its kept bytes. */
export function recordReply(a: Act, record: Rec | undefined, extra: Context = {}): Reply {
  const template = a.m.respond ?? a.model.envelopes.record ?? "{record}";
  const answered = record && shown(a, record);
  if (template === "{record}" && record && answered === record && a.contentType.includes("json")) {
    return jsonReply(a.status, a.store.serialised(record), a.contentType);
  }
  return jsonReply(a.status, render(template, { ...a.ctx, ...extra, record: answered }), a.contentType);
}

export function listReply(a: Act, all: Rec[]): Reply {
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

export const UNSAFE_KEYS = ["__proto__", "constructor", "prototype"];

export function requestFields(a: Act): Rec {
  const src = a.m.from === "none" ? {} : getPath(a.ctx, a.m.from);
  if (!src || typeof src !== "object" || Array.isArray(src)) return {};
  const fields = structuredClone(src as Rec);
  // JSON.parse makes "__proto__" an own key; Object.assign would set the record's prototype with it.
  for (const key of UNSAFE_KEYS) if (Object.hasOwn(fields, key)) delete fields[key];
  return fields;
}

export function applySet(a: Act, record: Rec): void {
  for (const [path, t] of Object.entries(a.m.set)) {
    const v = render(t, { ...a.ctx, record });
    if (v !== undefined) setPath(record, path, v);
  }
}

/** The record the call names (`id`, looked up by `key` when given), under the call's parent. */
export function target(a: Act, resource: string): Rec | undefined {
  const record = a.store.find(resource, renderString(a.m.id ?? "{path.id}", a.ctx), a.m.key);
  const parentField = a.parentField;
  if (record && a.parent !== undefined && parentField && keyOf(getPath(record, parentField)) !== a.parent)
    return undefined;
  return record;
}

/** Records the call writes elsewhere too (`log`): an activity per lead, a notification. */
export function writeLog(a: Act, touched: Array<{ record: Rec | undefined; status: string; input?: unknown }>): void {
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

export function fire(a: Act, record: Rec | undefined, resource: string | undefined, extra: Context = {}): void {
  if (a.m.event && a.webhooks) a.webhooks.fire(a.m.event, a.m.eventData, record, { ...a.ctx, ...extra }, resource);
}

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
