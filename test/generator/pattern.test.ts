/**
 * generator/pattern.ts: a pattern written for JavaScript without the `u` flag, respelled so `u`
 * accepts it, must match exactly the strings it matched before. Checked on random patterns built
 * from the spellings published specs use (identity escapes, `-` beside class escapes, lone braces)
 * against random strings over the characters those patterns mention.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readPattern, unicodeSpelling } from "../../generator/pattern.js";

const atom = fc.constantFrom(
  "a",
  "b",
  "Z",
  "0",
  "7",
  ".",
  "\\:",
  "\\-",
  "\\_",
  "\\@",
  '\\"',
  "\\ ",
  "\\/",
  "\\.",
  "\\w",
  "\\d",
  "\\s",
  "\\W",
  "\\a",
  "\\e",
  "\\p",
  "{",
  "}",
  "]",
  "\\x41",
  "\\x4",
  "\\u0041",
  "\\u41",
  "\\k",
  "\\B",
  "\\b",
  "\\]",
);
const classItem = fc.constantFrom(
  "a",
  "z",
  "-",
  ".",
  "_",
  ":",
  "\\w",
  "\\d",
  "\\s",
  "\\-",
  "\\.",
  "\\:",
  "a-z",
  "0-9",
  "\\]",
  "[",
  "{",
  "}",
  "\\b",
  "\\B",
  "\\e",
);
const charClass = fc
  .tuple(fc.boolean(), fc.array(classItem, { minLength: 1, maxLength: 5 }))
  .map(([negated, items]) => `[${negated ? "^" : ""}${items.join("")}]`);
const quantifier = fc.constantFrom("", "", "", "+", "*", "?", "{2}", "{1,3}", "{1,}");
const piece = fc.tuple(fc.oneof(atom, charClass), quantifier).map(([a, q]) => a + q);
const pattern = fc
  .tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([start, pieces, end]) => `${start ? "^" : ""}${pieces.join("")}${end ? "$" : ""}`);
const text = fc.string({ unit: fc.constantFrom(...'abzZ07.-_:@" /]{}[Axkpue\\B\t\b'), maxLength: 12 });

describe("pattern respelling", () => {
  it("the u spelling matches exactly what the pattern matched without u", () => {
    let respelled = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 10, maxLength: 10 }), (p, samples) => {
        const reading = readPattern(p);
        if (reading.kind !== "respelled") return;
        respelled++;
        const before = new RegExp(p);
        const after = new RegExp(reading.pattern, "u");
        for (const s of samples)
          expect(after.test(s), `${p} → ${reading.pattern} on ${JSON.stringify(s)}`).toBe(before.test(s));
      }),
      { numRuns: 800, seed: 20 },
    );
    // The generator must reach the case under test, not only valid or hopeless patterns.
    expect(respelled).toBeGreaterThan(150);
  });

  it("spellings published specs use", () => {
    expect(readPattern("^[\\w-.]+$")).toEqual({ kind: "respelled", pattern: "^[\\w\\-.]+$" });
    expect(readPattern("^\\d+\\:\\d+$")).toEqual({ kind: "respelled", pattern: "^\\d+:\\d+$" });
    expect(readPattern("^[a-z]{2}-[A-Z]{2}$")).toEqual({ kind: "valid" });
    expect(readPattern("^{[a-z]+}$")).toEqual({ kind: "respelled", pattern: "^\\{[a-z]+\\}$" });
    expect(readPattern("(?=a)*b")).toEqual({ kind: "legacy" });
    expect(readPattern("([")).toEqual({ kind: "invalid" });
    // Meaning differs between the modes: no respelling is offered.
    expect(unicodeSpelling("\\1(a)")).toBeUndefined();
    expect(unicodeSpelling("[\\1]")).toBeUndefined();
    expect(unicodeSpelling("\\u{41}")).toBeUndefined();
    expect(unicodeSpelling("\\c")).toBeUndefined();
  });
});
