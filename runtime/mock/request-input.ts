/**
 * What the engine reads from a request before it answers: the body (JSON or a form; bad JSON and
 * too deep a nesting noted, to be answered after auth and limits as services do) and the query as
 * templates see it. Plain functions of the request's bytes, apart from the engine's pipeline.
 */
import { setOwn } from "../internal/values.js";
import type { Rec } from "./types.js";

/** A request's body and headers, as parseBody reads them. */
interface BodySource {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * How deep a JSON body may nest. Real payloads of these APIs nest a handful of levels; the mock's
 * own walks of a body (structuredClone, templates, JSON.stringify of a stored record) recurse once
 * per level, and a few thousand levels overflow the stack — after the record was stored, so every
 * later read of it failed too. 64 is far above any real payload and far below the stack's limit.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * A JSON or form body; `badJson` when it is neither, `tooDeep` when it nests too deeply (both
 * answered after auth and limits, as services do).
 */
export function parseBody(req: BodySource): { body: unknown; badJson: boolean; tooDeep?: boolean } {
  if (req.body.length === 0) return { body: undefined, badJson: false };
  const text = req.body.toString("utf8");
  if (String(req.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded"))
    return { body: Object.fromEntries(new URLSearchParams(text)), badJson: false };
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) return { body: undefined, badJson: false, tooDeep: true };
  try {
    return { body: JSON.parse(text), badJson: false };
  } catch {
    return { body: undefined, badJson: true };
  }
}

/** Whether JSON text opens more than `max` arrays or objects inside each other; one pass, no recursion. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The query for templates (`{query.name}`), a repeated key's values joined with commas. */
export function queryObject(query: URLSearchParams): Rec {
  const out: Rec = {};
  // Own keys, set as data: `in` found `constructor` and `toString` on Object.prototype and dropped
  // them, and `=` would make a `__proto__` key the object's prototype.
  for (const key of query.keys()) if (!Object.hasOwn(out, key)) setOwn(out, key, query.getAll(key).join(","));
  return out;
}
