/**
 * Stage 1: load. Reads a YAML or JSON spec keeping source positions, so every later stage can
 * point at file:line:col. Nothing here knows what OpenAPI is.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as JsYaml from "js-yaml";
import type * as Yaml from "yaml";
import type { Document, Node, Pair, YAMLMap } from "yaml";
import { SpecError, toPointer, type Diagnostic, type Severity } from "./diagnostics.js";
import { yamlErrorDiagnostics } from "./yaml-errors.js";

/**
 * `yaml`, loaded on first use: a JSON spec needs it only for the place of a diagnostic, and
 * `stepforge diff` of two JSON specs otherwise spent ~50 ms of its critical path loading it. Its
 * Node entry is CommonJS, so `require` returns the very module an `import` of it does.
 */
let yamlModule: typeof Yaml | undefined;
const yaml = (): typeof Yaml => (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml);

/** js-yaml, the fast reader of YAML specs (see fastYamlData), loaded on first use for the same reason. */
let jsYamlModule: typeof JsYaml | undefined;
const jsYaml = (): typeof JsYaml => (jsYamlModule ??= createRequire(import.meta.url)("js-yaml") as typeof JsYaml);

export interface LoadedSpec {
  /** The path as given (used in diagnostics and generated headers). */
  file: string;
  text: string;
  /** The plain data of the document. */
  data: Record<string, unknown>;
  /** Line and column (1-based) of the node at `path`, or of its nearest existing ancestor. */
  locate(path: ReadonlyArray<string | number>): { line: number; column: number };
  diagnostic(code: string, path: ReadonlyArray<string | number>, message: string, severity?: Severity): Diagnostic;
}

export function loadSpecFile(file: string): LoadedSpec {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new SpecError([
      { code: "SF001", severity: "error", message: `cannot read the spec: ${reason}`, file, line: 1, column: 1 },
    ]);
  }
  return loadSpecText(file, text);
}

/** Deeper than any real OpenAPI document; every later stage walks the data recursively. */
export const MAX_DEPTH = 256;

