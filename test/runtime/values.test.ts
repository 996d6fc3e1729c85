/** runtime/internal/values.ts: JSON equality and canonical text, on untrusted shapes. */
import { describe, expect, it } from "vitest";
import { canonicalJson, jsonEqual, keyOf, numberOf } from "../../runtime/internal/values.js";

describe("jsonEqual", () => {
  it("compares JSON values by type, order of items and own keys, never by method", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, "1")).toBe(false);
    const hostile = JSON.parse('{"toString": null, "valueOf": 1, "constructor": {"a": 1}}');
    expect(jsonEqual(hostile, JSON.parse('{"valueOf": 1, "constructor": {"a": 1}, "toString": null}'))).toBe(true);
    expect(jsonEqual(hostile, {})).toBe(false);
    // A key another object only inherits is not equal to one it holds.
    expect(jsonEqual(JSON.parse('{"toString": 1}'), { valueOf: 1 })).toBe(false);
  });
});

describe("canonicalJson", () => {
  it("is the same text for equal values and differs otherwise", () => {
    expect(canonicalJson({ b: 1, a: [true, { d: 1, c: "x" }] })).toBe('{"a":[true,{"c":"x","d":1}],"b":1}');
    expect(canonicalJson(JSON.parse('{"__proto__": 1}'))).toBe('{"__proto__":1}');
    expect(canonicalJson("1")).not.toBe(canonicalJson(1));
  });
});

describe("keyOf and numberOf", () => {
  it("read scalars as String and Number do, objects as data without calling their methods", () => {
    expect([keyOf(12), keyOf("12"), keyOf(true), keyOf(null)]).toEqual(["12", "12", "true", "null"]);
    expect(keyOf({ toString: null, a: 1 })).toBe('{"a":1,"toString":null}');
    expect(keyOf({ b: 1, a: 2 })).toBe(keyOf({ a: 2, b: 1 }));
    expect(keyOf([{ valueOf: 1 }])).toBe('[{"valueOf":1}]');
    expect([numberOf("2.5"), numberOf(3), numberOf("")]).toEqual([2.5, 3, 0]);
    expect(numberOf({ toString: null })).toBeNaN();
    expect(numberOf([5])).toBeNaN();
  });
});
