/**
 * What a path parameter's schema says about the segment it fills, so the mock's router can tell
 * apart two operations on one route shape (`/boards/{id}/cards/{filter}` beside
 * `/boards/{id}/cards/{idCard}`, which some published specs declare although OpenAPI forbids it):
 * an `enum` or `const` is the most specific, then a `pattern` or a `format` that shapes a string
 * (uuid, dates, e-mail, addresses), then a non-string type (integer, number, boolean); a plain
 * string takes anything. Two parameters with the same reading cannot be told apart.
 *
 * Formats are ajv-formats' own checks (the reading the mock's request validator uses).
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { servedPath } from "../client/address.js";

export interface SegmentKind {
  /** Equal keys mean the same reading: the router keeps one branch per key. "" for any text. */
  key: string;
  /** Higher is tried first: 3 enum/const, 2 pattern/format, 1 a non-string type, 0 any text. */
  rank: number;
  /** Whether a (decoded) segment value fits. */
  accepts(value: string): boolean;
}

export const ANY_SEGMENT: SegmentKind = { key: "", rank: 0, accepts: () => true };

/** Formats whose strings share no spelling with a plain word (`hostname` or `byte` would take `open`). */
const SHAPING_FORMATS = ["uuid", "date", "date-time", "time", "duration", "email", "ipv4", "ipv6", "uri"] as const;

const TYPE_TESTS: Record<string, RegExp> = {
  integer: /^-?\d+$/,
  number: /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/,
  boolean: /^(true|false)$/,
};

type Resolve = (ref: string) => unknown;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function formatTest(format: string): ((value: string) => boolean) | undefined {
  if (!(SHAPING_FORMATS as readonly string[]).includes(format)) return undefined;
  const check = (fullFormats as Record<string, unknown>)[format];
  if (check instanceof RegExp) return (value) => check.test(value);
  if (typeof check === "function") return (value) => Boolean((check as (v: string) => boolean)(value));
  if (isObject(check) && typeof check.validate === "function")
    return (value) => Boolean((check.validate as (v: string) => boolean)(value));
  if (isObject(check) && check.validate instanceof RegExp) {
    const regex = check.validate;
    return (value) => regex.test(value);
  }
  return undefined;
}

/** The reading of one path parameter's schema (`$ref`s followed through `resolve`). */
export function segmentKind(schema: unknown, resolve?: Resolve): SegmentKind {
  let node = schema;
  for (let i = 0; i < 10 && isObject(node) && typeof node.$ref === "string" && resolve; i++) {
    try {
      node = resolve(node.$ref);
    } catch {
      return ANY_SEGMENT; // a reference to nothing reads as any text
    }
  }
  if (!isObject(node)) return ANY_SEGMENT;
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : undefined;
  if (values && values.length > 0 && values.every((v) => ["string", "number", "boolean"].includes(typeof v))) {
    const spelled = [...new Set(values.map(String))].sort();
    return { key: `enum:${JSON.stringify(spelled)}`, rank: 3, accepts: (value) => spelled.includes(value) };
  }
  if (typeof node.pattern === "string") {
    try {
      const regex = new RegExp(node.pattern, "u");
      return { key: `pattern:${node.pattern}`, rank: 2, accepts: (value) => regex.test(value) };
    } catch {
      // A pattern the mock cannot read checks nothing (SF162 said so at generation).
    }
  }
  const test = typeof node.format === "string" ? formatTest(node.format) : undefined;
  if (test) return { key: `format:${String(node.format)}`, rank: 2, accepts: test };
  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t !== "null");
  const type = types.length === 1 ? String(types[0]) : "";
  const regex = TYPE_TESTS[type];
  if (regex) return { key: `type:${type}`, rank: 1, accepts: (value) => regex.test(value) };
  return ANY_SEGMENT;
}

/** The kinds of an operation's path parameters by name, for `Router.add`. */
export function pathSegmentKinds(
  parameters: ReadonlyArray<{ name: string; in: string; schema?: unknown }>,
  resolve?: Resolve,
): Map<string, SegmentKind> {
  const kinds = new Map<string, SegmentKind>();
  for (const p of parameters) if (p.in === "path") kinds.set(p.name, segmentKind(p.schema, resolve));
  return kinds;
}

/**
 * What `addOperationRoute` needs of a router: router.ts's `Router` is one. Named here so this
 * module, whose segment kinds the router reads, does not import the router back.
 */
interface RouteTable<T> {
  add(
    method: string,
    template: string,
    value: T,
    describe: (v: T) => string,
    kinds: ReadonlyMap<string, SegmentKind>,
  ): void;
}

/**
 * Routes one operation the way the mock serves it: at its server's path (`servedPath`, the rule
 * the client sends by) with its path parameters' kinds. The engine, the HAR replayer and the
 * generator's SF193 check all route through here, so they agree on what conflicts.
 */
export function addOperationRoute<T>(
  router: RouteTable<T>,
  route: {
    declaredBase: string;
    server: string | undefined;
    method: string;
    path: string;
    parameters: ReadonlyArray<{ name: string; in: string; schema?: unknown }>;
  },
  value: T,
  nameOf: (value: T) => string,
  resolve?: Resolve,
): void {
  const path = servedPath(route.declaredBase, route.server, route.path);
  router.add(route.method, path, value, nameOf, pathSegmentKinds(route.parameters, resolve));
}
