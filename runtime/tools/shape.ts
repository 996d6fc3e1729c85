/**
 * Results sized for a model. A step's data can be megabytes (a board with every card, a page of
 * 100 articles with their full text); a model's context holds a few tens of kilobytes of it, and
 * clients cut tool output at about 25k tokens without saying where. Here a result over a byte
 * budget is cut at a record boundary: the longest list is shortened to the records that fit, and
 * the rest is handed back so the caller can offer it as a continuation. Only when one record alone
 * is over the budget are long strings shortened (marked with `…[cut]`).
 *
 * Field selection (`fields`) keeps only the named fields of each record, before anything is cut.
 *
 * Pure functions: the caller keeps the rest (the MCP server keeps it under a cursor).
 */
import { setOwn } from "../internal/values.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "");

/**
 * The property of a step's result that holds its records: the first top-level property of its
 * output schema that is a list of objects (`items`, `result`, `news`, `data`), "items" first, an
 * envelope's `errors` or `warnings` never; none when the result has an `id` of its own (one record).
 */
export function recordsKeyOf(outputSchema: unknown): string | undefined {
  if (!isObject(outputSchema) || !isObject(outputSchema.properties)) return undefined;
  const props = outputSchema.properties as Record<string, Json>;
  const isList = (p: Json | undefined) => {
    if (!p) return false;
    const type = p.type;
    const listType = type === "array" || (Array.isArray(type) && type.includes("array"));
    return (
      listType &&
      isObject(p.items) &&
      (p.items.type === "object" || isObject(p.items.properties) || Array.isArray(p.items.anyOf))
    );
  };
  // A result with its own id is one record (a card with its labels), not a page of records.
  if ("id" in props) return undefined;
  const lists = Object.keys(props).filter((k) => isList(props[k]));
  // Envelope lists (errors, warnings) hold no records.
  return lists.find((k) => k === "items") ?? lists.find((k) => !/^(errors?|warnings?)$/i.test(k));
}

/** Own value at a dotted path, mapping over lists on the way (`list.name` of each list item). */
function pick(record: unknown, path: string[]): unknown {
  if (path.length === 0) return record;
  if (Array.isArray(record)) return record.map((r) => pick(r, path));
  if (!isObject(record) || !Object.prototype.hasOwnProperty.call(record, path[0]!)) return undefined;
  return pick(record[path[0]!], path.slice(1));
}

function put(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) setOwn(node, key, {});
    node = node[key] as Json;
  }
  setOwn(node, path[path.length - 1]!, value);
}

/** `record` with only `fields` (dotted paths allowed); fields a record lacks are left out. */
export function selectFields(record: unknown, fields: readonly string[]): unknown {
  if (!isObject(record)) return record;
  const out: Json = {};
  for (const field of fields) {
    const path = field.split(".");
    const value = pick(record, path);
    if (value !== undefined) put(out, path, value);
  }
  return out;
}

export interface ShapeOptions {
  /** Budget for the result as JSON (UTF-8 bytes). */
  maxBytes: number;
  /** The property holding the records (see recordsKeyOf); otherwise the longest list is cut. */
  recordsKey?: string | undefined;
  /** Keep only these fields of each record. */
  fields?: readonly string[] | undefined;
}

export interface Shaped {
  data: unknown;
  /** Bytes of `data` as JSON. */
  bytes: number;
  /** Bytes before anything was cut (after field selection). */
  fullBytes: number;
  /** When records were left out: where the list is, how many were kept of how many, and the rest. */
  cut?: { path: string[]; returned: number; total: number; rest: unknown[] } | undefined;
  /** Long strings were shortened (one record alone was over the budget). */
  stringsCut?: boolean | undefined;
  /** Requested fields that no record has. */
  unknownFields?: string[] | undefined;
  /**
   * Even cut strings left too many small values: `data` is `{ preview, note }`, the start of the
   * JSON text, not records (a caller's note must not call it records 1-n).
   */
  preview?: boolean | undefined;
}

