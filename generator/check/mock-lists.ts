/**
 * Lists of a spec without declared paging: where a list answer keeps its records, how its pages
 * are asked for, and the envelope the mock fills.
 *
 * - Records: a bare array answer, or the array property of an object answer whose items are the
 *   resource's records (same schema, or an id field), else the one named items/data/results/…,
 *   else the only array property.
 * - Paging, from the query parameters: offset + limit (`offset`/`skip`/`start` with
 *   `limit`/`per_page`/…), page numbers (`page`/`page_number`, with `per_page`/`page_size`/…), or a
 *   cursor (`cursor`/`page_token`/`after`/…) when the answer has a field for the next one
 *   (`next_cursor`, `nextPageToken`, `meta.next`…). The result is a descriptor paging (style
 *   offset, page or token), so the client's `core.items` walks the pages the mock serves.
 * - Envelope: a template of the answer, sampled from its schema, with the records, totals
 *   (`total`, `total_count`, `count`…), page fields and next-page fields (a cursor, a page number
 *   or a link; null or "" on the last page when the field is required) filled per request.
 */
import type { PagingSpec } from "../../runtime/descriptor.js";
import type { MockPageSize } from "../../runtime/mock/extension.js";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import type { OperationModel, ParameterModel } from "../model.js";
import type { Json, RefResolver } from "../refs.js";
import {
  arrayItems,
  findField,
  norm,
  objectView,
  propertyNamed,
  resolved,
  sameSchema,
  typesOf,
  type ObjectView,
} from "./mock-schema.js";

export interface ListShape {
  /** Dotted path of the records in the answer; `.` for a bare array. */
  itemsField: string;
  itemsSchema: unknown;
  paging?: PagingSpec | undefined;
  /** Page size of the mock's lists: the size parameter's default and maximum. */
  pageSize?: MockPageSize | undefined;
  /** The answer's fields the mock fills, by dotted path: `{page.total}`, `{page.nextToken}`, … */
  fills: Record<string, string>;
}

/** Names of the query parameters that ask for a page, by the part of paging each carries, first match wins. */
const QUERY_PARAMS = {
  offset: ["offset", "skip", "start", "startIndex", "from"],
  page: ["page", "pageNumber", "page_num", "pageNo", "pageIndex"],
  size: [
    "per_page",
    "perPage",
    "page_size",
    "pageSize",
    "limit",
    "size",
    "count",
    "page_limit",
    "max_results",
    "maxResults",
    "number",
    "top",
    "take",
    "max",
  ],
  cursor: [
    "cursor",
    "page_token",
    "pageToken",
    "next",
    "next_cursor",
    "nextPageToken",
    "after",
    "starting_after",
    "continuation",
    "continuationToken",
    "marker",
    "page_cursor",
    "start_cursor",
    "token",
  ],
} as const;
/** Names of a list answer's fields, by what each holds, first match wins. */
const ANSWER_FIELDS = {
  items: [
    "items",
    "data",
    "results",
    "records",
    "entries",
    "values",
    "list",
    "content",
    "elements",
    "hits",
    "rows",
    "objects",
    "collection",
    "nodes",
  ],
  total: [
    "total",
    "total_count",
    "totalCount",
    "total_results",
    "totalResults",
    "total_items",
    "totalItems",
    "total_records",
    "total_size",
    "totalElements",
    "total_entries",
    "count",
  ],
  totalPages: ["total_pages", "totalPages", "pages", "page_count", "pageCount", "num_pages", "last_page"],
  more: ["has_more", "hasMore", "more", "has_next", "hasNext", "has_next_page", "hasNextPage", "more_pages"],
  nextToken: [
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "cursor",
    "continuation",
    "continuation_token",
    "end_cursor",
    "endCursor",
    "next_marker",
    "nextMarker",
    "next",
  ],
  nextPage: ["next_page", "nextPage", "next"],
  nextLink: ["next", "next_url", "nextUrl", "next_link", "nextLink", "next_page_url", "nextPageUrl"],
  pageNumber: ["page", "current_page", "currentPage", "page_number", "pageNumber"],
  pageSize: ["per_page", "perPage", "page_size", "pageSize", "limit", "size"],
  offset: ["offset", "skip", "start"],
} as const;

const param = (op: OperationModel, names: readonly string[]): ParameterModel | undefined => {
  const query = op.parameters.filter((p) => p.in === "query");
  for (const name of names) {
    const found = query.find((p) => norm(p.name) === norm(name));
    if (found) return found;
  }
  return undefined;
};

