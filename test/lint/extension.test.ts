/**
 * x-stepforge as an author meets it: every problem in one run, in words, with "did you mean";
 * and a partial extension keeps what a plain spec derives. In-process: the check stage that lint
 * and generate share.
 */
import { describe, expect, it } from "vitest";
import { refusedFor } from "../helpers/refused.js";
import { checkSpec } from "../../generator/check/index.js";
import type { Diagnostic } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";
import { base, edit, FIVE_PROBLEMS, LIMITS_ONLY, withExtension } from "./fixtures.js";

function check(text: string) {
  return checkSpec(loadSpecText("bookshelf.yaml", text));
}

const problems = (text: string): Diagnostic[] => refusedFor("bookshelf.yaml", text);

describe("x-stepforge problems: all at once, in words", () => {
  it("five problems are five diagnostics in one run, each at its key with the nearest name", () => {
    const found = problems(withExtension(base(), FIVE_PROBLEMS));
    expect(found.map((d) => `${d.line}:${d.column} ${d.code} ${d.pointer}`)).toEqual([
      "17:50 SF120 /x-stepforge/connection/fields/apiKey/secrt",
      "21:54 SF121 /x-stepforge/auth/modes/header/0/value",
      "25:13 SF120 /x-stepforge/limits/0/kind",
      "34:12 SF126 /x-stepforge/limits/1/per",
      "39:22 SF120 /x-stepforge/errors/statuses/429/kind",
    ]);
    expect(found.map((d) => d.message)).toEqual([
      'x-stepforge.connection.fields.apiKey: unknown key "secrt"; did you mean "secret"? ' +
        "(x-stepforge.connection.fields.apiKey takes description, secret, required, pattern, trimSuffix, example)",
      '"apiKy" is not a connection field; did you mean "apiKey"? (known: apiKey)',
      'x-stepforge.limits[0].kind: "daly-quota" is not one of "window", "concurrency", "daily-quota", ' +
        '"monthly-quota", "header-quota"; did you mean "daily-quota"?',
      'limit "perBook" counts per path parameter "bokId", ' +
        "but no operation's path has {bokId}; did you mean path:bookId?",
      'x-stepforge.errors.statuses["429"].kind: "rate_limit" is not one of "auth", "permission", "not_found", ' +
        '"validation", "conflict", "rate_limited", "quota_exhausted", "timeout", "network", "server"; ' +
        'did you mean "rate_limited"?',
    ]);
  });

  it("says what a missing key and a wrong value should be, and how to write it", () => {
    const ext = `x-stepforge:
  limits:
    - { id: perSecond, kind: window, requests: "10", windowSeconds: 1, rejection: { status: 429 } }
    - { id: perDay, kind: daily-quota, requests: 100, description: a day, resetTimeZone: UTC, rejection: 429 }
  connection: { baseUrl: https://api.bookshelf.example, fields: [apiKey] }`;
    expect(problems(withExtension(base(), ext)).map((d) => d.message)).toEqual([
      "x-stepforge.limits[0].description is missing: expected text (not empty); add it",
      'x-stepforge.limits[0].requests: expected a whole number above 0, found a string ("10"); write 10 without quotes',
      "x-stepforge.limits[1].rejection: expected a mapping with any of status, code, found a number (429); " +
        "write it as a mapping (one `key: value` per line under it)",
      "x-stepforge.connection.fields: expected a mapping of names, each to a mapping with description, secret, " +
        "found a list; write it as a mapping (one `key: value` per line under it)",
    ]);
  });

  it("a misspelt key is one problem, not also the key it meant reported missing", () => {
    const ext =
      "x-stepforge:\n  limits:\n" +
      "    - { id: a, kind: window, requests: 1, windowSecond: 1, description: d, rejection: { status: 429 } }";
    const found = problems(withExtension(base(), ext));
    expect(found.map((d) => d.message)).toEqual([
      'x-stepforge.limits[0]: unknown key "windowSecond"; did you mean "windowSeconds"? ' +
        "(x-stepforge.limits[0] takes kind, id, description, applies, per, excludePathPrefixes, penaltySeconds, " +
        "pathPrefix, rejection, requests, windowSeconds)",
    ]);
  });

  it("an id that is not one suggests the one it could be", () => {
    const [d] = problems(withExtension(base(), "x-stepforge:\n  id: Book-Shelf"));
    expect(d!.message).toBe(
      'x-stepforge.id: "Book-Shelf" is not lower-case letters and digits, starting with a letter; ' +
        'did you mean "bookshelf"?',
    );
  });
});

describe("a partial x-stepforge keeps the plain-spec defaults", () => {
  const plain = check(base());

  it("only limits: the id, title, connection, auth, errors and mock are derived as for the plain spec", () => {
    const model = check(withExtension(base(), LIMITS_ONLY));
    expect(model.declared).toBe(true);
    expect(model.id).toBe(plain.id);
    expect(model.title).toBe("Bookshelf API");
    expect(model.descriptor.connection).toEqual(plain.descriptor.connection);
    expect(model.descriptor.auth).toEqual({
      kind: "api-key",
      modes: { default: [{ in: "header", name: "Authorization", value: "Bearer {accessToken}" }] },
      defaultMode: "default",
    });
    expect(model.descriptor.errors).toEqual(plain.descriptor.errors);
    expect(model.descriptor.limits.map((l) => l.id)).toEqual(["perSecond"]);
    expect(model.mock).toEqual(plain.mock);
  });

  it("a mock with only its page size gets the derived credentials, error and answers", () => {
    const model = check(withExtension(base(), "x-stepforge:\n  mock:\n    pageSize: 5"));
    expect(model.mock).toMatchObject({
      pageSize: 5,
      credentials: plain.mock.credentials,
      error: plain.mock.error,
      answers: plain.mock.answers,
    });
  });

  it("a declared connection keeps its fields and gets the ones the derived auth sends", () => {
    const ext = `x-stepforge:
  connection:
    baseUrl: "{endpoint}"
    fields:
      endpoint: { description: where the shelf is, secret: false }`;
    const model = check(withExtension(base(), ext));
    expect(Object.keys(model.descriptor.connection.fields)).toEqual(["accessToken", "endpoint"]);
    expect(model.descriptor.auth).toEqual(plain.descriptor.auth);
  });

  it("a declared auth gets a connection holding the fields it names", () => {
    const ext = `x-stepforge:
  auth:
    kind: api-key
    modes:
      header: [{ in: header, name: x-api-key, value: "{apiKey}" }]
    defaultMode: header`;
    const model = check(withExtension(base(), ext));
    expect(model.descriptor.connection).toEqual({
      baseUrl: "https://api.bookshelf.example",
      fields: { apiKey: { description: "apiKey (sent by x-stepforge.auth)", secret: true, required: true } },
    });
  });

  it("without an id, --service names the service, as for a plain spec", () => {
    const model = checkSpec(loadSpecText("bookshelf.yaml", withExtension(base(), LIMITS_ONLY)), { serviceId: "shelf" });
    expect(model.id).toBe("shelf");
  });

  it("the extension is still strict: a defect a plain spec would have repaired is an error", () => {
    const text = withExtension(edit(base(), "      operationId: getBook\n", ""), LIMITS_ONLY);
    expect(problems(text).map((d) => `${d.severity} ${d.code}`)).toEqual(["error SF117"]);
  });
});
