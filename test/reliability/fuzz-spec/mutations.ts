/**
 * Property-based fuzzing of the spec loader and validator (generator/load.ts → generator/check/,
 * what `stepforge generate --spec` runs), starting from the four real specs.
 *
 * Each mutation kind says whether the mutated spec MUST be refused, and with which codes:
 *
 *   delete/retype openapi, info.title, paths → SF101/SF102/SF103 · retype any value or add an
 *   unknown key inside an x-stepforge extension → SF120 (a derivable key deleted: derived) · misspelled
 *   extension → SF108/SF109 · unknown/external/malformed/inherited `$ref` → SF106/SF107 · delete a
 *   referenced component → SF107 · duplicate / unusable / non-string operationId → SF112/SF111 ·
 *   path without "/" → SF110 · renamed path template variable → SF113/SF114 · malformed parameter
 *   → SF115 · path item or operation that is not an object → SF116.
 *
 * Whatever happens, the outcome is either a model consistent with the data (its operations are
 * exactly the spec's, ids unique and usable) or a SpecError whose diagnostics all carry an SFnnn
 * code, the file, a line and column inside the text and a message — never a raw TypeError,
 * RangeError, URIError or ReferenceError. Text-level mutations (truncation at random offsets,
 * random edits, random bytes, YAML alias bombs and deep nesting) go through the real loader; a
 * pipeline-level property runs every emitter in memory on specs whose schemas were mutated.
 */
import fc from "fast-check";
import type { LoadedSpec } from "../../../generator/load.js";

export type Json = Record<string, unknown>;
export type Path = Array<string | number>;

export const SERVICES = ["worldnews", "contentsnare", "marketo", "trello"] as const;
export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const OPERATION_EXTENSIONS = [
  "x-stepforge-paging",
  "x-stepforge-idempotent",
  "x-stepforge-limit-class",
  "x-stepforge-seed",
  "x-stepforge-tool",
];

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const clone = <T>(v: T): T => structuredClone(v);

export function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) node = (node as Record<string | number, unknown>)?.[key];
  return node;
}
export function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path.at(-1)!] = value;
}
export function deleteAt(root: unknown, path: Path): void {
  const parent = getAt(root, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
  else delete (parent as Json)[path.at(-1) as string];
}

// ------------------------------------------------------------------ what is in each spec

export interface Inventory {
  service: string;
  spec: LoadedSpec;
  /** Leaves and containers inside x-stepforge extensions (free-form template/schema subtrees left out). */
  extNodes: Path[];
  /** Objects inside x-stepforge extensions that are strict objects or maps of objects (unknown key → error). */
  extObjects: Path[];
  /** Object nodes under paths/components outside examples, where a $ref may be injected. */
  refSites: Path[];
  /** Local refs in use (outside examples), as JSON pointers "#/components/...". */
  usedRefs: string[];
  operations: Array<{ path: string; method: string; operationId: string | undefined }>;
  /** Parameter sites: [..."parameters", i] of inline parameter objects. */
  parameters: Path[];
  /** Path keys with a {template} variable. */
  templated: string[];
  /** Schemas (under components.schemas) to mutate for the pipeline property. */
  schemas: Path[];
}

/** Subtrees whose values are free-form JSON by design (mock templates, JSON Schemas of legacy fields). */
export function freeForm(path: Path): boolean {
  return path.some(
    (k, i) => k === "x-stepforge-mock" || (k === "mock" && path[0] === "x-stepforge" && i === 1) || k === "schema",
  );
}

export function inventory(service: string, spec: LoadedSpec): Inventory {
  const inv: Inventory = {
    service,
    spec,
    extNodes: [],
    extObjects: [],
    refSites: [],
    usedRefs: [],
    operations: [],
    parameters: [],
    templated: [],
    schemas: [],
  };
  const walk = (node: unknown, path: Path, ext: boolean, example: boolean) => {
    const key = path.at(-1);
    const inExample = example || key === "example" || key === "examples";
    const isExt =
      ext ||
      (typeof key === "string" &&
        (key === "x-stepforge" || key === "x-stepforge-triggers" || OPERATION_EXTENSIONS.includes(key)));
    if (isExt && path.length > 1 && !freeForm(path)) {
      inv.extNodes.push(path);
      if (isObject(node)) inv.extObjects.push(path);
    }
    if (!isExt && !inExample && isObject(node) && (path[0] === "paths" || path[0] === "components") && path.length > 1)
      inv.refSites.push(path);
    if (!inExample && isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/components/"))
      inv.usedRefs.push(node.$ref);
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, [...path, i], isExt, inExample));
    else if (isObject(node)) for (const [k, child] of Object.entries(node)) walk(child, [...path, k], isExt, inExample);
  };
  walk(spec.data, [], false, false);
  for (const [path, item] of Object.entries(spec.data.paths as Json)) {
    if (/\{[^}]+\}/.test(path)) inv.templated.push(path);
    if (!isObject(item)) continue;
    (Array.isArray(item.parameters) ? item.parameters : []).forEach(
      (p, i) => isObject(p) && !p.$ref && inv.parameters.push(["paths", path, "parameters", i]),
    );
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      inv.operations.push({
        path,
        method,
        operationId: typeof op.operationId === "string" ? op.operationId : undefined,
      });
      (Array.isArray(op.parameters) ? op.parameters : []).forEach(
        (p, i) => isObject(p) && !p.$ref && inv.parameters.push(["paths", path, method, "parameters", i]),
      );
    }
  }
  const schemas = (spec.data.components as Json | undefined)?.schemas;
  if (isObject(schemas)) for (const name of Object.keys(schemas)) inv.schemas.push(["components", "schemas", name]);
  inv.usedRefs = [...new Set(inv.usedRefs)];
  return inv;
}

