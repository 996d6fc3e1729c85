/**
 * One mistake, one diagnostic: a YAML syntax error is reported once, at its line, with a hint; a
 * `$ref` typo is one SF107 naming the nearest existing target. In-process (load and check); the
 * lint side (nothing from Spectral follows them) is in agreement.test.ts.
 */
import { describe, expect, it } from "vitest";
import { refusedFor } from "../helpers/refused.js";
import { nearestRef } from "../../generator/check/suggest.js";
import { base, edit, NAMED, withExtension } from "./fixtures.js";

describe("a YAML syntax error is one diagnostic", () => {
  it("one mis-indented line: one SF002 at that line, naming the two lines whose columns disagree", () => {
    const found = refusedFor(
      "bookshelf.yaml",
      edit(base(), "          description: A book\n", "         description: A book\n"),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ code: "SF002", line: 67, column: 10 });
    expect(found[0]!.message).toBe(
      "not valid YAML: Nested mappings are not allowed in compact mappings; line 68 starts at column 11, " +
        "deeper than line 67 (column 10), so it reads as part of that line's value; keys of one mapping start " +
        "in the same column, and a nested mapping goes under a key with nothing after its colon",
    );
  });

  it("a key out of line with its siblings, a tab, an unclosed quote or list: one diagnostic each, with a hint", () => {
    const cases: Array<[string, string]> = [
      ["a:\n  b: 1\n c: 2\n", "3:2 line 3 starts at column 2, line 2 at column 3"],
      ["a:\n\tb: 1\n", "2:1 YAML indents with spaces only"],
      ['a:\n  b: "x\n  c: 2\n', "4:1 a quote, bracket or brace opened before this point is not closed"],
      ["a:\n  b: [1, 2\n  c: 2\n", "3:3 a list or mapping written inline"],
      ["a:\n  b: x: y\n", '2:3 a value holds ": "; quote it'],
    ];
    for (const [text, expected] of cases) {
      const found = refusedFor("s.yaml", text);
      expect(found, text).toHaveLength(1);
      const [place, hint] = [expected.slice(0, expected.indexOf(" ")), expected.slice(expected.indexOf(" ") + 1)];
      expect(`${found[0]!.line}:${found[0]!.column}`, text).toBe(place);
      expect(found[0]!.message, text).toContain(hint);
    }
  });

  it("keys written twice are independent mistakes: each one is reported, by name", () => {
    const found = refusedFor("s.yaml", "openapi: 3.1.0\nopenapi: 3.0.0\ninfo:\n  title: A\n  title: B\n");
    expect(found.map((d) => `${d.line} ${d.message}`)).toEqual([
      '2 not valid YAML: the key "openapi" is written twice in one mapping; keep one ' +
        "(a second one would silently replace the first)",
      '5 not valid YAML: the key "title" is written twice in one mapping; keep one ' +
        "(a second one would silently replace the first)",
    ]);
  });
});

describe("a $ref typo is one diagnostic with the nearest target", () => {
  it("SF107 names the component it most likely meant, and records it", () => {
    const text = withExtension(
      edit(base(), '$ref: "#/components/schemas/NewBook"', '$ref: "#/components/schemas/NewBok"'),
      NAMED,
    );
    const found = refusedFor("bookshelf.yaml", text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      code: "SF107",
      message: '"#/components/schemas/NewBok" points at nothing; did you mean "#/components/schemas/NewBook"?',
      pointer: "/paths/~1books/post/requestBody/content/application~1json/schema/$ref",
      related: "/components/schemas/NewBook",
    });
  });

  it("finds the target through a wrong section name too, and proposes nothing far away", () => {
    const doc = { components: { schemas: { NewBook: {}, Book: {} }, responses: { Unauthorized: {} } } };
    expect(nearestRef(doc, "#/components/schema/NewBok")).toBe("#/components/schemas/NewBook");
    expect(nearestRef(doc, "#/components/responses/unauthorized")).toBe("#/components/responses/Unauthorized");
    expect(nearestRef(doc, "#/components/schemas/Shelf")).toBeUndefined();
  });
});
