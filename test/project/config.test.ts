/**
 * `stepforge init` and the project config (issue 19, item 1): the config init writes, refusing to
 * overwrite one, service ids from spec file names, and config mistakes named with the key and the fix.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../cli/config/load.js";
import { runCli } from "../helpers/cli.js";
import { PUBLIC_SPEC, tempProject, type TempProject } from "./helpers.js";

let project: TempProject;
afterEach(() => project?.remove());

describe("stepforge init", () => {
  it("writes a typed stepforge.config.ts naming the specs it finds and the output folder", async () => {
    project = tempProject();
    project.bookshelf();
    const r = await runCli("init", "--project", project.dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("bookshelf (specs/bookshelf.yaml)");
    const config = readFileSync(join(project.dir, "stepforge.config.ts"), "utf8");
    expect(config).toContain('import { defineConfig } from "stepforge/config";');
    expect(config).toContain('specs: ["specs/bookshelf.yaml"]');
    expect(config).toContain('output: "src/stepforge"');
  });

  it("refuses to overwrite a config (exit 2 naming it) unless --force", async () => {
    project = tempProject();
    const spec = project.bookshelf();
    const initJson = (...more: string[]) =>
      runCli("init", "--project", project.dir, "--spec", spec, "--format", "json", ...more);
    expect((await initJson()).code).toBe(0);
    const before = readFileSync(join(project.dir, "stepforge.config.json"), "utf8");
    const again = await initJson("--package", "@acme/books");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("stepforge.config.json already exists");
    expect(readFileSync(join(project.dir, "stepforge.config.json"), "utf8")).toBe(before);
    // A config of another format counts too: two configs would be ambiguous.
    expect((await runCli("init", "--project", project.dir, "--spec", spec)).code).toBe(2);
    expect(existsSync(join(project.dir, "stepforge.config.ts"))).toBe(false);
    const forced = await initJson("--package", "@acme/books", "--force");
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(join(project.dir, "stepforge.config.json"), "utf8"))).toEqual({
      specs: ["specs/bookshelf.yaml"],
      output: "src/stepforge",
      package: "@acme/books",
    });
  });

  it("says what to pass when there is no spec, and refuses a missing --spec file", async () => {
    project = tempProject();
    const none = await runCli("init", "--project", project.dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no OpenAPI document found");
    expect(none.stderr).toContain("--spec FILE");
    const missing = await runCli("init", "--project", project.dir, "--spec", join(project.dir, "nope.yaml"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.yaml: no such file");
  });
});

describe("the project config", () => {
  it("takes a service's id from its spec file's base name, not its title", async () => {
    project = tempProject();
    project.bookshelf("library.yaml"); // titled "Bookshelf API"
    const file = project.write(
      "stepforge.config.yaml",
      `specs:\n  - specs/library.yaml\n  - file: ${PUBLIC_SPEC}\n    id: news\n`,
    );
    const config = await readConfig(file);
    expect(config.specs.map((s) => s.id)).toEqual(["library", "news"]);
    expect(config.output).toBe(join(project.dir, "src", "stepforge"));
  });

  it("names every mistake at once, with the key, the fix and near names", async () => {
    project = tempProject();
    project.bookshelf();
    const file = project.write(
      "stepforge.config.json",
      JSON.stringify({
        spec: ["specs/bookshelf.yaml"],
        specs: [{ file: "specs/bookshelf.yaml", id: "Book Shelf", baseURL: "x" }],
        ouput: "gen",
      }),
    );
    const error = await readConfig(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('spec: unknown key; did you mean "specs"?');
    expect(message).toContain('ouput: unknown key; did you mean "output"?');
    expect(message).toContain('specs[0].baseURL: unknown key; did you mean "baseUrl"?');
    expect(message).toContain("specs[0].id: 2 to 31 lower-case letters and digits");
  });

  it("refuses a spec that is not there and two specs with one id, naming both", async () => {
    project = tempProject();
    project.bookshelf();
    project.bookshelf("other.yaml");
    const missing = project.write("stepforge.config.json", JSON.stringify({ specs: ["specs/gone.yaml"] }));
    await expect(readConfig(missing)).rejects.toThrow(/specs\[0\]: .*gone\.yaml does not exist; fix the path/);
    const twice = project.write(
      "stepforge.config.json",
      JSON.stringify({ specs: ["specs/bookshelf.yaml", { file: "specs/other.yaml", id: "bookshelf" }] }),
    );
    await expect(readConfig(twice)).rejects.toThrow(/specs\[1\]: service id "bookshelf" is also the id of specs\[0\]/);
  });

  it("a broken config stops every command with exit 1 naming the file", async () => {
    project = tempProject();
    project.write("stepforge.config.json", "{ not json");
    const r = await runCli("tools", "list", "--project", project.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("stepforge.config.json cannot be read");
  });
});
