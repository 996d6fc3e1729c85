/**
 * Routing: method + path → operation and path parameters, through a tree of path segments
 * (literal segments first, then templated ones such as `{id}`, `{id}.json` or `{name}.{ext}`), so a
 * request costs one map lookup per literal segment however many operations the spec has.
 *
 * Parameter names live on the route, not in the tree: sibling routes may call the same position
 * `{id}` and `{userId}` (`/users/{id}` beside `/users/{userId}/posts`), as real specs such as
 * GitHub's do. The tree only knows a segment's shape (`{}.json`) and what each capture's schema
 * admits (segments.ts: an enum before a pattern or format before a number before any text), so two
 * operations on one route shape whose parameters read differently are two branches, tried most
 * specific first; a match collects the captured values in order and the route names them. Two
 * operations that end on one branch cannot be told apart: `add` throws a RouteConflict naming both.
 */

import { setOwn } from "../internal/values.js";
import { ANY_SEGMENT, type SegmentKind } from "./segments.js";

/** A templated segment: its literal parts around `count` captures, e.g. `{}.{}` → ["", ".", ""]. */
interface Pattern<T> {
  shape: string;
  /** The captures' kinds' keys: one branch per shape and reading. */
  reading: string;
  rank: number;
  /** The order in which the node first saw this shape (spec order among equally specific shapes). */
  shapeOrder: number;
  kinds: SegmentKind[];
  literals: string[];
  regex: RegExp;
  node: Node<T>;
}

/** Two operations on one route that no parameter schema tells apart. */
export class RouteConflict<T> extends Error {
  constructor(
    readonly method: string,
    readonly template: string,
    readonly existing: T,
    readonly added: T,
    describe: (v: T) => string,
  ) {
    super(
      `two operations on ${method} ${template}: ${describe(existing)} and ${describe(added)} ` +
        "cannot be told apart (their path parameters' schemas admit the same values); give the parameter " +
        "of one an `enum`, a `pattern` or a `format` (or a number type), or remove one of the operations",
    );
    this.name = "RouteConflict";
  }
}

interface Route<T> {
  value: T;
  names: string[];
}

interface Node<T> {
  literal: Map<string, Node<T>>;
  patterns: Array<Pattern<T>>;
  route?: Route<T>;
}

const node = <T>(): Node<T> => ({ literal: new Map(), patterns: [] });

export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

function decode(s: string): string {
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The parameter names of a segment and its literal parts, or undefined for a literal segment. */
function templated(segment: string): { names: string[]; literals: string[] } | undefined {
  const parts = segment.split(/\{([^{}]+)\}/);
  if (parts.length === 1) return undefined;
  return { names: parts.filter((_, i) => i % 2 === 1), literals: parts.filter((_, i) => i % 2 === 0) };
}

/** Most specific first: more literal text, then fewer captures (`{id}.json` before `{id}`). */
function specificity(p: { literals: string[] }): number {
  return p.literals.join("").length * 100 - p.literals.length;
}

export class Router<T> {
  private readonly roots = new Map<string, Node<T>>();

  /**
   * Adds `GET /1/cards/{id}`, its path parameters read through `kinds` (by name; any text when
   * absent); a second value on the same branch is a RouteConflict naming both.
   */
  add(
    method: string,
    template: string,
    value: T,
    describe: (v: T) => string = String,
    kinds: ReadonlyMap<string, SegmentKind> = new Map(),
  ): void {
    const m = method.toUpperCase();
    let root = this.roots.get(m);
    if (!root) this.roots.set(m, (root = node()));
    let at = root;
    const names: string[] = [];
    for (const segment of template.split("/")) {
      const t = templated(segment);
      if (!t) {
        let next = at.literal.get(segment);
        if (!next) at.literal.set(segment, (next = node()));
        at = next;
        continue;
      }
      names.push(...t.names);
      const shape = t.literals.join("{}");
      const segmentKinds = t.names.map((name) => kinds.get(name) ?? ANY_SEGMENT);
      const reading = segmentKinds.map((k) => k.key).join("\u0000");
      let pattern = at.patterns.find((x) => x.shape === shape && x.reading === reading);
      if (!pattern) {
        // Each capture takes at least one character; the last one takes the rest of the segment.
        const regex = new RegExp(`^${t.literals.map(escapeRegex).join("(.+?)")}$`, "s");
        const rank = Math.max(...segmentKinds.map((k) => k.rank));
        const shapeOrder = at.patterns.find((x) => x.shape === shape)?.shapeOrder ?? at.patterns.length;
        pattern = { shape, reading, rank, shapeOrder, kinds: segmentKinds, literals: t.literals, regex, node: node() };
        at.patterns.push(pattern);
        // Most specific first; within one shape the narrower reading, then by key (not by spec order).
        at.patterns.sort(
          (a, b) =>
            specificity(b) - specificity(a) ||
            a.shapeOrder - b.shapeOrder ||
            b.rank - a.rank ||
            (a.reading < b.reading ? -1 : a.reading > b.reading ? 1 : 0),
        );
      }
      at = pattern.node;
    }
    if (at.route !== undefined) throw new RouteConflict(m, template, at.route.value, value, describe);
    at.route = { value, names };
  }

  match(method: string, path: string): RouteMatch<T> | undefined {
    const root = this.roots.get(method);
    if (!root) return undefined;
    const captured: string[] = [];
    const segments = path.split("/");
    // First the route whose parameters' schemas admit the values; when none does, the most specific
    // route of that shape all the same, so its request check names the field at fault (a 400, not a 404).
    const route = walk(root, segments, 0, captured, true) ?? walk(root, segments, 0, captured, false);
    if (!route) return undefined;
    const params: Record<string, string> = {};
    // setOwn: a spec may name a parameter `__proto__`.
    route.names.forEach((name, i) => setOwn(params, name, decode(captured[i]!)));
    return { value: route.value, params };
  }
}

function walk<T>(
  at: Node<T>,
  segments: string[],
  i: number,
  captured: string[],
  bySchema: boolean,
): Route<T> | undefined {
  if (i === segments.length) return at.route;
  const segment = segments[i]!;
  const lit = at.literal.get(segment);
  if (lit) {
    const found = walk(lit, segments, i + 1, captured, bySchema);
    if (found) return found;
  }
  for (const p of at.patterns) {
    const m = p.regex.exec(segment);
    if (!m) continue;
    const values = m.slice(1);
    if (bySchema && p.rank > 0 && !values.every((v, k) => p.kinds[k]!.accepts(decode(v)))) continue;
    const before = captured.length;
    captured.push(...values);
    const found = walk(p.node, segments, i + 1, captured, bySchema);
    if (found) return found;
    captured.length = before;
  }
  return undefined;
}
