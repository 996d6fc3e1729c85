/**
 * Every command on a project's own specs and on `--spec FILE` (issue 19, item 2): tools, call
 * (--mock), mock, triggers and lint work on the project's services, built from their specs before
 * any generate; the bundled services stay reachable by id. A plain spec (test/project/fixtures/
 * bookshelf.yaml) and a public one (the corpus copy of World News API's document, as `news`).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockCommand } from "../../cli/commands/mock.js";
import { registeredMock } from "../../runtime/mock/index.js";
import { runCli } from "../helpers/cli.js";
import { BOOKSHELF, Capture, PUBLIC_SPEC, tempProject, type TempProject } from "./helpers.js";

let project: TempProject;
let p: string[];

beforeAll(() => {
  project = tempProject();
  project.bookshelf();
  project.write(
    "stepforge.config.yaml",
    `specs:\n  - specs/bookshelf.yaml\n  - file: ${PUBLIC_SPEC}\n    id: news\noutput: gen\n`,
  );
  p = ["--project", project.dir];
});
afterAll(() => project?.remove());

const names = (listing: string) =>
  listing
    .split("\n")
    .filter((l) => /^\w+_\w+ /.test(l))
    .map((l) => l.split(" ")[0]!);

describe("the project's services, before any generate", { timeout: 120_000 }, () => {
  it("tools list shows the project's steps only; --service reaches a bundled service", async () => {
    const r = await runCli("tools", "list", ...p);
    expect(r.code, r.stderr).toBe(0);
    const listed = names(r.stdout);
    expect(listed).toContain("bookshelf_list_books");
    expect(listed).toContain("bookshelf_create_book");
    expect(listed.some((n) => n.startsWith("news_"))).toBe(true);
    expect(listed.some((n) => n.startsWith("trello_"))).toBe(false);
    const trello = await runCli("tools", "list", "--service", "trello", ...p);
    expect(names(trello.stdout)).toContain("trello_create_card");
    const unknown = await runCli("tools", "list", "--service", "bookshelfapi", ...p);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      new RegExp(
        'unknown service "bookshelfapi" \\(services: bookshelf, news \\(from .*stepforge\\.config\\.yaml\\); ' +
          "bundled: contentsnare, marketo, trello, worldnews\\)",
      ),
    );
  });

  it("tools schema exports the project's steps for a provider", async () => {
    const r = await runCli("tools", "schema", "--format", "anthropic", "--service", "bookshelf", ...p);
    expect(r.code, r.stderr).toBe(0);
    const tools = JSON.parse(r.stdout) as Array<{
      name: string;
      input_schema: { properties: Record<string, unknown> };
    }>;
    const create = tools.find((t) => t.name === "bookshelf_create_book")!;
    expect(Object.keys(create.input_schema.properties)).toEqual(
      expect.arrayContaining(["title", "author", "status", "publisher"]),
    );
  });

  it("call --mock runs a step against the service's mock started in the process", async () => {
    const callMock = (tool: string, input: unknown, ...flags: string[]) =>
      runCli("call", tool, "--mock", "--input", JSON.stringify(input), ...flags, ...p);
    const created = await callMock("bookshelf_create_book", {
      title: "Snow Crash",
      author: "Neal Stephenson",
      status: "available",
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, data: { id: expect.any(String) } });
    const invalid = await callMock("bookshelf_create_book", { title: "No author", status: "shelved" });
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ ok: false, error: { kind: "invalid_input" } });
    const unknown = await callMock("bookshelf_lend_book", {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "bookshelf_lend_book"; bookshelf has bookshelf_list_books');
    const clash = await callMock("bookshelf_list_books", {}, "--connections", "x.json");
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain("leave out --connection, --connections and --base-url");
  });

  it("mock SERVICE starts the project's mock on 127.0.0.1 and it answers over HTTP", async () => {
    const out = new Capture();
    const err = new Capture();
    let stop!: () => void;
    const until = new Promise<void>((r) => (stop = r));
    const finished = mockCommand(["bookshelf", "--port", "0", ...p], out, err, until);
    for (let i = 0; i < 600 && !out.text.includes("running on"); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /^bookshelf mock (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out.text)?.[1];
    expect(url, `${out.text}${err.text}`).toBeDefined();
    const unauthorized = await fetch(`${url}/books`);
    expect(unauthorized.status).toBe(401);
    // The credential the mock accepts is the one it declares (what any other token gets is item 3's).
    const token = registeredMock("bookshelf")!.mock.credentials.accessToken;
    const listed = await fetch(`${url}/books`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
    stop();
    expect(await finished).toBe(0);
  });

  it("triggers list says the project's specs declare none", async () => {
    const r = await runCli("triggers", "list", ...p);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("0 triggers (bookshelf, news declare none)\n");
  });

  it("lint lints the project's specs, not the package's", async () => {
    const r = await runCli("lint", ...p);
    expect(r.stdout).toMatch(/2 specs linted \(.*stepforge\.config\.yaml\)/);
    expect(r.stdout).toContain("bookshelf.yaml");
    expect(r.stdout).not.toContain("specs/trello.yaml");
  });
});

describe("--spec FILE without a project", { timeout: 120_000 }, () => {
  it("tools list and call --mock work on one spec, its id from the file name", async () => {
    const listed = await runCli("tools", "list", "--spec", BOOKSHELF);
    expect(listed.code, listed.stderr).toBe(0);
    expect(names(listed.stdout)).toEqual([
      "bookshelf_list_books",
      "bookshelf_create_book",
      "bookshelf_get_book",
      "bookshelf_delete_book",
      "bookshelf_update_book",
    ]);
    const called = await runCli("call", "bookshelf_list_books", "--mock", "--input", "{}", "--spec", BOOKSHELF);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout).ok).toBe(true);
  });

  it("the built modules are cached by spec content: an edited spec is rebuilt", async () => {
    const spec = project.write("edited/shelf.yaml", readFileSync(BOOKSHELF, "utf8"));
    expect(names((await runCli("tools", "list", "--spec", spec)).stdout)).toContain("shelf_get_book");
    project.write(
      "edited/shelf.yaml",
      readFileSync(BOOKSHELF, "utf8").replace("operationId: getBook", "operationId: fetchBook"),
    );
    const after = names((await runCli("tools", "list", "--spec", spec)).stdout);
    expect(after).toContain("shelf_fetch_book");
    expect(after).not.toContain("shelf_get_book");
  });

  it("the bundled services need no flag, as before", async () => {
    const r = await runCli("tools", "list", "--service", "worldnews");
    expect(names(r.stdout)).toContain("worldnews_search_news");
  });
});

it("a project's service id takes the bundled one's place", { timeout: 60_000 }, async () => {
  const shadow = tempProject();
  try {
    shadow.bookshelf("trello.yaml");
    shadow.write("stepforge.config.json", JSON.stringify({ specs: ["specs/trello.yaml"] }));
    const r = await runCli("tools", "list", "--service", "trello", "--project", shadow.dir);
    expect(names(r.stdout)).toContain("trello_list_books");
    expect(names(r.stdout)).not.toContain("trello_create_card");
  } finally {
    shadow.remove();
  }
});

it("mock and call name the project file when the config is there but unreadable", async () => {
  const broken = tempProject();
  try {
    broken.write("stepforge.config.yaml", "specs: [unclosed\n");
    const r = await runCli("mock", "all", "--project", broken.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("stepforge.config.yaml cannot be read");
  } finally {
    broken.remove();
  }
});
