/**
 * What `stepforge diff` need not check twice. An operation that reads the same on both sides — its
 * own text, the shared keys of its path item, and every component it reaches through `$ref` — has
 * the same surface on both, so it cannot be a change. Most edits of a large published spec touch a
 * few operations and a few schemas: checking every operation and schema of both documents in full
 * was most of a diff's time.
 *
 * Such an operation is not left out but written as the same stub on both sides: its operationId,
 * tags, summary, description and other keys stay, so every name the check stage gives out in
 * document order (operationIds with their repairs, tool step names, toolsets from tags) comes out as
 * it would from the full documents; only what is checked per operation and never compared across it
 * (parameters other than the path's, the request body, the responses, callbacks) is dropped. Then
 * the components nothing left reaches are dropped from both sides alike. The two documents are
 * checked as usual, and the report is the one the whole documents give (test/diff/report-lines.ts
 * compares both ways on every kind of change; test/diff/trello-official.test.ts on a published spec).
 *
 * Only a document whose every reference names a local component it holds is stubbed, so what an
 * operation reaches is known from its text; a spec with `x-stepforge` (whose tool steps, paging and
 * triggers name parameters) or an operation with an `x-stepforge-*` key is checked whole.
 */
import { isObject, type Json } from "../refs.js";
import { METHODS } from "../check/methods.js";

/**
 * What a JSON text refers to: each `$ref` (escapes included) and each discriminator mapping, whose
 * values may also be bare schema names. One pass over the text finds both.
 */
const REFERENCES = /"\$ref":"((?:[^"\\]|\\.)*)"|"mapping":\{([^{}]*)\}/g;
const MAPPING_VALUE = /:"((?:[^"\\]|\\.)*)"/g;
const COMPONENT_POINTER = /^#\/components\/([^/]+)\/([^/]+)(?:\/|$)/;

const OPERATION_KEYS = new Set<string>([...METHODS, "trace"]);
/** What a stub keeps no trace of: the parts checked per operation and compared operation by operation. */
const DROPPED = new Set(["parameters", "requestBody", "responses", "callbacks"]);

export interface Stubbed {
  old: Json;
  now: Json;
  /** How many operations each side holds as a stub. */
  stubs: number;
  /** How many components each side no longer holds. */
  dropped: number;
}

/** A part of a document as JSON text, and the components it mentions (`schemas/Card`). */
interface Text {
  text: string;
  mentions: string[];
  /** The mentions that are `$ref`s: each must name a component the document holds. */
  refs: string[];
}

/** One document as JSON texts: each component, each path item's shared keys and operations, the rest. */
interface Texts {
  components: Map<string, Text>;
  paths: Map<string, { shared: Text; operations: Map<string, Text> }>;
  /** The document without its paths and components (webhooks, security, extensions...). */
  rest: Text;
}

/** Both documents with their unchanged operations stubbed, or undefined when nothing can be (see the header). */
export function stubUnchanged(old: Json, now: Json): Stubbed | undefined {
  const before = textsOf(old);
  const after = textsOf(now);
  if (!before || !after) return undefined;
  const dirty = changedComponents(before.components, after.components);
  const reachesChange = (part: Text) => part.mentions.some((name) => dirty.has(name));
  const stubbed = new Map<string, Map<string, Json>>();
  for (const [path, item] of after.paths) {
    const was = before.paths.get(path);
    if (!was || was.shared.text !== item.shared.text || reachesChange(item.shared)) continue;
    for (const [method, part] of item.operations) {
      const op = ((now.paths as Json)[path] as Json)[method] as Json;
      if (was.operations.get(method)?.text !== part.text || reachesChange(part)) continue;
      if (Object.keys(op).some((k) => k.startsWith("x-stepforge"))) continue;
      stubbed.set(path, (stubbed.get(path) ?? new Map<string, Json>()).set(method, stubOf(op)));
    }
  }
  const stubs = [...stubbed.values()].reduce((n, methods) => n + methods.size, 0);
  if (stubs === 0) return undefined;
  // What the documents still hold once stubbed: where the components kept are reached from.
  const roots: string[] = [...before.rest.mentions, ...after.rest.mentions];
  for (const side of [before, after])
    for (const [path, item] of side.paths) {
      roots.push(...item.shared.mentions);
      for (const [method, part] of item.operations) {
        const stub = stubbed.get(path)?.get(method);
        roots.push(...(stub ? scan(JSON.stringify(stub.parameters ?? [])).mentions : part.mentions));
      }
    }
  const reached = reachedComponents(roots, before.components, after.components);
  const withStubs = (doc: Json): Json => {
    const paths = Object.fromEntries(
      Object.entries(doc.paths as Json).map(([path, item]) => {
        const methods = stubbed.get(path);
        return [path, methods ? { ...(item as Json), ...Object.fromEntries(methods) } : item];
      }),
    );
    return { ...doc, paths, components: keptComponents(doc, reached) };
  };
  const dropped = new Set([...before.components.keys(), ...after.components.keys()].filter((n) => !reached.has(n)));
  return { old: withStubs(old), now: withStubs(now), stubs, dropped: dropped.size };
}

