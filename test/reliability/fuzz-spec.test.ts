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
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SpecError, type Diagnostic } from "../../generator/diagnostics.js";
import { loadSpecText, type LoadedSpec } from "../../generator/load.js";
import type { ServiceModel } from "../../generator/model.js";
import { packageRoot } from "../../generator/package-root.js";
import { SERVICE_EMITTERS } from "../../generator/pipeline.js";
import { checkSpec as validateSpec } from "../../generator/check/index.js";
import { minimalSpec, toYaml } from "../helpers/spec.js";
import { runs, SEED } from "./arbitraries.js";

type Json = Record<string, unknown>;
type Path = Array<string | number>;

const SERVICES = ["worldnews", "contentsnare", "marketo", "trello"] as const;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const OPERATION_EXTENSIONS = [
  "x-stepforge-paging",
  "x-stepforge-idempotent",
  "x-stepforge-limit-class",
  "x-stepforge-seed",
  "x-stepforge-tool",
];

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) node = (node as Record<string | number, unknown>)?.[key];
  return node;
}
function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path.at(-1)!] = value;
}
function deleteAt(root: unknown, path: Path): void {
  const parent = getAt(root, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
  else delete (parent as Json)[path.at(-1) as string];
}

// ------------------------------------------------------------------ what is in each spec

interface Inventory {
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
function freeForm(path: Path): boolean {
  return path.some(
    (k, i) => k === "x-stepforge-mock" || (k === "mock" && path[0] === "x-stepforge" && i === 1) || k === "schema",
  );
}

function inventory(service: string, spec: LoadedSpec): Inventory {
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

interface Mutation {
  kind: string;
  detail: string;
  apply(doc: Json): void;
  /** Codes of which at least one must be reported; undefined: the spec may be accepted. */
  mustFail?: string[];
}

/** `paths` when it is still an object holding `path` (an earlier mutation may have replaced it). */
function pathsOf(d: Json, path: string): Json {
  if (!isObject(d.paths) || !Object.hasOwn(d.paths, path)) throw new Error("target gone");
  return d.paths;
}

/** A value of another JSON type than `value`. */
function wrongTypeOf(value: unknown, salt: number): unknown {
  if (typeof value === "string") return [salt % 2 ? 42 : true, { fuzz: [1] }, ["x"]][salt % 3];
  if (typeof value === "number" || typeof value === "boolean") return ["fuzz", { fuzz: [1] }, ["x"]][salt % 3];
  if (Array.isArray(value)) return ["fuzz", 7, { fuzz: [1] }][salt % 3];
  if (isObject(value)) return ["fuzz", 7, ["x"], true][salt % 4];
  return { fuzz: [1] };
}

const HOSTILE_REFS = [
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

function mutationArb(inv: Inventory): fc.Arbitrary<Mutation> {
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
function applyAll(mutations: Mutation[], original: Json): { data: Json; applied: Mutation[] } {
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

// ------------------------------------------------------------------ oracles

function lineCount(text: string): number {
  return text.split("\n").length;
}

/** Every diagnostic is complete: code, severity, file, a place inside the text, a message. */
function checkDiagnostics(error: unknown, file: string, text: string): Diagnostic[] {
  if (!(error instanceof SpecError)) {
    throw new Error(
      `expected a SpecError, got a raw ${(error as Error)?.constructor?.name ?? typeof error}: ${String((error as Error)?.stack ?? error).slice(0, 600)}`,
    );
  }
  expect(error.diagnostics.length).toBeGreaterThan(0);
  const lines = lineCount(text);
  for (const d of error.diagnostics) {
    expect(d.code).toMatch(/^SF\d{3}$/);
    expect(["error", "warning"]).toContain(d.severity);
    expect(d.file).toBe(file);
    expect(Number.isInteger(d.line) && d.line >= 1 && d.line <= lines + 1, `line ${d.line} of ${lines}`).toBe(true);
    expect(Number.isInteger(d.column) && d.column >= 1).toBe(true);
    expect(typeof d.message).toBe("string");
    expect(d.message.trim().length).toBeGreaterThan(0);
    if (d.pointer !== undefined) expect(d.pointer.startsWith("/")).toBe(true);
  }
  return error.diagnostics;
}

/** A model that succeeded is exactly the spec's operations, with usable unique ids. */
function checkModel(model: ServiceModel, data: Json): void {
  const expected: string[] = [];
  for (const [path, item] of Object.entries(data.paths as Json)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) if (isObject(item[method])) expected.push(`${method.toUpperCase()} ${path}`);
  }
  expect(model.operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(expected.sort());
  const ids = model.operations.map((o) => o.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(IDENTIFIER);
  expect(Object.keys(model.descriptor.operations).sort()).toEqual([...ids].sort());
  for (const op of model.operations) {
    for (const p of op.parameters) {
      expect(typeof p.name).toBe("string");
      expect(["path", "query", "header", "cookie"]).toContain(p.in);
    }
  }
  if (isObject(data["x-stepforge"])) expect(model.id).toBe(data["x-stepforge"].id);
}

/**
 * load → validate on a text; returns the model or the diagnostics, failing on anything else. A hang
 * fails the test by its timeout; what bounds the work (alias and depth limits) is checked by name.
 */
function loadAndValidate(file: string, text: string): { model?: ServiceModel; diagnostics?: Diagnostic[] } {
  try {
    const spec = loadSpecText(file, text);
    const model = validateSpec(spec);
    checkModel(model, spec.data);
    return { model };
  } catch (error) {
    if (error instanceof Error && error.name === "AssertionError") throw error;
    return { diagnostics: checkDiagnostics(error, file, text) };
  }
}

// ------------------------------------------------------------------ properties

const inventories = new Map<string, Inventory>();
const texts = new Map<string, string>();

beforeAll(() => {
  for (const service of SERVICES) {
    const file = join(packageRoot(), "specs", `${service}.yaml`);
    const text = readFileSync(file, "utf8");
    texts.set(service, text);
    inventories.set(service, inventory(service, loadSpecText(`specs/${service}.yaml`, text)));
  }
});

describe("spec validator on mutated real specs (property-based)", () => {
  it.each(SERVICES.map((s) => [s]))("%s: the unmutated spec validates", (service) => {
    const inv = inventories.get(service)!;
    checkModel(validateSpec(inv.spec), inv.spec.data);
  });

  // Bigger specs take longer per run; the smaller ones get more runs.
  const RUNS: Record<string, number> = { worldnews: 150, contentsnare: 120, marketo: 80, trello: 80 };

  it.each(SERVICES.map((s) => [s]))(
    "%s: every mutation is refused with its codes at a place, or gives a consistent model",
    (service) => {
      const inv = inventories.get(service)!;
      fc.assert(
        fc.property(fc.array(mutationArb(inv), { minLength: 1, maxLength: 3 }), (drawn) => {
          const { data, applied: mutations } = applyAll(drawn, inv.spec.data);
          // The positions of the unmutated text (the nearest existing node): as a re-parse would give them.
          const spec: LoadedSpec = { ...inv.spec, data };
          let model: ServiceModel | undefined;
          let diagnostics: Diagnostic[] | undefined;
          try {
            model = validateSpec(spec);
          } catch (error) {
            diagnostics = checkDiagnostics(error, spec.file, spec.text);
          }
          const must = mutations.filter((m) => m.mustFail);
          if (model) {
            expect(must, `silently accepted: ${must.map((m) => `${m.kind} (${m.detail})`).join("; ")}`).toEqual([]);
            checkModel(model, data);
            return;
          }
          const codes = new Set(diagnostics!.map((d) => d.code));
          // Alone, a mutation must be reported with its own code. Together, one may hide or undo
          // another (an operation skipped for a duplicate id is not checked further; a path item
          // replaced takes an injected $ref with it), so one of their codes must be there.
          const wanted = must.flatMap((m) => m.mustFail!);
          const label = must.map((m) => `${m.kind} (${m.detail})`).join("; ");
          if (wanted.length)
            expect(
              wanted.some((c) => codes.has(c)),
              `${label} should report ${wanted.join("/")}, got ${[...codes].join(", ")}`,
            ).toBe(true);
        }),
        { seed: SEED, numRuns: runs(RUNS[service]!) },
      );
    },
  );

  it("mutated specs written as JSON go through the JSON fast path with the same outcome and real positions", () => {
    const inv = inventories.get("worldnews")!;
    fc.assert(
      fc.property(mutationArb(inv), (m) => {
        const data = clone(inv.spec.data);
        m.apply(data);
        const text = JSON.stringify(data, null, 1);
        const { model, diagnostics } = loadAndValidate("specs/worldnews.json", text);
        if (m.mustFail) {
          expect(model, `${m.kind} (${m.detail}) silently accepted`).toBeUndefined();
          const codes = new Set(diagnostics!.map((d) => d.code));
          if (!codes.has("SF101") && !codes.has("SF103"))
            expect(
              m.mustFail.some((c) => codes.has(c)),
              `${m.kind}: ${[...codes].join(", ")}`,
            ).toBe(true);
        }
      }),
      { seed: SEED, numRuns: runs(25) },
    );
  });
});

describe("regressions the fuzzing found", () => {
  const refused = (text: string) => loadAndValidate("spec.yaml", text).diagnostics?.map((d) => d.code) ?? [];
  const edited = (edit: (d: any) => void) => {
    const doc = minimalSpec() as any;
    edit(doc);
    return toYaml(doc);
  };

  it("a YAML alias bomb is SF002, not a raw ReferenceError from the yaml library", () => {
    let text = "x-bomb0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (let i = 1; i < 5; i++)
      text += `x-bomb${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    expect(refused(text + toYaml(minimalSpec()))).toEqual(["SF002"]);
  });

  it("a $ref with a malformed %-escape is SF107, not a raw URIError", () => {
    expect(refused(edited((d) => (d.paths["/widgets"].get.parameters[0] = { $ref: "#/components/%zz" })))).toContain(
      "SF107",
    );
  });

  it("a $ref naming an inherited member (#/paths/toString, #/components/constructor) is SF107, not accepted", () => {
    expect(refused(edited((d) => (d.paths["/widgets"].get.parameters[0] = { $ref: "#/paths/toString" })))).toContain(
      "SF107",
    );
    expect(
      refused(edited((d) => (d.components.schemas.Widget.properties.id = { $ref: "#/components/constructor" }))),
    ).toContain("SF107");
  });

  it("an operationId that is not a string is SF111, not silently replaced by a derived one", () => {
    expect(refused(edited((d) => (d.paths["/widgets"].post.operationId = 42)))).toEqual(["SF111"]);
  });

  it("a path item or operation that is not an object is SF116, not silently skipped", () => {
    expect(refused(edited((d) => (d.paths["/gadgets"] = "todo")))).toEqual(["SF116"]);
    expect(refused(edited((d) => (d.paths["/widgets"].post = ["x"])))).toEqual(["SF116"]);
  });

  it("a malformed parameter is SF115, not dropped or sent in: body", () => {
    expect(
      refused(edited((d) => d.paths["/widgets/{id}"].get.parameters.push({ name: "expand", in: "body" }))),
    ).toEqual(["SF115"]);
    expect(refused(edited((d) => d.paths["/widgets/{id}"].get.parameters.push({ in: "query" })))).toEqual(["SF115"]);
    expect(refused(edited((d) => (d.paths["/widgets/{id}"].get.parameters = { id: { in: "path" } })))).toContain(
      "SF115",
    );
  });

  it("a __proto__ key in an x-stepforge map is SF120, not dropped by zod without a word", () => {
    const text = toYaml(minimalSpec()).replace(
      /^( +)statuses:\n/m,
      (all, indent: string) => `${all}${indent}  __proto__: {kind: auth}\n`,
    );
    expect(text).toContain("__proto__");
    expect(refused(text)).toEqual(["SF120"]);
  });
});

describe("spec loader on broken text (property-based)", () => {
  it("a spec cut at any offset is refused with diagnostics, or (cut at a harmless place) consistent", () => {
    fc.assert(
      fc.property(fc.constantFrom(...SERVICES), fc.double({ min: 0, max: 1, noNaN: true }), (service, at) => {
        const text = texts.get(service)!;
        loadAndValidate(`specs/${service}.yaml`, text.slice(0, Math.floor(at * text.length)));
      }),
      { seed: SEED, numRuns: runs(50) },
    );
  });

  const EDITS = [
    ":",
    ": ",
    "-",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "\t",
    "  ",
    "\n",
    "\n  ",
    "#",
    "&a ",
    "*a",
    "*nope",
    "!!binary ",
    "!!str ",
    "!foo ",
    "? ",
    "|",
    ">",
    "'",
    '"',
    "%",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "<<: *a\n",
    "\u0000",
    "\uFEFF",
    "\u2028",
    "~",
    "null",
    "@",
    "`",
    ",",
    "\\",
    "0x1F",
    ".inf",
    "__proto__: ",
    "$ref: '#/x'",
  ];

  const edit = fc.tuple(
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.oneof(fc.constantFrom(...EDITS), fc.string({ maxLength: 4 }), fc.string({ unit: "binary", maxLength: 3 })),
    fc.integer({ min: 0, max: 12 }),
  );
  function edited(text: string, edits: Array<[number, string, number]>): string {
    for (const [at, insert, remove] of edits) {
      const i = Math.floor(at * text.length);
      text = text.slice(0, i) + insert + text.slice(i + remove);
    }
    return text;
  }

  it("random edits of a real spec's text (insert, replace, delete) never give a raw error", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("worldnews", "contentsnare"),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        (service, edits) => {
          loadAndValidate(`specs/${service}.yaml`, edited(texts.get(service)!, edits));
        },
      ),
      // A broken YAML document of this size can take the parser 100+ ms to recover from: few runs.
      { seed: SEED, numRuns: runs(15) },
    );
  });

  it("random edits of a small complete spec never give a raw error", () => {
    const small = toYaml(minimalSpec());
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
        loadAndValidate("spec.yaml", edited(small, edits));
      }),
      { seed: SEED, numRuns: runs(200) },
    );
  });

  it("random bytes and strings are refused with diagnostics", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("latin1")),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.constantFrom(
            "",
            "{",
            "{}",
            "[]",
            "null",
            "openapi: 3.1.0",
            "openapi: 3.1.0\npaths: {}",
            "openapi: 3.1.0\ninfo: {title: X}\npaths: {/a: {get: {}}}",
          ),
        ),
        (text) => {
          const { model } = loadAndValidate("spec.yaml", text);
          // Nothing this small is a complete service (no x-stepforge, no usable title): always refused.
          expect(model).toBeUndefined();
        },
      ),
      { seed: SEED, numRuns: runs(400) },
    );
  });

  it("YAML resource attacks (alias bombs, deep nesting, odd tags) are refused or accepted, never a raw error or a hang", () => {
    const head = texts.get("worldnews")!;
    const bomb = (n: number) => {
      let out = "x-bomb0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
      for (let i = 1; i < n; i++)
        out += `x-bomb${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(", ")}]\n`;
      return out;
    };
    // What keeps a bomb cheap: past a few levels of aliases (9^4 nodes) the loader refuses to expand.
    for (const n of [2, 3]) expect(loadAndValidate("specs/worldnews.yaml", `${head}\n${bomb(n)}`).model).toBeDefined();
    for (const n of [4, 12]) {
      const { diagnostics } = loadAndValidate("specs/worldnews.yaml", `${head}\n${bomb(n)}`);
      expect(diagnostics?.map((d) => `${d.code} ${d.message}`)).toEqual([
        expect.stringMatching(/^SF002 .*Excessive alias count/),
      ]);
    }
    const attack = fc.oneof(
      fc.integer({ min: 2, max: 12 }).map(bomb),
      fc.integer({ min: 100, max: 5_000 }).map((n) => `x-deep: ${"[".repeat(n)}${"]".repeat(n)}\n`),
      fc.integer({ min: 100, max: 2_000 }).map((n) => `x-deep: ${"{a: ".repeat(n)}1${"}".repeat(n)}\n`),
      fc.constantFrom(
        "x-bin: !!binary aGVsbG8=\n",
        "x-ts: !!timestamp 2001-12-14\n",
        "x-set: !!set {a, b}\n",
        "x-tag: !custom value\n",
        "x-merge: {<<: {a: 1}}\n",
        "? [complex, key]\n: value\n",
        "x-big: 1e999999\n",
        "x-int: 0b1010\n",
      ),
    );
    fc.assert(
      fc.property(attack, fc.boolean(), (snippet, first) => {
        loadAndValidate("specs/worldnews.yaml", first ? `${snippet}${head}` : `${head}\n${snippet}`);
      }),
      { seed: SEED, numRuns: runs(20) },
    );
  });
});

