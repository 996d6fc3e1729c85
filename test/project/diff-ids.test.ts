/**
 * `stepforge diff` names the service as the other commands do, so the steps in its report are the
 * user's: the config's id for a spec of the project, else the file's name — never the spec's
 * title (the bookshelf fixture's title would make it "bookshelfapi", and its steps "bookshelfapi_…").
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { BOOKSHELF, tempProject, type TempProject } from "./helpers.js";

let project: TempProject;
const cwd = process.cwd();
const edited = readFileSync(BOOKSHELF, "utf8").replace(
  "required: [title, author]",
  "required: [title, author, status]",
);

beforeAll(() => {
  project = tempProject();
  project.bookshelf();
  project.write("stepforge.config.yaml", "specs:\n  - file: specs/bookshelf.yaml\n    id: shelf\n");
  project.write("next/bookshelf.yaml", edited);
  project.write("elsewhere/library.yaml", readFileSync(BOOKSHELF, "utf8"));
  project.write("elsewhere/next/library.yaml", edited);
});
afterAll(() => {
  process.chdir(cwd);
  project?.remove();
});

describe("diff's service id without --service", { timeout: 60_000 }, () => {
  it("a spec of the project's config takes the config's id", async () => {
    process.chdir(project.dir);
    const r = await runCli("diff", "specs/bookshelf.yaml", "next/bookshelf.yaml");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^shelf: \d+ API changes, 2 breaking/);
    expect(r.stdout).toContain("shelf_create_book: field status became required");
  });

  it("a spec outside any project takes its file's name", async () => {
    process.chdir(`${project.dir}/elsewhere`);
    const r = await runCli("diff", "library.yaml", "next/library.yaml");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^library: \d+ API changes/);
    expect(r.stdout).toContain("library_create_book");
  });

  it("--service still wins", async () => {
    process.chdir(project.dir);
    const r = await runCli("diff", "specs/bookshelf.yaml", "next/bookshelf.yaml", "--service", "books");
    expect(r.stdout).toMatch(/^books: /);
  });
});