/** The records of a list answer (see the module's comment); undefined when it has none. */
function recordsOf(
  refs: RefResolver,
  schema: unknown,
  record: unknown,
  idField: string | undefined,
): { itemsField: string; itemsSchema: unknown; view?: ObjectView } | undefined {
  const bare = arrayItems(refs, schema);
  if (bare !== undefined) return { itemsField: ".", itemsSchema: bare };
  const view = objectView(refs, schema);
  if (!view) return undefined;
  const arrays = [...view.properties].filter(([, s]) => arrayItems(refs, s) !== undefined);
  const isRecord = (items: unknown) =>
    (record !== undefined && sameSchema(refs, items, record)) ||
    (idField !== undefined && objectView(refs, items)?.properties.has(idField) === true);
  const chosen =
    arrays.find(([, s]) => isRecord(arrayItems(refs, s))) ??
    arrays.find(
      ([name]) => propertyNamed({ ...view, properties: new Map([[name, 0]]) }, ANSWER_FIELDS.items) !== undefined,
    ) ??
    (arrays.length === 1 ? arrays[0] : undefined);
  return chosen ? { itemsField: chosen[0], itemsSchema: arrayItems(refs, chosen[1]), view } : undefined;
}

const isNumeric = (refs: RefResolver, s: unknown) => typesOf(refs, s).some((t) => t === "integer" || t === "number");
const isText = (refs: RefResolver, s: unknown) => typesOf(refs, s).includes("string");
const isLink = (refs: RefResolver, s: unknown) =>
  isText(refs, s) && ["uri", "url", "uri-reference"].includes(String(resolved(refs, s).format));
const isFlag = (refs: RefResolver, s: unknown) => typesOf(refs, s).includes("boolean");
const nullable = (refs: RefResolver, s: unknown) => typesOf(refs, s).includes("null");
const numberOf = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The list shape of a GET operation, or undefined when its answer holds no list of records. */
export function listShape(
  refs: RefResolver,
  op: OperationModel,
  record: unknown,
  idField: string | undefined,
): ListShape | undefined {
  const found = recordsOf(refs, op.success.schema, record, idField);
  if (!found) return undefined;
  const { itemsField, itemsSchema, view } = found;
  const fills: Record<string, string> = {};
  const field = (names: readonly string[], accept: (s: unknown) => boolean) =>
    view ? findField(refs, view, names, accept) : undefined;
  /** A placeholder that may be missing on the last page: its null or "" form when the field is required. */
  const optional = (path: string, schema: unknown, name: string, orEmpty: boolean) => {
    const required = view !== undefined && requiredAt(refs, view, path);
    if (!required) return `{page.${name}${name === "nextToken" ? "IfMore" : ""}}`;
    if (nullable(refs, schema)) return `{page.${name}OrNull}`;
    return orEmpty ? `{page.${name}OrEmpty}` : undefined;
  };
  const size = param(op, QUERY_PARAMS.size);
  const maxSize = numberOf(size && resolved(refs, size.schema).maximum);
  const sizeDefault = numberOf(size && resolved(refs, size.schema).default);
  const pageSize = size
    ? { default: Math.min(sizeDefault ?? Math.min(maxSize ?? 100, 100), maxSize ?? Infinity), max: maxSize ?? 1000 }
    : undefined;
  const total = field(ANSWER_FIELDS.total, (s) => isNumeric(refs, s));
  if (total) fills[total.path] = "{page.total}";
  const count =
    view && total && total.path !== "count" ? findField(refs, view, ["count"], (s) => isNumeric(refs, s)) : undefined;
  if (count) fills[count.path] = "{page.count}";
  const more = field(ANSWER_FIELDS.more, (s) => isFlag(refs, s));
  if (more) fills[more.path] = "{page.more}";
  const link = field(ANSWER_FIELDS.nextLink, (s) => isLink(refs, s));

  let paging: PagingSpec | undefined;
  const offset = param(op, QUERY_PARAMS.offset);
  const page = param(op, QUERY_PARAMS.page);
  const cursor = param(op, QUERY_PARAMS.cursor);
  if (offset && size) {
    paging = {
      style: "offset",
      offsetParam: offset.name,
      limitParam: size.name,
      itemsField,
      maxLimit: maxSize ?? sizeDefault ?? 100,
      ...(total ? { totalField: total.path } : {}),
    };
    const at = field(ANSWER_FIELDS.offset, (s) => isNumeric(refs, s));
    if (at) fills[at.path] = "{page.offset}";
  } else if (page && typesOf(refs, page.schema).some((t) => t === "integer" || t === "number")) {
    const s = resolved(refs, page.schema);
    const firstPage = numberOf(s.minimum) === 0 || numberOf(s.default) === 0 ? 0 : 1;
    const pages = field(ANSWER_FIELDS.totalPages, (x) => isNumeric(refs, x));
    paging = {
      style: "page",
      pageParam: page.name,
      ...(size ? { sizeParam: size.name } : {}),
      itemsField,
      firstPage,
      ...(maxSize !== undefined ? { maxSize } : {}),
      ...(total ? { totalField: total.path } : {}),
      ...(pages ? { totalPagesField: pages.path } : {}),
      ...(more ? { moreField: more.path } : {}),
    };
    if (pages) fills[pages.path] = "{page.pages}";
    const number = field(ANSWER_FIELDS.pageNumber, (x) => isNumeric(refs, x));
    if (number) fills[number.path] = "{page.number}";
    const next = field(ANSWER_FIELDS.nextPage, (x) => isNumeric(refs, x));
    const nextFill = next && optional(next.path, next.schema, "nextPage", false);
    if (next && nextFill) fills[next.path] = nextFill;
  } else if (cursor) {
    const next = field(ANSWER_FIELDS.nextToken, (s) => isText(refs, s) && !isLink(refs, s));
    if (next) {
      paging = {
        style: "token",
        tokenParam: cursor.name,
        tokenField: next.path,
        itemsField,
        ...(size ? { sizeParam: size.name } : {}),
        ...(more ? { moreField: more.path } : {}),
      };
      const nextFill = optional(next.path, next.schema, "nextToken", true);
      if (nextFill) fills[next.path] = nextFill;
    }
  }
  if (paging) {
    const sized = field(ANSWER_FIELDS.pageSize, (s) => isNumeric(refs, s));
    if (sized && !(sized.path in fills)) fills[sized.path] = "{page.limit}";
    const linkFill = link && !(link.path in fills) ? optional(link.path, link.schema, "nextUrl", false) : undefined;
    if (link && linkFill) fills[link.path] = linkFill;
  }
  return { itemsField, itemsSchema, paging, ...(paging && pageSize ? { pageSize } : {}), fills };
}

