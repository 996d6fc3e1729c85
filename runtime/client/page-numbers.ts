/**
 * The walk of a page-numbered list (`x-stepforge-paging` style `page`: `page` + `per_page`), kept
 * beside paging.ts, which hands page-styled operations here. Pages are asked for by number from
 * the call's own page parameter (or `firstPage`); the walk ends at an empty or short page, or when
 * the response's total, page count or "more" flag says everything was read.
 *
 * `next` of each page is the number of the page to ask for next (pass it as the page parameter to
 * resume); with `maxItems` cutting a page short, it is the number of that same page.
 */
import type { OperationDescriptor, PagePaging } from "../descriptor.js";
import { getPath } from "../internal/values.js";
import type { Page, PagingOptions } from "./paging.js";

type Init = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

/** A number the response wrote as a number or as decimal text; undefined otherwise. */
function numberField(data: unknown, field: string | undefined): number | undefined {
  if (field === undefined) return undefined;
  const raw = getPath(data, field);
  const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

export async function* iteratePageNumbers(
  op: OperationDescriptor,
  paging: PagePaging,
  call: (init: Init) => Promise<unknown>,
  itemsOf: (data: unknown) => unknown[],
  init: Init,
  options: PagingOptions,
): AsyncGenerator<Page, void, undefined> {
  const baseQuery = { ...(init.params?.query ?? {}) };
  const maxPages = options.maxPages ?? Infinity;
  const maxItems = options.maxItems ?? Infinity;
  const givenSize =
    options.pageSize ??
    (paging.sizeParam && baseQuery[paging.sizeParam] !== undefined ? Number(baseQuery[paging.sizeParam]) : undefined);
  const wanted = givenSize ?? paging.maxSize;
  const size = wanted === undefined ? undefined : Math.max(1, Math.min(paging.maxSize ?? Infinity, Math.floor(wanted)));
  const start = baseQuery[paging.pageParam] !== undefined ? Number(baseQuery[paging.pageParam]) : paging.firstPage;
  if (!Number.isInteger(start) || start < paging.firstPage) {
    throw new RangeError(
      `${op.operationId}: the page parameter "${paging.pageParam}" must be a whole number ≥ ${paging.firstPage}`,
    );
  }
  let page = start;
  let pages = 0;
  let seen = 0;
  // Items read before this page, counted from the first page (the total is about the whole list).
  let before: number | undefined = size === undefined ? undefined : (start - paging.firstPage) * size;
  for (;;) {
    const query: Record<string, unknown> = { ...baseQuery, [paging.pageParam]: page };
    if (size !== undefined && paging.sizeParam) query[paging.sizeParam] = size;
    const data = await call({ ...init, params: { ...(init.params ?? {}), query } });
    const all = itemsOf(data);
    const items = all.slice(0, maxItems - seen);
    const cut = items.length < all.length;
    if (before !== undefined) before += all.length;
    const total = numberField(data, paging.totalField);
    const totalPages = numberField(data, paging.totalPagesField);
    const more = paging.moreField ? getPath(data, paging.moreField) : undefined;
    const end =
      all.length === 0 ||
      (size !== undefined && all.length < size) ||
      (total !== undefined && before !== undefined && before >= total) ||
      (totalPages !== undefined && page - paging.firstPage + 1 >= totalPages) ||
      more === false;
    pages++;
    seen += items.length;
    const next = cut ? page : end ? undefined : page + 1;
    yield { data, items, next };
    if (next === undefined || pages >= maxPages || seen >= maxItems) return;
    page = next;
  }
}
