/**
 * Routing: method + path → operation and path parameters, through a tree of path segments
 * (literal segments first, then templated ones such as `{id}` or `{id}.json`), so a request costs
 * one map lookup per segment however many operations the spec has.
 */

interface Pattern<T> {
  prefix: string;
  suffix: string;
  name: string;
  node: Node<T>;
}

interface Node<T> {
  literal: Map<string, Node<T>>;
  patterns: Array<Pattern<T>>;
  value?: T;
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

export class Router<T> {
  private readonly roots = new Map<string, Node<T>>();

  /** Adds `GET /1/cards/{id}`; a second value for the same route is an error naming both. */
  add(method: string, template: string, value: T, describe: (v: T) => string = String): void {
    const m = method.toUpperCase();
    let root = this.roots.get(m);
    if (!root) this.roots.set(m, (root = node()));
    let at = root;
    for (const segment of template.split("/")) {
      const p = /^([^{}]*)\{([^{}]+)\}([^{}]*)$/.exec(segment);
      if (!p) {
        let next = at.literal.get(segment);
        if (!next) at.literal.set(segment, (next = node()));
        at = next;
        continue;
      }
      const [, prefix = "", name = "", suffix = ""] = p;
      let pattern = at.patterns.find((x) => x.prefix === prefix && x.suffix === suffix);
      if (!pattern) {
        pattern = { prefix, suffix, name, node: node() };
        at.patterns.push(pattern);
        // The most specific template first: `{id}.json` before `{id}`.
        at.patterns.sort((a, b) => b.prefix.length + b.suffix.length - (a.prefix.length + a.suffix.length));
      } else if (pattern.name !== name) throw new Error(`routes ${m} ${template}: parameter {${name}} where another route has {${pattern.name}}`);
      at = pattern.node;
    }
    if (at.value !== undefined) throw new Error(`two operations on ${m} ${template}: ${describe(at.value)} and ${describe(value)}`);
    at.value = value;
  }

  match(method: string, path: string): RouteMatch<T> | undefined {
    const root = this.roots.get(method);
    if (!root) return undefined;
    const params: Record<string, string> = {};
    const value = walk(root, path.split("/"), 0, params);
    return value === undefined ? undefined : { value, params };
  }
}

function walk<T>(at: Node<T>, segments: string[], i: number, params: Record<string, string>): T | undefined {
  if (i === segments.length) return at.value;
  const segment = segments[i]!;
  const lit = at.literal.get(segment);
  if (lit) {
    const found = walk(lit, segments, i + 1, params);
    if (found !== undefined) return found;
  }
  for (const p of at.patterns) {
    if (segment.length <= p.prefix.length + p.suffix.length || !segment.startsWith(p.prefix) || !segment.endsWith(p.suffix)) continue;
    const found = walk(p.node, segments, i + 1, params);
    if (found !== undefined) {
      params[p.name] = decode(segment.slice(p.prefix.length, segment.length - p.suffix.length));
      return found;
    }
  }
  return undefined;
}