/** An unchanged operation as both sides hold it: its names and documentation, nothing to check. */
function stubOf(op: Json): Json {
  const stub = pick(op, (k) => !DROPPED.has(k));
  // Path parameters stay: without them a templated path is a defect of its own. A `$ref` may be one.
  const parameters = Array.isArray(op.parameters)
    ? op.parameters.filter((p) => !isObject(p) || typeof p.$ref === "string" || p.in === "path")
    : [];
  if (parameters.length > 0) stub.parameters = parameters;
  stub.responses = { "200": { description: "unchanged" } };
  return stub;
}

/**
 * The texts of a document the stubbing is sound for (see the header): no `x-stepforge`, and every
 * reference names, as written, a component the document holds — not another file, not a path, not
 * a percent-encoded name.
 */
function textsOf(doc: Json): Texts | undefined {
  if (doc["x-stepforge"] !== undefined || !isObject(doc.paths)) return undefined;
  const components = new Map<string, Text>();
  for (const [section, entries] of Object.entries(isObject(doc.components) ? doc.components : {})) {
    if (!isObject(entries)) return undefined;
    for (const [name, value] of Object.entries(entries))
      components.set(key(section, escapeName(name)), scan(JSON.stringify(value) ?? ""));
  }
  const paths = new Map<string, { shared: Text; operations: Map<string, Text> }>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObject(item)) return undefined;
    const operations = new Map<string, Text>();
    for (const [method, op] of Object.entries(item))
      if (OPERATION_KEYS.has(method) && isObject(op)) operations.set(method, scan(JSON.stringify(op)));
    paths.set(path, { shared: scan(JSON.stringify(pick(item, (k) => !OPERATION_KEYS.has(k)))), operations });
  }
  const rest = scan(JSON.stringify(pick(doc, (k) => k !== "paths" && k !== "components")));
  const parts = [
    rest,
    ...components.values(),
    ...[...paths.values()].flatMap((p) => [p.shared, ...p.operations.values()]),
  ];
  if (parts.some((part) => part.refs.some((name) => name === UNFOLLOWABLE || !components.has(name)))) return undefined;
  return { components, paths, rest };
}

/** Stands for a reference that names no component (another file, a path, an encoded name). */
const UNFOLLOWABLE = "";

/** A text with the components it mentions: `$ref`s and discriminator mappings, in one pass. */
function scan(text: string): Text {
  const mentions: string[] = [];
  const refs: string[] = [];
  for (const match of text.matchAll(REFERENCES)) {
    if (match[1] !== undefined) {
      const parts = COMPONENT_POINTER.exec(match[1]);
      const name = parts ? key(parts[1]!, parts[2]!) : UNFOLLOWABLE;
      mentions.push(name);
      refs.push(name);
      continue;
    }
    for (const value of match[2]!.matchAll(MAPPING_VALUE)) {
      const parts = COMPONENT_POINTER.exec(value[1]!);
      // A mapping names a schema by pointer or by its bare name (a `mapping` of something else names
      // nothing that exists, and keeps nothing).
      if (parts) mentions.push(key(parts[1]!, parts[2]!));
      else mentions.push(key("schemas", escapeName(value[1]!)));
    }
  }
  return { text, mentions, refs };
}

/**
 * The components that differ between the two documents, and every component that reaches one of
 * them through its references (on either side): an operation reaching any of these has changed.
 */
function changedComponents(before: Map<string, Text>, after: Map<string, Text>): Set<string> {
  const usedBy = new Map<string, Set<string>>();
  for (const texts of [before, after])
    for (const [name, part] of texts)
      for (const target of part.mentions) {
        if (!usedBy.has(target)) usedBy.set(target, new Set());
        usedBy.get(target)!.add(name);
      }
  const names = new Set([...before.keys(), ...after.keys()]);
  const changed = [...names].filter((name) => before.get(name)?.text !== after.get(name)?.text);
  return closure(changed, (name) => usedBy.get(name) ?? []);
}

/** The components reached from `roots`, on either side, security schemes always (no `$ref` names them). */
function reachedComponents(roots: string[], before: Map<string, Text>, after: Map<string, Text>): Set<string> {
  const start = [...roots];
  for (const name of [...before.keys(), ...after.keys()]) if (name.startsWith("securitySchemes/")) start.push(name);
  return closure(start, (name) => [...(before.get(name)?.mentions ?? []), ...(after.get(name)?.mentions ?? [])]);
}

function closure(start: string[], next: (name: string) => Iterable<string>): Set<string> {
  const found = new Set(start);
  for (let queue = [...found]; queue.length > 0; ) {
    const name = queue.pop()!;
    for (const other of next(name))
      if (!found.has(other)) {
        found.add(other);
        queue.push(other);
      }
  }
  return found;
}

/** `doc.components` with only the `reached` entries, in the document's order. */
function keptComponents(doc: Json, reached: ReadonlySet<string>): Json | undefined {
  if (!isObject(doc.components)) return doc.components as undefined;
  return Object.fromEntries(
    Object.entries(doc.components).map(([section, entries]) => [
      section,
      pick(entries as Json, (name) => reached.has(key(section, escapeName(name)))),
    ]),
  );
}

const key = (section: string, escapedName: string) => `${section}/${escapedName}`;
/** A name as a JSON pointer writes it. */
const escapeName = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

function pick(node: Json, keep: (key: string) => boolean): Json {
  return Object.fromEntries(Object.entries(node).filter(([k]) => keep(k)));
}