/** Whether every object on the way to `path` requires the next step (so the field must be present). */
function requiredAt(refs: RefResolver, view: ObjectView, path: string): boolean {
  const [head, ...rest] = path.split(".");
  if (!view.required.has(head!)) return false;
  if (rest.length === 0) return true;
  const inner = objectView(refs, view.properties.get(head!));
  return inner !== undefined && requiredAt(refs, inner, rest.join("."));
}

/** `{name}` placeholders a sampled text must not hold (the template would fill them). */
const PLACEHOLDER = /\{[A-Za-z_$][\w$.\-[\]]*\}/g;

/** A sampled value made safe to put in a template: braces of placeholder-like text become parentheses. */
function literal(value: unknown): unknown {
  if (typeof value === "string") return value.replace(PLACEHOLDER, (m) => `(${m.slice(1, -1)})`);
  if (Array.isArray(value)) return value.map(literal);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  return value;
}

/**
 * A response template: a sample of `schema` (the spec's valid example when given) with each of
 * `fills` (dotted path → placeholder) written in. Sampled from the whole document, seeded by `seed`.
 */
export function envelopeTemplate(
  doc: Json,
  schema: unknown,
  fills: Record<string, string>,
  seed: string,
  base?: unknown,
): unknown {
  const sample =
    base !== undefined ? structuredClone(base) : sampleFromSchema(schema, { seed, resolve: pointerResolver(doc) });
  const out = literal(sample);
  const paths = Object.entries(fills);
  if (paths.some(([p]) => p === "." || p === "")) return fills["."] ?? fills[""];
  const root = out !== null && typeof out === "object" && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
  for (const [path, placeholder] of paths) {
    const keys = path.split(".");
    let node = root;
    for (const key of keys.slice(0, -1)) {
      const next = node[key];
      node =
        next !== null && typeof next === "object" && !Array.isArray(next)
          ? (next as Record<string, unknown>)
          : (node[key] = {});
    }
    node[keys.at(-1)!] = placeholder;
  }
  return root;
}
