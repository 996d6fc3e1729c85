/** generator/print.ts: the one escape point, and layout for a reader. */
import { describe, expect, it } from "vitest";
import {
  arr,
  call,
  chain,
  constStatement,
  ident,
  jsdoc,
  jsonData,
  key,
  lineComment,
  literal,
  obj,
  print,
  str,
} from "../../../generator/print.js";

describe("escaping", () => {
  it("a comment cannot be closed from inside, whatever line terminator the text uses", () => {
    expect(jsdoc("a */ b")).toMatchInlineSnapshot(`"/** a *\\/ b */"`);
    expect(jsdoc("one\r\ntwo\u2028three\u2029four\rfive")).toMatchInlineSnapshot(`
      "/**
       * one
       * two
       * three
       * four
       * five
       */"
    `);
    expect(lineComment("file\nname */ \u2028 x")).toMatchInlineSnapshot(`"// file name *\\/ x"`);
  });

  it("strings are JSON strings with the line and paragraph separators escaped", () => {
    expect(str('a"b`c${d}\u2028')).toMatchInlineSnapshot(`""a\\"b\`c\${d}\\u2028""`);
  });

  it("JSON data survives the template literal it is printed into, whatever its strings hold", () => {
    const hostile = [
      "`",
      "${process.exit(7)}",
      "\\${x}",
      "\\",
      "\\`",
      "a\r\nb",
      "\u2028\u2029",
      "\ud800",
      "*/",
      "</script>",
      "\u0000",
    ];
    const value = {
      [hostile[0]!]: hostile,
      __proto__x: { "${k}": "`" },
      nested: [{ a: hostile.join("") }],
      n: [1, -0.5, null, true],
    };
    const code = jsonData(value, "  ");
    // Evaluated as the generated module would evaluate it: the same value back, nothing run.
    expect(Function(`return ${code}`)()).toEqual(value);
    expect(jsonData({ ["__proto__"]: 1 })).toContain('"__proto__": 1');
    expect(Object.hasOwn(Function(`return ${jsonData(JSON.parse('{"__proto__": 1}'))}`)() as object, "__proto__")).toBe(
      true,
    );
  });

  it("JSON data is laid out like code: a structure on one line when it fits, one entry per line otherwise", () => {
    const long = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`field${i}`, { type: "string", description: `field number ${i}` }]),
    );
    expect(jsonData({ small: { a: [1, 2] }, long })).toMatchInlineSnapshot(`
      "JSON.parse(\`
        {
          "small": { "a": [1, 2] },
          "long": {
            "field0": { "type": "string", "description": "field number 0" },
            "field1": { "type": "string", "description": "field number 1" },
            "field2": { "type": "string", "description": "field number 2" },
            "field3": { "type": "string", "description": "field number 3" },
            "field4": { "type": "string", "description": "field number 4" },
            "field5": { "type": "string", "description": "field number 5" },
            "field6": { "type": "string", "description": "field number 6" },
            "field7": { "type": "string", "description": "field number 7" }
          }
        }
      \`)"
    `);
  });

  it("keys are bare only when they are identifiers; __proto__ is computed so it stays an own key", () => {
    expect([
      key("id"),
      key("idList"),
      key("source-countries"),
      key("1a"),
      key("__proto__"),
      key("constructor"),
    ]).toEqual(["id", "idList", '"source-countries"', '"1a"', '["__proto__"]', "constructor"]);
    const value = Function(`return { ${key("__proto__")}: 1 }`)() as Record<string, unknown>;
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
  });

  it("identifiers must come from a name table", () => {
    expect(ident("getCard")).toBe("getCard");
    expect(() => ident("class")).toThrow(/not a usable identifier/);
    expect(() => ident("a-b")).toThrow(/not a usable identifier/);
  });
});

describe("layout", () => {
  it("keeps what fits on one line and breaks the outermost structure otherwise", () => {
    expect(
      print(
        obj([
          ["a", "1"],
          ["b", literal(["x", "y"])],
        ]),
      ),
    ).toMatchInlineSnapshot(`"{ a: 1, b: ["x", "y"] }"`);
    const long = obj(
      Array.from(
        { length: 12 },
        (_, i) => [`field${i}`, chain("z.string()", "optional")] as [string, string | ReturnType<typeof chain>],
      ),
    );
    // too long for one line: one field a line, each indented once inside the call's braces
    const fieldLines = Array.from({ length: 12 }, (_, i) => `  field${i}: z.string().optional(),`);
    expect(constStatement("Shape", call("z.strictObject", long), { exported: true })).toBe(
      ["export const Shape = z.strictObject({", ...fieldLines, "});"].join("\n"),
    );
    expect(print(arr([]))).toBe("[]");
  });
});