/** True when `value` nests objects/arrays more than MAX_DEPTH levels (checked without recursion). */
function tooDeep(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) return true;
    if (node && typeof node === "object")
      for (const child of Object.values(node)) if (child && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

function tooDeepError(file: string): SpecError {
  return new SpecError([
    {
      code: "SF002",
      severity: "error",
      message: `the document nests deeper than ${MAX_DEPTH} levels; no OpenAPI document needs that`,
      file,
      line: 1,
      column: 1,
    },
  ]);
}

export function loadSpecText(file: string, text: string): LoadedSpec {
  // JSON is YAML, but JSON.parse is ~20x faster on large specs; positions are then worked out
  // from a YAML parse only when a diagnostic needs one.
  const json = /\.json$/i.test(file);
  if (json || /^\s*\{/.test(text)) {
    let data: unknown;
    try {
      // A byte-order mark is not JSON, but editors write one and YAML allows it.
      data = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
      if (error instanceof RangeError) throw tooDeepError(file);
      // A .json file is reported as JSON (a YAML message about flow maps would mislead); other
      // files fall through, and the YAML parser reports the error with its place.
      if (json) throw jsonError(file, text, error as SyntaxError);
      data = undefined;
    }
    if (data && typeof data === "object" && !Array.isArray(data)) {
      if (tooDeep(data)) throw tooDeepError(file);
      let positions: LoadedSpec | undefined;
      return loadedSpec(file, text, data as Record<string, unknown>, (path) =>
        (positions ??= parseWithPositions(file, text)).locate(path),
      );
    }
  }
  const data = fastYamlData(text);
  if (data) {
    let positions: LoadedSpec | undefined;
    return loadedSpec(file, text, data, (path) => (positions ??= parseWithPositions(file, text)).locate(path));
  }
  return parseWithPositions(file, text);
}

/**
 * A number in a form the two parsers read apart: js-yaml takes `1_000` and `0b101` as numbers, YAML
 * 1.2's core schema (what `yaml` reads) as strings.
 */
const NUMBER_FORMS_APART = /(?:^|[\s[{,:-])[-+]?(?:\d[\d_]*_[\d_]*(?:\.[\d_]*)?|0b[01_]+)(?=[ \t]*(?:$|[,\]}#]))/m;

/**
 * The data of a YAML spec from js-yaml, several times faster than `yaml` (~0.1 s against ~0.5 s
 * of CPU for the four bundled specs), with positions worked out by `yaml` only when a diagnostic
 * needs one. Both read YAML 1.2's core schema, and js-yaml refuses what `yaml` reports as an error
 * (a key written twice, a bad indent, an unknown tag): then, and wherever the two could read the
 * same text apart (`<<` merge keys, the number forms above, aliases `yaml` would count as an attack),
 * this returns undefined and `yaml` reads the spec as before.
 * test/generator/load.test.ts holds the two to the same data on every YAML spec of the repository.
 */
function fastYamlData(text: string): Record<string, unknown> | undefined {
  if (NUMBER_FORMS_APART.test(text)) return undefined;
  let data: unknown;
  const anchored: Array<{ name: string; start: number; end: number }> = [];
  const starts: number[] = [];
  try {
    const { load, CORE_SCHEMA } = jsYaml();
    data = load(text, {
      schema: CORE_SCHEMA,
      // Where each node with an anchor (`&name`) sits, to judge the aliases of it below.
      listener(event, state) {
        if (event === "open") starts.push(state.position);
        else {
          const start = starts.pop()!;
          // `anchor` is the node's `&name` (js-yaml's state has it; its type declarations leave it out).
          const { anchor } = state as unknown as { anchor: string | null };
          if (anchor) anchored.push({ name: anchor, start, end: state.position });
        }
      },
    });
  } catch {
    return undefined;
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return undefined;
  if (anchored.length > 0 && !fewFlatAliases(text, anchored)) return undefined;
  return plainTree(data) ? (data as Record<string, unknown>) : undefined;
}

/**
 * `yaml` refuses a document whose aliases multiply (an alias inside an anchored node, used many times:
 * "billion laughs"), counting up to 100 uses of an anchor. The fast path takes only what it certainly
 * accepts: no alias inside an anchored node, and at most 100 uses of each anchor. Counted in the text,
 * so an alias-like word in prose counts too and can only send a spec to `yaml`, never the reverse.
 */
function fewFlatAliases(text: string, anchored: ReadonlyArray<{ name: string; start: number; end: number }>): boolean {
  const uses = new Map<string, number>();
  for (const alias of text.matchAll(/(?<=^|[\s,[{:-])\*([^\s,[\]{}]+)/gm)) {
    const at = alias.index;
    if (anchored.some(({ start, end }) => at >= start && at < end)) return false;
    uses.set(alias[1]!, (uses.get(alias[1]!) ?? 0) + 1);
  }
  return anchored.every(({ name }) => (uses.get(name) ?? 0) <= 100);
}

/**
 * True when no map has a `<<` key (a merge `yaml` applies) and nothing nests past MAX_DEPTH (the slow
 * path reports it); iterative, each object once (an alias shares one).
 */
function plainTree(root: object): boolean {
  const seen = new Set<object>();
  const stack: Array<[object, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) return false;
    if (seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && Object.hasOwn(node, "<<")) return false;
    for (const child of Object.values(node)) if (child && typeof child === "object") stack.push([child, depth + 1]);
  }
  return true;
}

/** JSON.parse's message with the place it names ("at position N"; the end of the text when it ran out). */
function jsonError(file: string, text: string, error: SyntaxError): SpecError {
  const at = /at position (\d+)/.exec(error.message);
  const offset = at ? Number(at[1]) : text.length;
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  const message = `not valid JSON: ${error.message.replace(/ in JSON at position \d+.*$/, "")}`;
  return new SpecError([
    { code: "SF002", severity: "error", message, file, line: before.length, column: before.at(-1)!.length + 1 },
  ]);
}

function parseWithPositions(file: string, text: string): LoadedSpec {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  // uniqueKeys: a key written twice is a mistake, not "last one wins". merge: specs share
  // responses with `<<: *anchor`, which YAML 1.1 defines and the 1.2 core schema leaves a plain "<<" key.
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false });
  } catch (error) {
    if (error instanceof RangeError) throw tooDeepError(file); // the parser recursed too deep
    throw error;
  }
  // One mistake, one diagnostic (the parser reports one mis-indented line several ways).
  if (doc.errors.length > 0) throw new SpecError(yamlErrorDiagnostics(file, text, doc.errors, lineCounter));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (error instanceof RangeError) throw tooDeepError(file);
    // yaml throws (a ReferenceError) on alias expansion that would blow up ("billion laughs").
    throw new SpecError([
      {
        code: "SF002",
        severity: "error",
        message: `not valid YAML: ${(error as Error).message.split("\n")[0]}`,
        file,
        line: 1,
        column: 1,
      },
    ]);
  }
  if (tooDeep(data)) throw tooDeepError(file);
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new SpecError([
      {
        code: "SF003",
        severity: "error",
        message: "the spec must be a YAML or JSON object (an OpenAPI document)",
        file,
        line: 1,
        column: 1,
      },
    ]);
  }

  const locate = (path: ReadonlyArray<string | number>) => {
    const node = nearestNode(doc, path);
    const offset = node?.range?.[0] ?? 0;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };

  return loadedSpec(file, text, data as Record<string, unknown>, locate);
}

function loadedSpec(
  file: string,
  text: string,
  data: Record<string, unknown>,
  locate: LoadedSpec["locate"],
): LoadedSpec {
  return {
    file,
    text,
    data,
    locate,
    diagnostic(code, path, message, severity = "error") {
      return { code, severity, message, file, ...locate(path), pointer: toPointer(path) };
    },
  };
}

/** Walks `path` as far as it exists; returns the deepest node reached (for a missing key: its parent). */
function nearestNode(doc: Document, path: ReadonlyArray<string | number>): Node | undefined {
  const { isAlias, isMap, isSeq } = yaml();
  let node: Node | undefined = doc.contents ?? undefined;
  for (const key of path) {
    if (node && isAlias(node)) node = node.resolve(doc) ?? undefined;
    if (isMap(node)) {
      const pair = pairOf(doc, node, String(key));
      if (!pair) return node;
      node = (pair.value as Node | null) ?? (pair.key as Node);
    } else if (isSeq(node) && typeof key === "number") {
      const next = node.items[key] as Node | undefined;
      if (!next) return node;
      node = next;
    } else {
      return node;
    }
  }
  return node;
}

/** The pair for `key` in a map: written in it, or brought in by a `<<: *anchor` merge (own keys win). */
function pairOf(doc: Document, map: YAMLMap, key: string, depth = 0): Pair | undefined {
  const own = map.items.find((p) => keyText(p.key) === key);
  if (own || depth > 20) return own;
  const { isAlias, isMap, isScalar, isSeq } = yaml();
  // With merge on, the key of `<<:` is a scalar holding Symbol(<<), not the text "<<".
  for (const merge of map.items.filter((p) => isScalar(p.key) && typeof p.key.value === "symbol")) {
    const sources = isSeq(merge.value) ? merge.value.items : [merge.value];
    for (const source of sources) {
      const target = isAlias(source) ? source.resolve(doc) : source;
      const found = isMap(target) ? pairOf(doc, target, key, depth + 1) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function keyText(key: unknown): string {
  return yaml().isScalar(key) ? String(key.value) : String(key);
}