/** The longest list (by bytes) in the top levels of `data` (not inside list items). */
function largestList(data: unknown): { path: string[]; list: unknown[]; bytes: number } | undefined {
  let best: { path: string[]; list: unknown[]; bytes: number } | undefined;
  const visit = (node: unknown, path: string[], depth: number) => {
    if (Array.isArray(node)) {
      const bytes = bytesOf(node);
      if (node.length > 0 && (!best || bytes > best.bytes)) best = { path, list: node, bytes };
      return;
    }
    if (!isObject(node) || depth > 3) return;
    for (const [key, child] of Object.entries(node)) visit(child, [...path, key], depth + 1);
  };
  visit(data, [], 0);
  return best;
}

function replaceAt(data: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: Json = { ...(data as Json) };
  copy[path[0]!] = replaceAt((data as Json)[path[0]!], path.slice(1), value);
  return copy;
}

/** Every string longer than `limit` characters shortened to it. */
function cutStrings(value: unknown, limit: number): unknown {
  if (typeof value === "string") return value.length > limit ? `${value.slice(0, limit)}…[cut]` : value;
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, limit));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, cutStrings(v, limit));
  return out;
}

/** Room kept for the note the caller adds beside a cut result. */
const NOTE_RESERVE = 600;

export function shapeResult(input: unknown, options: ShapeOptions): Shaped {
  let data = input;
  let unknownFields: string[] | undefined;
  const records =
    options.recordsKey && isObject(data) ? data[options.recordsKey] : Array.isArray(data) ? data : undefined;
  if (options.fields?.length && Array.isArray(records)) {
    const selected = records.map((r) => selectFields(r, options.fields!));
    unknownFields = options.fields.filter(
      (f) => records.length > 0 && records.every((r) => pick(r, f.split(".")) === undefined),
    );
    data = Array.isArray(data) ? selected : { ...(data as Json), [options.recordsKey!]: selected };
  }
  const fullBytes = bytesOf(data);
  const result: Shaped = { data, bytes: fullBytes, fullBytes, ...(unknownFields?.length ? { unknownFields } : {}) };
  if (fullBytes <= options.maxBytes) return result;

  const budget = Math.max(options.maxBytes - NOTE_RESERVE, 256);
  const target =
    options.recordsKey &&
    isObject(data) &&
    Array.isArray(data[options.recordsKey]) &&
    (data[options.recordsKey] as unknown[]).length > 0
      ? {
          path: [options.recordsKey],
          list: data[options.recordsKey] as unknown[],
          bytes: bytesOf(data[options.recordsKey]),
        }
      : largestList(data);
  if (target) {
    const overhead = fullBytes - target.bytes;
    let used = 2;
    let kept = 0;
    for (const item of target.list) {
      const size = bytesOf(item) + (kept > 0 ? 1 : 0);
      if (overhead + used + size > budget) break;
      used += size;
      kept++;
    }
    // One record alone over the budget: keep it, its long strings are cut below.
    if (kept === 0) kept = 1;
    data = replaceAt(data, target.path, target.list.slice(0, kept));
    if (kept < target.list.length)
      result.cut = { path: target.path, returned: kept, total: target.list.length, rest: target.list.slice(kept) };
  }
  let bytes = bytesOf(data);
  for (let limit = 4096; bytes > budget && limit >= 64; limit = Math.floor(limit / 2)) {
    data = cutStrings(data, limit);
    bytes = bytesOf(data);
    result.stringsCut = true;
  }
  if (bytes > budget) {
    // Many small values: what is left is a preview of the JSON text.
    const text = JSON.stringify(data);
    data = {
      preview: `${text.slice(0, budget - 200)}…[cut]`,
      note: "The result is too large to show whole; narrow the request (filters, fewer fields, a smaller page).",
    };
    bytes = bytesOf(data);
    result.stringsCut = true;
    result.preview = true;
  }
  result.data = data;
  result.bytes = bytes;
  return result;
}