// ------------------------------------------------------------------ mutations

export interface Mutation {
  kind: string;
  detail: string;
  apply(doc: Json): void;
  /** Codes of which at least one must be reported; undefined: the spec may be accepted. */
  mustFail?: string[];
}

/** `paths` when it is still an object holding `path` (an earlier mutation may have replaced it). */
export function pathsOf(d: Json, path: string): Json {
  if (!isObject(d.paths) || !Object.hasOwn(d.paths, path)) throw new Error("target gone");
  return d.paths;
}

/** A value of another JSON type than `value`. */
export function wrongTypeOf(value: unknown, salt: number): unknown {
  if (typeof value === "string") return [salt % 2 ? 42 : true, { fuzz: [1] }, ["x"]][salt % 3];
  if (typeof value === "number" || typeof value === "boolean") return ["fuzz", { fuzz: [1] }, ["x"]][salt % 3];
  if (Array.isArray(value)) return ["fuzz", 7, { fuzz: [1] }][salt % 3];
  if (isObject(value)) return ["fuzz", 7, ["x"], true][salt % 4];
  return { fuzz: [1] };
}

export const HOSTILE_REFS = [
  "#/components/schemas/DoesNotExist",
  "#/components/%zz",
  "#/components/schemas/%E0%A4%A",
  "#/constructor",
  "#/paths/toString",
  "#/components/__proto__",
  "#/components/schemas/hasOwnProperty",
  "#/",
  "#",
  "other.yaml#/components/schemas/X",
  "https://evil.example/spec.yaml#/x",
  "#/components/schemas/~2",
  "#/info/title/x",
  "#/paths/~1nope/get",
];

