/**
 * Walks the pages of an operation as its descriptor says (`x-stepforge-paging`):
 *
 * - `token`: send `tokenParam` with the token from the previous page's `tokenField` until no token
 *   comes back (or `moreField` is false, for services that always return one).
 * - `offset`: send `offsetParam` / `limitParam` until a page is shorter than the limit, is empty,
 *   or `totalField` says everything was read.
 *
 * Each page carries `next`, the cursor to resume from (a token or an offset); it is absent on the
 * last page. With `maxItems`, an offset cursor resumes exactly after the last item returned; a
 * token cursor resumes at the next page.
 */
import type { OperationDescriptor, PagingSpec } from "../descriptor.js";
import { getPath } from "../internal/values.js";
import { createError } from "../errors.js";
import { iteratePageNumbers } from "./page-numbers.js";

export interface Page {
  /** The whole response body of this page. */
  data: unknown;
  /** The page's items (cut short when `maxItems` was reached). */
  items: unknown[];
  /** Where to resume: pass it as `startToken` / `startOffset`. Absent when there is nothing more. */
  next?: string | number | undefined;
}

export interface PagingOptions {
  /** Stop after this many pages. */
  maxPages?: number | undefined;
  /** Stop after this many items in all. */
  maxItems?: number | undefined;
  /** Resume a token-paged walk. */
  startToken?: string | undefined;
  /** Resume (or start) an offset-paged walk. */
  startOffset?: number | undefined;
  /** Items per page (`sizeParam` / `limitParam`); offset paging defaults to the declared maximum. */
  pageSize?: number | undefined;
}

type Init = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;


function withQuery(init: Init, query: Record<string, unknown>): Init {
  return { ...init, params: { ...(init.params ?? {}), query } };
}

function itemsOf(service: string, op: OperationDescriptor, paging: PagingSpec, data: unknown): unknown[] {
  const items = getPath(data, paging.itemsField);
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) {
    throw createError("server", `${op.operationId}: the response field "${paging.itemsField}" is not a list, so it cannot be paged`, {
      service,
      operation: op.operationId,
    });
  }
  return items;
}

function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new RangeError(`${name} must be a whole number ≥ 0`);
}

export async function* iteratePages(
  service: string,
  op: OperationDescriptor,
  call: (init: Init) => Promise<unknown>,
  init: Init = {},
  options: PagingOptions = {},
): AsyncGenerator<Page, void, undefined> {
  const paging = op.paging;
  if (!paging) throw new Error(`${service}: operation "${op.operationId}" declares no paging (x-stepforge-paging); use call()`);
  checkCount("maxPages", options.maxPages);
  checkCount("maxItems", options.maxItems);
  const baseQuery = { ...(init.params?.query ?? {}) };
  const maxPages = options.maxPages ?? Infinity;
  const maxItems = options.maxItems ?? Infinity;
  let pages = 0;
  let seen = 0;
  if (maxPages === 0 || maxItems === 0) return;
  if (paging.style === "page") {
    yield* iteratePageNumbers(op, paging, call, (data) => itemsOf(service, op, paging, data), init, options);
    return;
  }

  if (paging.style === "token") {
    let token = options.startToken ?? (baseQuery[paging.tokenParam] as string | undefined);
    for (;;) {
      const query = { ...baseQuery };
      if (token !== undefined && token !== "") query[paging.tokenParam] = token;
      else delete query[paging.tokenParam];
      if (options.pageSize !== undefined && paging.sizeParam) query[paging.sizeParam] = options.pageSize;
      const data = await call(withQuery(init, query));
      const all = itemsOf(service, op, paging, data);
      const rawNext = getPath(data, paging.tokenField);
      const nextToken = typeof rawNext === "string" && rawNext !== "" ? rawNext : typeof rawNext === "number" ? String(rawNext) : undefined;
      let more = paging.moreField ? getPath(data, paging.moreField) === true && nextToken !== undefined : nextToken !== undefined;
      if (more && nextToken === token && all.length === 0) more = false; // a service repeating itself would loop forever
      const items = all.slice(0, maxItems - seen);
      pages++;
      seen += items.length;
      yield { data, items, next: more ? nextToken : undefined };
      if (!more || pages >= maxPages || seen >= maxItems) return;
      token = nextToken;
    }
  }

  const requested = options.pageSize ?? (baseQuery[paging.limitParam] !== undefined ? Number(baseQuery[paging.limitParam]) : paging.maxLimit);
  const limit = Math.max(1, Math.min(paging.maxLimit, Math.floor(requested)));
  let offset = options.startOffset ?? (baseQuery[paging.offsetParam] !== undefined ? Number(baseQuery[paging.offsetParam]) : 0);
  checkCount("startOffset", offset);
  for (;;) {
    const data = await call(withQuery(init, { ...baseQuery, [paging.offsetParam]: offset, [paging.limitParam]: limit }));
    const all = itemsOf(service, op, paging, data);
    const totalRaw = paging.totalField ? getPath(data, paging.totalField) : undefined;
    const total = typeof totalRaw === "number" ? totalRaw : typeof totalRaw === "string" && totalRaw !== "" ? Number(totalRaw) : undefined;
    const items = all.slice(0, maxItems - seen);
    const cut = items.length < all.length;
    const end = all.length === 0 || all.length < limit || (total !== undefined && Number.isFinite(total) && offset + all.length >= total);
    pages++;
    seen += items.length;
    const next = cut ? offset + items.length : end ? undefined : offset + all.length;
    yield { data, items, next };
    if (next === undefined || pages >= maxPages || seen >= maxItems) return;
    offset = next;
  }
}
