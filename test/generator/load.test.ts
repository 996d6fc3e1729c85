import { describe, expect, it } from "vitest";
import { SpecError } from "../../generator/diagnostics.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";

function diagnosticsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).diagnostics;
  }
  throw new Error("expected a SpecError");
}

describe("load", () => {
  it("locates nodes by path with 1-based line and column", () => {
    const spec = loadSpecText(
      "s.yaml",
      "openapi: 3.1.0\ninfo:\n  title: T\npaths:\n  /a:\n    get:\n      operationId: a\n",
    );
    expect(spec.locate(["info", "title"])).toEqual({ line: 3, column: 10 });
    expect(spec.locate(["paths", "/a", "get", "operationId"])).toEqual({ line: 7, column: 20 });
  });

  it("points a missing key at its nearest existing parent", () => {
    const spec = loadSpecText("s.yaml", "openapi: 3.1.0\ninfo:\n  title: T\n");
    expect(spec.locate(["info", "version"]).line).toBe(3);
  });

  it("reports YAML syntax errors with their place", () => {
    const [d] = diagnosticsOf(() => loadSpecText("bad.yaml", "openapi: 3.1.0\ninfo:\n  title: [unclosed\n"));
    expect(d).toMatchObject({ code: "SF002", file: "bad.yaml" });
    expect(d!.line).toBeGreaterThanOrEqual(3);
  });

  it("refuses a key written twice instead of keeping the last", () => {
    const [d] = diagnosticsOf(() => loadSpecText("dup.yaml", "openapi: 3.1.0\ninfo:\n  title: A\n  title: B\n"));
    expect(d).toMatchObject({ code: "SF002", line: 4 });
  });

  it("refuses a document that is not an object", () => {
    expect(diagnosticsOf(() => loadSpecText("list.yaml", "- 1\n- 2\n"))[0]!.code).toBe("SF003");
  });

  it("says when the file cannot be read", () => {
    const [d] = diagnosticsOf(() => loadSpecFile("/nonexistent/spec.yaml"));
    expect(d).toMatchObject({ code: "SF001", message: expect.stringContaining("no such file") });
  });
});

describe("YAML merge keys", () => {
  const text = [
    "openapi: 3.0.3",
    "x-r: &ok",
    '  "200":',
    "    description: ok",
    "paths:",
    "  /b:",
    "    get:",
    "      responses:",
    "        <<: *ok",
    '        "404": {description: nf}',
    "",
  ].join("\n");

  it("merges `<<: *anchor` into the mapping instead of keeping a key named <<", () => {
    const responses = (loadSpecText("m.yaml", text).data as any).paths["/b"].get.responses;
    expect(responses).toEqual({ "200": { description: "ok" }, "404": { description: "nf" } });
  });

  it("locates a merged key where the anchor wrote it, and an own key where it is written", () => {
    const spec = loadSpecText("m.yaml", text);
    expect(spec.locate(["paths", "/b", "get", "responses", "200", "description"])).toEqual({ line: 4, column: 18 });
    expect(spec.locate(["paths", "/b", "get", "responses", "404"])).toEqual({ line: 10, column: 16 });
  });
});

describe("JSON files", () => {
  it("reports a truncated or broken .json spec as JSON, with the place", () => {
    const [truncated] = diagnosticsOf(() =>
      loadSpecText("t.json", '{\n  "openapi": "3.0.3",\n  "info": {"title": "X",'),
    );
    expect(truncated).toMatchObject({ code: "SF002", file: "t.json", line: 3, column: 25 });
    expect(truncated!.message).toMatch(/^not valid JSON: /);
    expect(truncated!.message).not.toMatch(/YAML|Flow map/);
    const [broken] = diagnosticsOf(() => loadSpecText("b.JSON", '{\n  "openapi" "3.0.3"\n}'));
    expect(broken).toMatchObject({
      code: "SF002",
      line: 2,
      column: 13,
      message: expect.stringMatching(/^not valid JSON: Expected ':' after property name$/),
    });
  });

  it("still reads a .json spec with a byte-order mark", () => {
    expect(loadSpecText("bom.json", '\uFEFF{"openapi": "3.1.0"}').data).toEqual({ openapi: "3.1.0" });
  });
});