export function mutationArb(inv: Inventory): fc.Arbitrary<Mutation> {
  const { extNodes, extObjects, refSites, usedRefs, operations, parameters, templated } = inv;
  const ops = operations;
  const named = ops.filter((o) => o.operationId);
  const arbs: Array<fc.Arbitrary<Mutation>> = [];

  arbs.push(
    fc
      .constantFrom<[Path, string]>(
        [["openapi"], "SF101"],
        [["info", "title"], "SF102"],
        [["info"], "SF102"],
        [["paths"], "SF103"],
      )
      .map(([path, code]) => ({
        kind: "delete required root key",
        detail: path.join("."),
        apply: (d) => deleteAt(d, path),
        mustFail: [code],
      })),
    fc
      .tuple(
        fc.constantFrom<[Path, string]>([["openapi"], "SF101"], [["info", "title"], "SF102"], [["paths"], "SF103"]),
        fc.nat(),
      )
      .map(([[path, code], salt]) => ({
        kind: "retype root key",
        detail: path.join("."),
        apply: (d) =>
          setAt(
            d,
            path,
            path[0] === "openapi"
              ? ["3.1", 3.1, { v: "3.1.0" }, "2.0", "3.2.0", "3.1.0 "][salt % 6]
              : path[0] === "paths"
                ? ["fuzz", 7, ["/x"], true, null][salt % 5]
                : [42, { fuzz: [1] }, ["x"], true][salt % 4],
          ),
        mustFail: [code],
      })),
    // Keys a plain spec derives may be left out (derived as for a plain spec): the outcome is a
    // consistent model or named diagnostics, like any other.
    fc.constantFrom("id", "title", "connection", "auth", "errors").map((key) => ({
      kind: "delete a derivable x-stepforge key",
      detail: key,
      apply: (d) => deleteAt(d, ["x-stepforge", key]),
    })),
    fc.tuple(fc.constantFrom(...extNodes), fc.nat()).map(([path, salt]) => ({
      kind: "retype an x-stepforge value",
      detail: path.join("."),
      apply: (d) => setAt(d, path, wrongTypeOf(getAt(d, path), salt)),
      mustFail: ["SF120"],
    })),
    fc
      .tuple(
        fc.constantFrom(...extObjects),
        fc.constantFrom("fuzzUnknownKey", "windowSecond", "__proto__", "constructor", "toString"),
      )
      .map(([path, key]) => ({
        kind: "unknown key in an x-stepforge object",
        detail: `${path.join(".")}.${key}`,
        apply: (d) =>
          Object.defineProperty(getAt(d, path) as Json, key, {
            value: { fuzz: [1] },
            enumerable: true,
            writable: true,
            configurable: true,
          }),
        mustFail: ["SF120"],
      })),
    fc.constantFrom("x-stepforge-fuzz", "x-stepforge-trigger", "x-stepforgetools").map((key) => ({
      kind: "unknown root extension",
      detail: key,
      apply: (d) => void (d[key] = { id: "x" }),
      mustFail: ["SF108"],
    })),
    fc
      .tuple(
        fc.constantFrom(...ops),
        fc.constantFrom("x-stepforge-tools", "x-stepforge-pagin", "x-stepforge-fuzz", "x-stepforge-limitclass"),
      )
      .map(([op, key]) => ({
        kind: "misspelled operation extension",
        detail: `${op.method} ${op.path} ${key}`,
        apply: (d) => void ((getAt(d, ["paths", op.path, op.method]) as Json)[key] = true),
        mustFail: ["SF109"],
      })),
    fc.tuple(fc.constantFrom(...refSites), fc.constantFrom(...HOSTILE_REFS), fc.nat()).map(([path, ref, salt]) => ({
      kind: "inject a broken $ref",
      detail: `${path.join(".")} → ${ref}`,
      apply: (d) =>
        void ((getAt(d, path) as Json).$ref = ref === "#/components/schemas/DoesNotExist" ? `${ref}${salt}` : ref),
      mustFail: ["SF106", "SF107"],
    })),
  );
  if (usedRefs.length) {
    arbs.push(
      fc.constantFrom(...usedRefs).map((ref) => ({
        kind: "delete a referenced component",
        detail: ref,
        apply: (d) =>
          deleteAt(
            d,
            ref
              .slice(2)
              .split("/")
              .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~")),
          ),
        mustFail: ["SF107"],
      })),
    );
  }
  if (named.length >= 2) {
    arbs.push(
      fc
        .tuple(fc.constantFrom(...named), fc.constantFrom(...named), fc.boolean())
        .filter(([a, b]) => a !== b)
        .map(([a, b, kebab]) => ({
          kind: "duplicate operationId",
          detail: `${b.method} ${b.path} takes ${a.operationId}`,
          // "get-card" normalises to "getCard": a duplicate too.
          apply: (d) =>
            void ((getAt(d, ["paths", b.path, b.method]) as Json).operationId = kebab
              ? a.operationId!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
              : a.operationId),
          mustFail: ["SF112"],
        })),
    );
  }
  arbs.push(
    fc
      .tuple(
        fc.constantFrom(...ops),
        fc.constantFrom<unknown>("constructor", "core", "descriptor", "", "---", "   ", 42, true, ["getX"], {
          id: "getX",
        }),
      )
      .map(([op, id]) => ({
        kind: "unusable operationId",
        detail: `${op.method} ${op.path} = ${JSON.stringify(id)}`,
        apply: (d) => void ((getAt(d, ["paths", op.path, op.method]) as Json).operationId = id),
        mustFail: ["SF111"],
      })),
    fc.constantFrom(...Object.keys(inv.spec.data.paths as Json)).map((path) => ({
      kind: "path without leading slash",
      detail: path,
      apply: (d) => {
        const paths = pathsOf(d, path);
        const renamed: Json = {};
        for (const [k, v] of Object.entries(paths)) renamed[k === path ? path.slice(1) : k] = v;
        d.paths = renamed;
      },
      mustFail: ["SF110"],
    })),
    fc
      .tuple(
        fc.constantFrom(...Object.keys(inv.spec.data.paths as Json)),
        fc.constantFrom<unknown>("x", 42, [], null, true),
      )
      .map(([path, value]) => ({
        kind: "path item not an object",
        detail: `${path} = ${JSON.stringify(value)}`,
        apply: (d) => void (pathsOf(d, path)[path] = value),
        mustFail: ["SF116"],
      })),
    fc.tuple(fc.constantFrom(...ops), fc.constantFrom<unknown>("x", 42, [], null, false)).map(([op, value]) => ({
      kind: "operation not an object",
      detail: `${op.method} ${op.path} = ${JSON.stringify(value)}`,
      apply: (d) => void ((getAt(d, ["paths", op.path]) as Json)[op.method] = value),
      mustFail: ["SF116"],
    })),
  );
  if (templated.length) {
    arbs.push(
      fc.constantFrom(...templated).map((path) => ({
        kind: "rename a path template variable",
        detail: path,
        apply: (d) => {
          const paths = pathsOf(d, path);
          const renamed: Json = {};
          for (const [k, v] of Object.entries(paths))
            renamed[k === path ? path.replace(/\{([^}]+)\}/, "{$1Fuzz}") : k] = v;
          d.paths = renamed;
        },
        mustFail: ["SF113", "SF114"],
      })),
    );
  }
  if (parameters.length) {
    arbs.push(
      fc
        .tuple(
          fc.constantFrom(...parameters),
          fc.constantFrom(
            "delete name",
            "delete in",
            "in: body",
            "in: 42",
            "name: 7",
            "not an object",
            "list is an object",
          ),
        )
        .map(([path, how]) => ({
          kind: "malformed parameter",
          detail: `${path.join(".")} ${how}`,
          apply: (d) => {
            const p = getAt(d, path) as Json;
            if (how === "delete name") delete p.name;
            else if (how === "delete in") delete p.in;
            else if (how === "in: body") p.in = "body";
            else if (how === "in: 42") p.in = 42;
            else if (how === "name: 7") p.name = 7;
            else if (how === "not an object") setAt(d, path, "limit");
            else setAt(d, path.slice(0, -1), { [String(p.name)]: p });
          },
          mustFail: ["SF115"],
        })),
    );
  }
  return fc.oneof(...arbs);
}

/** Applies the mutations in order to a copy; one whose target an earlier one removed is left out. */
export function applyAll(mutations: Mutation[], original: Json): { data: Json; applied: Mutation[] } {
  let data = clone(original);
  const applied: Mutation[] = [];
  for (const m of mutations) {
    const trial = clone(data);
    try {
      m.apply(trial);
    } catch {
      continue; // the target is gone (an earlier mutation replaced its parent)
    }
    data = trial;
    applied.push(m);
  }
  return { data, applied };
}