describe("spec loader on deeply nested JSON (property-based)", () => {
  it("nesting at any depth is accepted (shallow) or SF002, never a raw RangeError from a recursive walk", () => {
    const base = JSON.stringify(minimalSpec());
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 100_000 })),
        fc.boolean(),
        (depth, arrays) => {
          const deep = arrays
            ? `${"[".repeat(depth)}${"]".repeat(depth)}`
            : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
          const { model, diagnostics } = loadAndValidate("spec.json", base.replace(/\}$/, `,"x-deep":${deep}}`));
          if (depth > 300) expect(diagnostics?.map((d) => d.code)).toEqual(["SF002"]);
          else if (depth < 200) expect(model).toBeDefined();
        },
      ),
      { seed: SEED, numRuns: runs(30), examples: [[10_000, true]] },
    );
  });
});

describe("pipeline on specs with mutated schemas (property-based, in memory)", () => {
  const SCHEMA_EDITS = [
    "type → strin",
    "type → 42",
    "type → [string, 7]",
    "delete items",
    "items → string",
    "required → string",
    "properties → list",
    "enum → string",
    "enum → []",
    "nullable → yes",
    "allOf → object",
    "anyOf → []",
    "$ref sibling",
    "pattern → 7",
    "pattern → (",
    "format → 5",
    "maxLength → -1",
    "additionalProperties → string",
    "description → 5",
    "default → {}",
    "deep nesting",
  ];

  function editSchema(schema: Json, how: string): void {
    const target = isObject(schema.properties)
      ? ((Object.values(schema.properties).find(isObject) as Json | undefined) ?? schema)
      : schema;
    switch (how) {
      case "type → strin":
        target.type = "strin";
        break;
      case "type → 42":
        target.type = 42;
        break;
      case "type → [string, 7]":
        target.type = ["string", 7];
        break;
      case "delete items":
        target.type = "array";
        delete target.items;
        break;
      case "items → string":
        target.type = "array";
        target.items = "string";
        break;
      case "required → string":
        schema.required = "id";
        break;
      case "properties → list":
        schema.properties = ["id"];
        break;
      case "enum → string":
        target.enum = "a,b";
        break;
      case "enum → []":
        target.enum = [];
        break;
      case "nullable → yes":
        target.nullable = "yes";
        break;
      case "allOf → object":
        target.allOf = { type: "string" };
        break;
      case "anyOf → []":
        target.anyOf = [];
        break;
      case "$ref sibling":
        target.$ref = "#/components/schemas";
        break;
      case "pattern → 7":
        target.pattern = 7;
        break;
      case "pattern → (":
        target.type = "string";
        target.pattern = "(";
        break;
      case "format → 5":
        target.format = 5;
        break;
      case "maxLength → -1":
        target.maxLength = -1;
        break;
      case "additionalProperties → string":
        schema.additionalProperties = "yes";
        break;
      case "description → 5":
        target.description = 5;
        break;
      case "default → {}":
        target.default = { deep: { er: [1] } };
        break;
      case "deep nesting": {
        let node: Json = { type: "string" };
        for (let i = 0; i < 200; i++) node = { type: "array", items: node };
        target.items = node;
        target.type = "array";
        break;
      }
    }
  }

  it.each([["worldnews"], ["contentsnare"]])("%s: emitting never throws anything but a SpecError", async (service) => {
    const inv = inventories.get(service)!;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inv.schemas), fc.constantFrom(...SCHEMA_EDITS), async (schemaPath, how) => {
        const data = clone(inv.spec.data);
        editSchema(getAt(data, schemaPath) as Json, how);
        let model: ServiceModel;
        try {
          model = validateSpec({ ...inv.spec, data });
        } catch (error) {
          checkDiagnostics(error, inv.spec.file, inv.spec.text);
          return;
        }
        const context = { runtimeImport: "../../runtime/index.js", specLabel: `specs/${service}.yaml` };
        try {
          for (const emit of SERVICE_EMITTERS) {
            const files = await emit(model, context);
            for (const f of files) {
              expect(typeof f.path).toBe("string");
              expect(typeof f.content).toBe("string");
            }
          }
        } catch (error) {
          if (error instanceof Error && error.name === "AssertionError") throw error;
          checkDiagnostics(error, inv.spec.file, inv.spec.text);
        }
      }),
      { seed: SEED, numRuns: runs(12) },
    );
  });
});
