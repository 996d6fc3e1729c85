/**
 * Property-based fuzzing of the spec loader and validator: the mutation kinds and what they must give are in
 * mutations.ts.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { minimalSpec, toYaml } from "../../helpers/spec.js";
import { runs, SEED } from "../arbitraries.js";
import { SERVICES } from "./mutations.js";
import { loadAndValidate, loadRealSpecs, texts } from "./outcomes.js";

beforeAll(loadRealSpecs);
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

  it(
    "YAML resource attacks (alias bombs, deep nesting, odd tags) are refused or accepted, " +
      "never a raw error or a hang",
    () => {
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
      for (const n of [2, 3])
        expect(loadAndValidate("specs/worldnews.yaml", `${head}\n${bomb(n)}`).model).toBeDefined();
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
    },
  );
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
