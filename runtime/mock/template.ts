/**
 * Templates of the mock model: JSON values whose strings hold `{dotted.path}` placeholders, filled
 * from a context object. A string that is exactly one placeholder takes the value itself; a value
 * that resolves to undefined is left out of its object (or array).
 */

export type Context = Record<string, unknown>;

const WHOLE = /^\{([A-Za-z_$][\w$.\-[\]]*)\}$/;
const PART = /\{([A-Za-z_$][\w$.\-[\]]*)\}/g;

export { getPath } from "../internal/values.js";
import { getPath, keyOf } from "../internal/values.js";

/** Sets a dotted path, creating objects on the way. */
export function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node: Record<string, unknown> = root;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

export function render(template: unknown, context: Context): unknown {
  if (typeof template === "string") {
    const whole = WHOLE.exec(template);
    if (whole) return getPath(context, whole[1]!);
    return template.replace(PART, (_m, name: string) => {
      const v = getPath(context, name);
      return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(template)) return template.map((t) => render(t, context)).filter((v) => v !== undefined);
  if (template && typeof template === "object") {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(template);
    for (const [k, t] of entries) {
      const key = render(k, context);
      const v = render(t, context);
      if (v !== undefined && typeof key === "string" && key !== "") out[key] = v;
    }
    // An object template none of whose values resolved is left out, so a template can describe
    // parts that exist only sometimes (Trello's listBefore/listAfter only on a move).
    return entries.length > 0 && Object.keys(out).length === 0 ? undefined : out;
  }
  return template;
}

/** A template string rendered to a string, or undefined when its only placeholder is missing. */
export function renderString(template: string | undefined, context: Context): string | undefined {
  if (template === undefined) return undefined;
  const v = render(template, context);
  if (v === undefined || v === null) return undefined;
  // keyOf, not String: an untrusted object's own toString may be anything (see keyOf).
  return typeof v === "string" ? v : Array.isArray(v) ? v.map(keyOf).join(",") : keyOf(v);
}
