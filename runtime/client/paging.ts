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
 *
 * Safe by default (issue 19): a walk without `maxPages` stops after {@link DEFAULT_MAX_PAGES} pages
 * with a {@link PagingStoppedError} when there is more to read, because a small page size or a
 * service that never says "last page" would otherwise run unbounded. A service that sends the same
 * token twice, or the same full page for a new offset, stops the walk with the same error type.
 */
import type { OperationDescriptor, PagePaging, PagingSpec } from "../descriptor.js";
import { getPath } from "../internal/values.js";
import { createError, StepforgeError } from "../errors.js";

/** Pages read when the caller sets no `maxPages`; pass `maxPages: Infinity` to read everything. */
export const DEFAULT_MAX_PAGES = 100;

/**
 * A page walk stopped before its end: `page_cap` (the default cap was reached with more to read;
 * raise `maxPages` or resume from `next`) or `page_loop` (the service repeated a cursor or a page).
 */
export class PagingStoppedError extends StepforgeError {
  readonly reason: "page_cap" | "page_loop";
  readonly pages: number;
  /** Where to resume a capped walk (as `startToken` / `startOffset`); absent for a loop. */
  readonly next: string | number | undefined;

  constructor(
    kind: "validation" | "server",
    message: string,
    details: { service: string; operation: string; reason: "page_cap" | "page_loop"; pages: number; next?: unknown },
  ) {
    super(kind, message, { service: details.service, operation: details.operation, retryable: false });
    this.name = "PagingStoppedError";
    this.reason = details.reason;
    this.pages = details.pages;
    this.next = details.next as string | number | undefined;
  }
}

function capReached(
  service: string,
  op: OperationDescriptor,
  pages: number,
  next: string | number,
  resumeWith?: string,
) {
  const resume = resumeWith ?? (typeof next === "number" ? "startOffset" : "startToken");
  return new PagingStoppedError(
    "validation",
    `${service}: paging "${op.operationId}" stopped after ${pages} pages (the default cap) with more to read; ` +
      `pass { maxPages: N } to read more pages, { maxPages: Infinity } to read them all, ` +
      `or resume with { ${resume}: error.next }`,
    { service, operation: op.operationId, reason: "page_cap", pages, next },
  );
}

function loopFound(service: string, op: OperationDescriptor, pages: number, what: string) {
  return new PagingStoppedError(
    "server",
    `${service}: paging "${op.operationId}" stopped after ${pages} pages because the service ${what}; ` +
      `reading on would loop forever`,
    { service, operation: op.operationId, reason: "page_loop", pages },
  );
}

export interface Page {
  /** The whole response body of this page. */
  data: unknown;
  /** The page's items (cut short when `maxItems` was reached). */
  items: unknown[];
  /** Where to resume: pass it as `startToken` / `startOffset`. Absent when there is nothing more. */
  next?: string | number | undefined;
}

export interface PagingOptions {
  /**
   * Stop quietly after this many pages (resume from the last page's `next`). Unset, a walk stops
   * after {@link DEFAULT_MAX_PAGES} pages with a {@link PagingStoppedError} if there is more;
   * `Infinity` reads every page.
   */
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
    throw createError(
      "server",
      `${op.operationId}: the response field "${paging.itemsField}" is not a list, so it cannot be paged`,
      {
        service,
        operation: op.operationId,
      },
    );
  }
  return items;
}

function checkCount(name: string, value: number | undefined, infinite = false): void {
  if (value === undefined || (infinite && value === Infinity)) return;
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`${name} must be a whole number ≥ 0${infinite ? " or Infinity" : ""}`);
}

