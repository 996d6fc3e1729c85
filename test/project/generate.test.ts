/**
 * `stepforge generate` in a project (issue 19, items 1 and 7): the config's specs into its output
 * folder with its package name; after an id rename the old folder goes (files stepforge wrote and
 * nobody edited), never a user's file; the generated README speaks of the user's package.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { runCli } from "../helpers/cli.js";
import { tempProject, type TempProject } from "./helpers.js";

let project: TempProject;
let out: string;
const config = (spec: Record<string, unknown>) =>
  project.write("stepforge.config.json", JSON.stringify({ specs: [spec], output: "gen", package: "@acme/books" }));
const generate = (...flags: string[]) => runCli("generate", "--project", project.dir, ...flags);

beforeAll(async () => {
  project = tempProject();
  project.bookshelf();
  out = join(project.dir, "gen");
  config({ file: "specs/bookshelf.yaml" });
  const r = await generate();
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
}, 120_000);
afterAll(() => project?.remove());

describe("generate from the project's config", { timeout: 120_000 }, () => {
  it("writes each spec's service under its id, and the package files the config's package name asks for", () => {
    expect(readdirSync(join(out, "bookshelf")).sort()).toEqual(
      ["README.md", "client.ts", "descriptor.ts", "index.ts", "mock.ts", "surface.json", "tools.ts", "types.ts"].sort(),
    );
    const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as {
      name: string;
      exports: Record<string, unknown>;
    };
    expect(pkg.name).toBe("@acme/books");
    expect(Object.keys(pkg.exports)).toEqual([".", "./bookshelf", "./bookshelf/mock"]);
  });

  it("the README imports from the user's package, shows commands that run there, and has no HTML entities", () => {
    const readme = readFileSync(join(out, "bookshelf", "README.md"), "utf8");
    expect(readme).toContain('import { createBookshelfClient } from "@acme/books/bookshelf";');
    expect(readme).toContain("`startBookshelfMock()` from `@acme/books/bookshelf/mock`");
    expect(readme).toContain("npx stepforge mock bookshelf");
    expect(readme).toContain("npx stepforge call bookshelf_list_books --input '{}' --mock");
    expect(readme).toContain("After changing the spec: `npx stepforge generate`");
    expect(readme).not.toContain("stepforge/bookshelf");
    expect(readme).not.toMatch(/&#x|&amp;|&lt;|&gt;|&quot;/);
  });

  it("a README with code spans in its cells (paging, error codes) has no HTML entities either", async () => {
    // Regenerated here, so the test sees the emitter, not only what generated/ holds.
    const again = join(project.dir, "bundled");
    for (const id of ["contentsnare", "marketo"]) {
      const r = await runCli("generate", "--spec", join(packageRoot(), "specs", `${id}.yaml`), "--out", again);
      expect(r.code, r.stderr).toBe(0);
      const readme = readFileSync(join(again, id, "README.md"), "utf8");
      expect(readme, id).not.toMatch(/&#x|&amp;|&lt;|&gt;|&quot;/);
      // And the committed copy is what the emitter writes.
      expect(readFileSync(join(packageRoot(), "generated", id, "README.md"), "utf8")).not.toMatch(
        /&#x|&amp;|&lt;|&gt;|&quot;/,
      );
    }
    expect(readFileSync(join(again, "contentsnare", "README.md"), "utf8")).toContain("| offset `offset`/`limit` |");
    expect(readFileSync(join(again, "marketo", "README.md"), "utf8")).toContain("| code `601` | auth |");
  });

  it("after an id rename the old folder goes; a user's file and an edited generated file stay", async () => {
    writeFileSync(join(out, "NOTES.md"), "mine\n");
    writeFileSync(join(out, "bookshelf", "my-helper.ts"), "export const mine = 1;\n");
    config({ file: "specs/bookshelf.yaml", id: "books" });
    const check = await generate("--check");
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("extra    bookshelf/client.ts");
    const renamed = await generate();
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(existsSync(join(out, "books", "client.ts"))).toBe(true);
    expect(existsSync(join(out, "bookshelf", "client.ts"))).toBe(false);
    expect(existsSync(join(out, "bookshelf", "README.md"))).toBe(false);
    // Files stepforge never wrote are not its to remove.
    expect(readFileSync(join(out, "NOTES.md"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(out, "bookshelf", "my-helper.ts"), "utf8")).toBe("export const mine = 1;\n");
    expect(readFileSync(join(out, "index.ts"), "utf8")).toContain('export * as books from "./books/index.js";');

    // Renamed back, with one generated file of "books" edited by hand: that one is kept and named.
    writeFileSync(
      join(out, "books", "tools.ts"),
      `${readFileSync(join(out, "books", "tools.ts"), "utf8")}\n// edited\n`,
    );
    config({ file: "specs/bookshelf.yaml" });
    const back = await generate();
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toContain(
      `kept ${join(out, "books", "tools.ts")}: no spec generates it any more, but it was edited since`,
    );
    expect(readdirSync(join(out, "books"))).toEqual(["tools.ts"]);
    expect(existsSync(join(out, "bookshelf", "client.ts"))).toBe(true);
  });
});
