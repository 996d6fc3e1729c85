/**
 * Pages of a list, as the operation's `x-stepforge-paging` says: offset + limit, or an opaque
 * token. Page sizes come from the operation (`pageSize`), the service (`pageSize`) or the paging's
 * `maxLimit`; tokens are written in the service's format (`pageToken`: encoding and prefix) and a
 * token the mock did not write is refused, naming the parameter.
 */
import type { OperationDescriptor } from "../descriptor.js";
import type { MockOperation, MockPageToken, MockService } from "./extension-types.js";
import type { Rec } from "./types.js";
import { queryNumber } from "./validate.js";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32(bytes: Buffer): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer | undefined {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/**
 * The token of the page that starts at `offset` in the list; with `at: "record"`, at the record
 * that was the `offset`-th created (a "since" token, which stays valid whatever the list filters).
 */
export function encodeToken(
  offset: number,
  format: MockPageToken = { encoding: "base64url", prefix: "" },
  at: "list" | "record" = "list",
): string {
  const raw = Buffer.from(`${at === "list" ? "o" : "r"}${offset}`);
  const body =
    format.encoding === "base32"
      ? base32(raw)
      : format.encoding === "hex"
        ? raw.toString("hex")
        : raw.toString("base64url");
  return format.prefix + body;
}

/** What a token stands for, or undefined when the mock did not write it. */
export function decodeToken(
  token: string,
  format: MockPageToken = { encoding: "base64url", prefix: "" },
): { at: "list" | "record"; n: number } | undefined {
  if (!token.startsWith(format.prefix)) return undefined;
  const body = token.slice(format.prefix.length);
  let raw: Buffer | undefined;
  if (format.encoding === "base32") raw = unbase32(body);
  else if (format.encoding === "hex") raw = /^(?:[0-9a-f]{2})+$/.test(body) ? Buffer.from(body, "hex") : undefined;
  else raw = /^[A-Za-z0-9_-]+$/.test(body) ? Buffer.from(body, "base64url") : undefined;
  const m = raw ? /^([or])(\d{1,9})$/.exec(raw.toString("utf8")) : null;
  return m ? { at: m[1] === "o" ? "list" : "record", n: Number(m[2]) } : undefined;
}

export interface Page {
  items: Rec[];
  /**
   * `{page.*}` of response templates: total, offset, limit, count, more, nextToken; for page
   * numbers also number, pages and nextPage. `…OrNull` / `…OrEmpty` variants hold null / "" on the
   * last page (for envelopes whose next-page field is required); `nextParams` are the query
   * parameters of the next page (actions/act.ts makes `nextUrl` of them).
   */
  page: Rec;
}

/** A page parameter's whole number, read as the request checks read it (queryNumber). */
const int = (v: unknown): number | undefined => {
  const n = typeof v === "number" ? v : typeof v === "string" ? queryNumber(v) : undefined;
  return n === undefined ? undefined : Math.trunc(n);
};

export class Pager {
  constructor(private readonly model: MockService) {}

  tokenFormat(op: MockOperation | undefined): MockPageToken {
    return op?.pageToken ?? this.model.pageToken ?? { encoding: "base64url", prefix: "" };
  }

  encode(offset: number, op: MockOperation | undefined, at: "list" | "record" = "list"): string {
    return encodeToken(offset, this.tokenFormat(op), at);
  }

  /** One page of `all`, or the name of the parameter whose token is not one of the mock's. */
  /**
   * `created` gives a record's place in creation order and `count` how many were created: then
   * next-page tokens point at a record, not at a place in this list, so a token stays right when
   * the next call filters differently or records were added since (Marketo's activity tokens).
   */
  page(
    desc: OperationDescriptor,
    op: MockOperation | undefined,
    all: Rec[],
    query: Rec,
    created?: { of: (r: Rec) => number; count: () => number },
  ): Page | { badToken: string } {
    const paging = desc.paging;
    const page: Rec = { total: all.length };
    if (paging?.style === "offset") {
      const max = op?.pageSize?.max ?? paging.maxLimit;
      const offset = Math.max(0, int(query[paging.offsetParam]) ?? 0);
      const limit = Math.min(max, Math.max(1, int(query[paging.limitParam]) ?? op?.pageSize?.default ?? max));
      const items = all.slice(offset, offset + limit);
      const more = offset + limit < all.length;
      const nextParams = more
        ? { [paging.offsetParam]: String(offset + limit), [paging.limitParam]: String(limit) }
        : undefined;
      Object.assign(page, { offset, limit, count: items.length, more, nextParams });
      return { items, page };
    }
    if (paging?.style === "token") {
      const format = this.tokenFormat(op);
      const token = query[paging.tokenParam];
      let from = 0;
      if (token !== undefined && token !== "") {
        const decoded = decodeToken(String(token), format);
        if (decoded === undefined) return { badToken: paging.tokenParam };
        if (decoded.at === "list") from = decoded.n;
        else {
          const i = created ? all.findIndex((r) => created.of(r) >= decoded.n) : -1;
          from = i < 0 ? all.length : i;
        }
      }
      const max = op?.pageSize?.max ?? Number.POSITIVE_INFINITY;
      const asked = int(paging.sizeParam ? query[paging.sizeParam] : undefined);
      const size = Math.min(max, Math.max(1, asked ?? op?.pageSize?.default ?? this.model.pageSize));
      const items = all.slice(from, from + size);
      const more = from + size < all.length;
      // A service that always answers a token (moreField) gets one for the end too: new records may come.
      let next: string | undefined;
      if (more || paging.moreField) {
        if (created) next = encodeToken(more ? created.of(all[from + size]!) : created.count(), format, "record");
        else next = encodeToken(Math.min(all.length, from + size), format);
      }
      // The …IfMore / …OrNull / …OrEmpty forms end with the list even when moreField keeps a token coming.
      const ifMore = more ? next : undefined;
      const nextParams = ifMore === undefined ? undefined : { [paging.tokenParam]: ifMore };
      Object.assign(page, {
        offset: from,
        limit: size,
        count: items.length,
        more,
        nextToken: next,
        nextTokenIfMore: ifMore,
        nextTokenOrNull: ifMore ?? null,
        nextTokenOrEmpty: ifMore ?? "",
        nextParams,
      });
      return { items, page };
    }
    if (paging?.style === "page") {
      const max = op?.pageSize?.max ?? paging.maxSize ?? Number.POSITIVE_INFINITY;
      const asked = int(paging.sizeParam ? query[paging.sizeParam] : undefined);
      const size = Math.min(max, Math.max(1, asked ?? op?.pageSize?.default ?? this.model.pageSize));
      const number = Math.max(paging.firstPage, int(query[paging.pageParam]) ?? paging.firstPage);
      const offset = (number - paging.firstPage) * size;
      const items = all.slice(offset, offset + size);
      const more = offset + size < all.length;
      const nextPage = more ? number + 1 : undefined;
      const nextParams = more
        ? { [paging.pageParam]: String(number + 1), ...(paging.sizeParam ? { [paging.sizeParam]: String(size) } : {}) }
        : undefined;
      const pages = Math.ceil(all.length / size);
      Object.assign(page, {
        offset,
        limit: size,
        count: items.length,
        more,
        number,
        pages,
        nextPage,
        nextPageOrNull: nextPage ?? null,
        nextParams,
      });
      return { items, page };
    }
    return { items: all, page: Object.assign(page, { count: all.length, more: false }) };
  }
}
