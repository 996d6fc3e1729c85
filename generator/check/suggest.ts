/**
 * "Did you mean": the nearest existing name to one that was mistyped. Used for keys of the
 * extensions, enum values, connection fields and `$ref` targets, so a diagnostic names the fix
 * instead of leaving the author to search the document.
 */
import { asObject } from "../refs.js";
import { type CheckContext, editDistance, type Path } from "./context.js";

/**
 * The candidate nearest to `word`, when it is near enough to be a slip rather than another name:
 * the same letters in another case, or at most a third of the word's length away (and at most 3).
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = candidate.toLowerCase() === word.toLowerCase() ? 0.5 : editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= limit ? best : undefined;
}

/** `; did you mean "x"?`, or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const hint = nearest(word, candidates);
  return hint === undefined ? "" : `; did you mean "${hint}"?`;
}

function decode(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function encode(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The existing target nearest to an internal `$ref` that points at nothing: each segment that does
 * not exist is replaced by the nearest key at its level (`#/components/schema/NewBok` →
 * `#/components/schemas/NewBook`). Undefined when some segment has no near key.
 */
export function nearestRef(doc: unknown, ref: string): string | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  const out: string[] = [];
  let changed = false;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decode(decodeURIComponent(raw));
    } catch {
      key = decode(raw);
    }
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= node.length) return undefined;
      node = node[Number(key)];
      out.push(key);
      continue;
    }
    const object = asObject(node);
    if (!object) return undefined;
    if (!Object.hasOwn(object, key)) {
      const near = nearest(key, Object.keys(object));
      if (near === undefined) return undefined;
      key = near;
      changed = true;
    }
    node = object[key];
    out.push(encode(key));
  }
  return changed ? `#/${out.join("/")}` : undefined;
}

/** SF107 for an internal `$ref` that points at nothing, naming the nearest existing target. */
export function reportBrokenRef(context: CheckContext, path: Path, ref: string): void {
  const near = nearestRef(context.doc, ref);
  const fix = near ? `did you mean "${near}"?` : "fix the reference or add the component";
  const diagnostic = context.spec.diagnostic("SF107", path, `"${ref}" points at nothing; ${fix}`);
  context.diagnostics.push(near ? { ...diagnostic, related: near.slice(1) } : diagnostic);
}
