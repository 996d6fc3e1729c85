/**
 * Property-based fuzzing of the spec loader and validator: the mutation kinds and what they must give are in
 * mutations.ts.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../generator/diagnostics.js";
import type { LoadedSpec } from "../../../generator/load.js";
import type { ServiceModel } from "../../../generator/model.js";
import { checkSpec as validateSpec } from "../../../generator/check/index.js";
import { minimalSpec, toYaml } from "../../helpers/spec.js";
import { runs, SEED } from "../arbitraries.js";
import { applyAll, clone, mutationArb, SERVICES } from "./mutations.js";
import { checkDiagnostics, checkModel, inventories, loadAndValidate, loadRealSpecs } from "./outcomes.js";

beforeAll(loadRealSpecs);
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
