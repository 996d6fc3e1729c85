/**
 * Routing: method + path → operation and path parameters, through a tree of path segments
 * (literal segments first, then templated ones such as `{id}`, `{id}.json` or `{name}.{ext}`), so a
 * request costs one map lookup per literal segment however many operations the spec has.
 *
 * Parameter names live on the route, not in the tree: sibling routes may call the same position
 * `{id}` and `{userId}` (`/users/{id}` beside `/users/{userId}/posts`), as real specs such as
 * GitHub's do. The tree only knows a segment's shape (`{}.json`); a match collects the captured
 * values in order and the route names them.
 */

import { setOwn } from "../internal/values.js";

/** A templated segment: its literal parts around `count` captures, e.g. `{}.{}` → ["", ".", ""]. */
interface Pattern<T> {
  shape: string;
  literals: string[];
  regex: RegExp;
  node: Node<T>;
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

  /** Adds `GET /1/cards/{id}`; a second value for the same route is an error naming both. */
  add(method: string, template: string, value: T, describe: (v: T) => string = String): void {
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
      let pattern = at.patterns.find((x) => x.shape === shape);
      if (!pattern) {
        // Each capture takes at least one character; the last one takes the rest of the segment.
        const regex = new RegExp(`^${t.literals.map(escapeRegex).join("(.+?)")}$`, "s");
        pattern = { shape, literals: t.literals, regex, node: node() };
        at.patterns.push(pattern);
        at.patterns.sort((a, b) => specificity(b) - specificity(a));
      }
      at = pattern.node;
    }
    if (at.route !== undefined)
      throw new Error(`two operations on ${m} ${template}: ${describe(at.route.value)} and ${describe(value)}`);
    at.route = { value, names };
  }

  match(method: string, path: string): RouteMatch<T> | undefined {
    const root = this.roots.get(method);
    if (!root) return undefined;
    const captured: string[] = [];
    const route = walk(root, path.split("/"), 0, captured);
    if (!route) return undefined;
    const params: Record<string, string> = {};
    // setOwn: a spec may name a parameter `__proto__`.
    route.names.forEach((name, i) => setOwn(params, name, decode(captured[i]!)));
    return { value: route.value, params };
  }
}

function walk<T>(at: Node<T>, segments: string[], i: number, captured: string[]): Route<T> | undefined {
  if (i === segments.length) return at.route;
  const segment = segments[i]!;
  const lit = at.literal.get(segment);
  if (lit) {
    const found = walk(lit, segments, i + 1, captured);
    if (found) return found;
  }
  for (const p of at.patterns) {
    const m = p.regex.exec(segment);
    if (!m) continue;
    const before = captured.length;
    captured.push(...m.slice(1));
    const found = walk(p.node, segments, i + 1, captured);
    if (found) return found;
    captured.length = before;
  }
  return undefined;
}
