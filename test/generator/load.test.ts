import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
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

/**
 * YAML specs are read by js-yaml (fast) and by `yaml` only where the two could read a text apart or
 * a diagnostic needs a place: the data must be the very data `yaml` gives, on every YAML spec here.
 */
describe("the fast YAML reader", () => {
  const repoRoot = join(import.meta.dirname, "..", "..");
  const yamlSpecs = [
    ...readdirSync(join(repoRoot, "specs")).map((f) => join(repoRoot, "specs", f)),
    ...["mock", "code", "lint", "project", "tools", "diff", "triggers"].flatMap((dir) => {
      const fixtures = join(repoRoot, "test", dir, "fixtures");
      return readdirSync(fixtures).map((f) => join(fixtures, f));
    }),
  ].filter((f) => /\.ya?ml$/.test(f));
  const asYamlReadsIt = (text: string) => parseYaml(text, { uniqueKeys: true, merge: true });

  it("gives the data `yaml` gives, for every YAML spec of the repository", () => {
    expect(yamlSpecs.length).toBeGreaterThan(14);
    for (const file of yamlSpecs)
      expect(loadSpecFile(file).data, file).toStrictEqual(asYamlReadsIt(readFileSync(file, "utf8")));
  });

  it("leaves to `yaml` what js-yaml would read otherwise: numbers with _ or 0b, merges, aliases", () => {
    const text = [
      "openapi: 3.1.0",
      "info: { title: T, version: 1_000 }",
      "x-flags: [0b101, 1_5.5, 12, 0x1F, 0o17, .inf]",
      "x-base: &base { a: 1 }",
      "x-merged: { <<: *base, b: 2 }",
      "x-alias: *base",
      "",
    ].join("\n");
    const { data } = loadSpecText("n.yaml", text);
    expect(data).toStrictEqual(asYamlReadsIt(text));
    expect(data.info).toEqual({ title: "T", version: "1_000" });
    expect(data["x-flags"]).toEqual(["0b101", "1_5.5", 12, 31, 15, Number.POSITIVE_INFINITY]);
    expect(data["x-merged"]).toEqual({ a: 1, b: 2 });
  });

  it("keeps a __proto__ key as the document's own key, as `yaml` does", () => {
    const { data } = loadSpecText("p.yaml", "openapi: 3.1.0\nx-data:\n  __proto__: { polluted: true }\n");
    const inner = data["x-data"] as object;
    expect(Object.hasOwn(inner, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("reports what it cannot read as `yaml` reports it, with the place", () => {
    const [twice] = diagnosticsOf(() => loadSpecText("d.yaml", "openapi: 3.1.0\ninfo: {}\ninfo: {}\n"));
    expect(twice).toMatchObject({ code: "SF002", line: 3 });
    const laughs = ["openapi: 3.1.0", "a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (const n of ["b", "c", "d", "e", "f", "g", "h", "i"])
      laughs.push(
        `${n}: &${n} [${Array(10)
          .fill(`*${laughs.at(-1)![0]}`)
          .join(", ")}]`,
      );
    expect(diagnosticsOf(() => loadSpecText("l.yaml", `${laughs.join("\n")}\n`))[0]).toMatchObject({ code: "SF002" });

    // An anchor used more than 100 times is refused by `yaml`, even a scalar one: so here too.
    const many = ["openapi: 3.1.0", "x-v: &v 1", ...Array.from({ length: 101 }, (_, i) => `x-${i}: *v`)];
    expect(diagnosticsOf(() => loadSpecText("v.yaml", `${many.join("\n")}\n`))[0]).toMatchObject({ code: "SF002" });
    expect(loadSpecText("w.yaml", `${many.slice(0, -1).join("\n")}\n`).data["x-99"]).toBe(1);
  });

  it("reads a plain spec without loading `yaml`, which a diagnostic's place loads later", () => {
    const dist = pathToFileURL(join(repoRoot, "dist", "generator", "load.js")).href;
    const script = [
      `import { createRequire } from "node:module";`,
      `const { loadSpecFile } = await import(${JSON.stringify(dist)});`,
      `const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => ` +
        `f.includes("/node_modules/yaml/"));`,
      `const spec = loadSpecFile(${JSON.stringify(join(repoRoot, "specs", "contentsnare.yaml"))});`,
      // Trello's spec shares a list through an anchor and an alias: read fast all the same.
      `loadSpecFile(${JSON.stringify(join(repoRoot, "specs", "trello.yaml"))});`,
      `const before = loaded();`,
      `const place = spec.locate(["info", "title"]);`,
      `console.log(JSON.stringify({ before, after: loaded(), place }));`,
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ before: false, after: true, place: { line: 3, column: 10 } });
  });
});
