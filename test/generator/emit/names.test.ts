/** generator/names.ts: one table per module; collisions and unsafe names resolved deterministically. */
import { describe, expect, it } from "vitest";
import { NameTable, toIdentifier } from "../../../generator/names.js";

describe("name table", () => {
  it("numbers a name taken case-insensitively, in claim order", () => {
    const table = new NameTable(["core", "then"]);
    expect(table.claim("getFoo", "GET /foo")).toEqual({ name: "getFoo", changed: undefined });
    expect(table.claim("GetFoo", "GET /Foo")).toEqual({
      name: "GetFoo2",
      changed: '"GetFoo" is already used by GET /foo',
    });
    expect(table.claim("then", "POST /then").name).toBe("then2");
    expect(table.claim("class", "GET /class")).toEqual({ name: "class_", changed: '"class" is a reserved word' });
    expect(table.claim("__proto__", "x").name).toBe("__proto___");
  });

  it("makes an identifier of any text", () => {
    expect(["get-stations", "List pets", "2fa", "", "*/", "a b-c"].map((t) => toIdentifier(t))).toEqual([
      "getStations",
      "listPets",
      "op2fa",
      "operation",
      "operation",
      "aBC",
    ]);
  });
});