export async function* iteratePages(
  service: string,
  op: OperationDescriptor,
  call: (init: Init) => Promise<unknown>,
  init: Init = {},
  options: PagingOptions = {},
): AsyncGenerator<Page, void, undefined> {
  const paging = op.paging;
  if (!paging)
    throw new Error(`${service}: operation "${op.operationId}" declares no paging (x-stepforge-paging); use call()`);
  checkCount("maxPages", options.maxPages, true);
  checkCount("maxItems", options.maxItems, true);
  const baseQuery = { ...(init.params?.query ?? {}) };
  // Only the default cap is an error: a caller who set maxPages asked to stop there.
  const capped = options.maxPages === undefined;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const maxItems = options.maxItems ?? Infinity;
  let pages = 0;
  let seen = 0;
  if (maxPages === 0 || maxItems === 0) return;
  if (paging.style === "page") {
    // The page-number walk stops at maxPages itself; the default cap is said here, as for the others.
    let last: Page | undefined;
    const walk = iteratePageNumbers(op, paging, call, (data) => itemsOf(service, op, paging, data), init, {
      ...options,
      maxPages,
    });
    for await (const page of walk) {
      pages++;
      seen += page.items.length;
      last = page;
      yield page;
    }
    if (capped && pages >= maxPages && seen < maxItems && last?.next !== undefined) {
      throw capReached(service, op, pages, last.next, `params.query.${paging.pageParam}`);
    }
    return;
  }

  if (paging.style === "token") {
    let token = options.startToken ?? (baseQuery[paging.tokenParam] as string | undefined);
    const sent = new Set<string>();
    for (;;) {
      if (token !== undefined) sent.add(String(token));
      const query = { ...baseQuery };
      if (token !== undefined && token !== "") query[paging.tokenParam] = token;
      else delete query[paging.tokenParam];
      if (options.pageSize !== undefined && paging.sizeParam) query[paging.sizeParam] = options.pageSize;
      const data = await call(withQuery(init, query));
      const all = itemsOf(service, op, paging, data);
      const rawNext = getPath(data, paging.tokenField);
      const nextToken =
        typeof rawNext === "string" && rawNext !== ""
          ? rawNext
          : typeof rawNext === "number"
            ? String(rawNext)
            : undefined;
      let more = paging.moreField
        ? getPath(data, paging.moreField) === true && nextToken !== undefined
        : nextToken !== undefined;
      // A service repeating itself would loop forever.
      if (more && nextToken === token && all.length === 0) more = false;
      const items = all.slice(0, maxItems - seen);
      pages++;
      seen += items.length;
      yield { data, items, next: more ? nextToken : undefined };
      if (!more || seen >= maxItems) return;
      if (sent.has(nextToken!)) throw loopFound(service, op, pages, "sent a page token it had sent before");
      if (pages >= maxPages) {
        if (capped) throw capReached(service, op, pages, nextToken!);
        return;
      }
      token = nextToken;
    }
  }

  const requested =
    options.pageSize ??
    (baseQuery[paging.limitParam] !== undefined ? Number(baseQuery[paging.limitParam]) : paging.maxLimit);
  const limit = Math.max(1, Math.min(paging.maxLimit, Math.floor(requested)));
  let offset =
    options.startOffset ?? (baseQuery[paging.offsetParam] !== undefined ? Number(baseQuery[paging.offsetParam]) : 0);
  checkCount("startOffset", offset);
  let previousPage: string | undefined;
  let previousOffset = offset;
  for (;;) {
    const data = await call(
      withQuery(init, { ...baseQuery, [paging.offsetParam]: offset, [paging.limitParam]: limit }),
    );
    const all = itemsOf(service, op, paging, data);
    const totalRaw = paging.totalField ? getPath(data, paging.totalField) : undefined;
    const total =
      typeof totalRaw === "number"
        ? totalRaw
        : typeof totalRaw === "string" && totalRaw !== ""
          ? Number(totalRaw)
          : undefined;
    const items = all.slice(0, maxItems - seen);
    const cut = items.length < all.length;
    const end =
      all.length === 0 ||
      all.length < limit ||
      (total !== undefined && Number.isFinite(total) && offset + all.length >= total);
    pages++;
    seen += items.length;
    const next = cut ? offset + items.length : end ? undefined : offset + all.length;
    yield { data, items, next };
    if (next === undefined || seen >= maxItems) return;
    // A service that ignores the offset sends the same full page forever.
    const page = JSON.stringify(all);
    if (page === previousPage) {
      throw loopFound(service, op, pages, `sent the same page for offsets ${previousOffset} and ${offset}`);
    }
    previousPage = page;
    previousOffset = offset;
    if (pages >= maxPages) {
      if (capped) throw capReached(service, op, pages, next);
      return;
    }
    offset = next;
  }
}

/*
 * Page-numbered lists (`x-stepforge-paging` style `page`: `page` + `per_page`), which the walk
 * above hands here. Pages are asked for by number from the call's own page parameter (or
 * `firstPage`); the walk ends at an empty or short page, or when the response's total, page count
 * or "more" flag says everything was read.
 *
 * `next` of each page is the number of the page to ask for next (pass it as the page parameter to
 * resume); with `maxItems` cutting a page short, it is the number of that same page.
 */

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
