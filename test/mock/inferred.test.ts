/**
 * The mock of a plain spec (test/mock/fixtures/bookshelf.yaml, no x-stepforge), generated
 * in-process and served on 127.0.0.1: behaviour inferred from the REST shape (create, read by the
 * path's own parameter, change, remove, nested collections under a parent), lists in the declared
 * envelope with paging the typed client walks, errors in the spec's shape, any well-formed bearer
 * accepted, and every answer valid against its response schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { createSharedState } from "../../runtime/index.js";
import { generateSpec, type GeneratedSpec } from "./generated.js";
import { call } from "./helpers.js";

const SPEC = join(import.meta.dirname, "fixtures", "bookshelf.yaml");
const auth = { authorization: "Bearer any-token-the-user-has" };
let g: GeneratedSpec;
let m: RunningMock;

beforeAll(async () => {
  g = await generateSpec(SPEC, "inferred", "bookshelf");
  m = await startMock("bookshelf");
}, 120_000);

afterAll(async () => {
  await m?.close();
  g?.remove();
});

/** Whether `value` is valid against the spec schema at `ref` (`Book`, or a pointer). */
function valid(ref: string, value: unknown): string {
  const schema = { $ref: ref.startsWith("#") ? ref : `#/components/schemas/${ref}` };
  const check = g.validator.compile(schema);
  return check(value) ? "valid" : JSON.stringify(check.errors);
}

const snowCrash = {
  title: "Snow Crash",
  author: { name: "Neal Stephenson", country: "US" },
  format: "paperback",
  year: 1992,
};
const create = (book: unknown, headers = auth) => call(m.url, "/books", { method: "POST", headers, json: book });

async function client() {
  const { BookshelfClient } = await g.module<{ BookshelfClient: new (o: object) => any }>("client");
  return new BookshelfClient({
    connection: { name: "reader", fields: { accessToken: "whatever-123" } },
    baseUrl: m.url,
    shared: createSharedState(),
    retry: { attempts: 0 },
  });
}

describe("a plain spec's mock: records by the REST shape", () => {
  it("creates what was sent (not the example) and reads it back by the path's own parameter", async () => {
    const created = await create(snowCrash);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject(snowCrash);
    expect(created.json.title).not.toBe("Neuromancer");
    expect(created.json.id).toMatch(/^[0-9a-f-]{36}$/);
    // Required fields the request did not give are filled: valid against Book.
    expect(valid("Book", created.json)).toBe("valid");
    const read = await call(m.url, `/books/${created.json.id}`, { headers: auth });
    expect([read.status, read.json]).toEqual([200, created.json]);
  });

  it("answers an unknown record 404 in the spec's error shape", async () => {
    const missing = await call(m.url, "/books/nope", { headers: auth });
    expect(missing.status).toBe(404);
    expect(valid("Error", missing.json)).toBe("valid");
    expect(missing.json.error).toEqual({ code: "not_found", message: "not found" });
  });

  it("changes a record with PATCH (nested objects merged) and removes it with DELETE", async () => {
    const { json: book } = await create({ title: "Dune", author: { name: "Frank Herbert" }, format: "hardcover" });
    const patched = await call(m.url, `/books/${book.id}`, {
      method: "PATCH",
      headers: auth,
      json: { author: { name: "Frank Herbert", country: "US" }, year: 1965 },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      id: book.id,
      title: "Dune",
      author: { name: "Frank Herbert", country: "US" },
      year: 1965,
      createdAt: book.createdAt,
    });
    expect(valid("Book", patched.json)).toBe("valid");
    const removed = await call(m.url, `/books/${book.id}`, { method: "DELETE", headers: auth });
    expect([removed.status, removed.text]).toEqual([204, ""]);
    const gone = await call(m.url, `/books/${book.id}`, { headers: auth });
    expect(gone.status).toBe(404);
    expect(valid("Error", gone.json)).toBe("valid");
  });

  it("replaces a record with PUT: what the body leaves out is gone, the id stays", async () => {
    const shelf = await call(m.url, "/shelves", {
      method: "POST",
      headers: auth,
      json: { name: "Sci-fi", description: "the good stuff" },
    });
    const put = await call(m.url, `/shelves/${shelf.json.id}`, {
      method: "PUT",
      headers: auth,
      json: { name: "Science fiction" },
    });
    expect([put.status, put.json]).toEqual([200, { id: shelf.json.id, name: "Science fiction" }]);
    expect((await call(m.url, `/shelves/${shelf.json.id}`, { headers: auth })).json).toEqual({
      id: shelf.json.id,
      name: "Science fiction",
    });
    expect((await call(m.url, "/shelves/987654", { method: "PUT", headers: auth, json: { name: "x" } })).status).toBe(
      404,
    );
  });

  it("takes a path parameter that picks one of fixed values (an enum) for a filter, not a record's id", async () => {
    expect((await call(m.url, "/notes", { method: "POST", headers: auth, json: { text: "remember" } })).status).toBe(
      201,
    );
    const notes = await call(m.url, "/notes/public", { headers: auth });
    expect(notes.status).toBe(200);
    expect(valid("#/paths/~1notes~1{visibility}/get/responses/200/content/application~1json/schema", notes.json)).toBe(
      "valid",
    );
  });

  it("refuses a call without a credential with 401 in the spec's shape, and takes any well-formed bearer", async () => {
    const none = await call(m.url, "/books");
    expect(none.status).toBe(401);
    expect(valid("Error", none.json)).toBe("valid");
    expect(none.json.error.code).toBe("unauthorized");
    for (const bad of ["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "token abc"])
      expect((await call(m.url, "/books", { headers: { authorization: bad } })).status).toBe(401);
    for (const good of ["Bearer a", "bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Bearer sk_live_0123456789"]) {
      expect((await call(m.url, "/books", { headers: { authorization: good } })).status).toBe(200);
    }
  });
});

describe("a plain spec's mock: lists in the declared envelope, paged as the client walks them", () => {
  let walked: RunningMock;
  beforeAll(async () => {
    walked = await startMock("bookshelf");
  });
  afterAll(() => walked.close());

  it("lists the created records in {items, total}, page by page", async () => {
    const ids: string[] = [];
    for (const title of ["A", "B", "C", "D", "E"])
      ids.push(
        (await call(walked.url, "/books", { method: "POST", headers: auth, json: { ...snowCrash, title } })).json.id,
      );
    const first = await call(walked.url, "/books?page=1&per_page=2", { headers: auth });
    expect(first.status).toBe(200);
    expect(valid("BookPage", first.json)).toBe("valid");
    expect(first.json.total).toBe(5);
    expect(first.json.items.map((b: { id: string }) => b.id)).toEqual(ids.slice(0, 2));
    const last = await call(walked.url, "/books?page=3&per_page=2", { headers: auth });
    expect(last.json.items.map((b: { id: string }) => b.id)).toEqual(ids.slice(4));
  });

  it("core.items walks exactly the created records across pages (derived page paging)", async () => {
    const { BookshelfClient } = await g.module<{ BookshelfClient: new (o: object) => any }>("client");
    const c = new BookshelfClient({
      connection: { name: "walker", fields: { accessToken: "t" } },
      baseUrl: walked.url,
      shared: createSharedState(),
      retry: { attempts: 0 },
    });
    const before = walked.counters().byOperation.listBooks ?? 0;
    const titles: string[] = [];
    for await (const book of c.core.items("listBooks", {}, { pageSize: 2 }))
      titles.push((book as { title: string }).title);
    expect(titles).toEqual(["A", "B", "C", "D", "E"]);
    expect((walked.counters().byOperation.listBooks ?? 0) - before).toBe(3);
    const typed = await c.listBooks({ params: { query: { per_page: 100 } } });
    expect(typed.items).toHaveLength(5);
  });
});

describe("a plain spec's mock: a collection nested under its parent", () => {
  it("keeps books under their shelf, answers 404 under another, and pages them by cursor", async () => {
    const shelf = await call(m.url, "/shelves", { method: "POST", headers: auth, json: { name: "Cyberpunk" } });
    const other = await call(m.url, "/shelves", { method: "POST", headers: auth, json: { name: "Other" } });
    expect([shelf.status, typeof shelf.json.id]).toEqual([201, "number"]);
    const added: string[] = [];
    for (const title of ["Neuromancer II", "Count Zero", "Mona Lisa Overdrive"]) {
      const r = await call(m.url, `/shelves/${shelf.json.id}/books`, {
        method: "POST",
        headers: auth,
        json: { ...snowCrash, title },
      });
      expect(r.status).toBe(201);
      expect(
        valid("#/paths/~1shelves~1{shelfId}~1books/post/responses/201/content/application~1json/schema", r.json),
      ).toBe("valid");
      added.push(r.json.data.id);
    }
    const here = await call(m.url, `/shelves/${shelf.json.id}/books/${added[0]}`, { headers: auth });
    expect([here.status, here.json.title]).toEqual([200, "Neuromancer II"]);
    const elsewhere = await call(m.url, `/shelves/${other.json.id}/books/${added[0]}`, { headers: auth });
    expect(elsewhere.status).toBe(404);
    const noShelf = await call(m.url, "/shelves/999/books", { method: "POST", headers: auth, json: snowCrash });
    expect(noShelf.status).toBe(404);

    const page = await call(m.url, `/shelves/${shelf.json.id}/books?limit=2`, { headers: auth });
    // The list's schema is closed: the parent field the mock keeps is not in the answer.
    expect(
      valid("#/paths/~1shelves~1{shelfId}~1books/get/responses/200/content/application~1json/schema", page.json),
    ).toBe("valid");
    expect(page.json.has_more).toBe(true);
    const c = await client();
    const walked: string[] = [];
    for await (const book of c.core.items(
      "listShelfBooks",
      { params: { path: { shelfId: shelf.json.id } } },
      { pageSize: 2 },
    ))
      walked.push((book as { id: string }).id);
    expect(walked).toEqual(added);
    const end = await call(
      m.url,
      `/shelves/${shelf.json.id}/books?limit=2&cursor=${encodeURIComponent(page.json.next_cursor)}`,
      { headers: auth },
    );
    expect([end.json.has_more, end.json.next_cursor]).toEqual([false, null]);
    expect(
      valid("#/paths/~1shelves~1{shelfId}~1books/get/responses/200/content/application~1json/schema", end.json),
    ).toBe("valid");
  });

  it("derives the paging of each list into the descriptor", async () => {
    const { descriptor } = await g.module<{ descriptor: { operations: Record<string, { paging?: unknown }> } }>(
      "descriptor",
    );
    expect(descriptor.operations.listBooks!.paging).toEqual({
      style: "page",
      pageParam: "page",
      sizeParam: "per_page",
      itemsField: "items",
      firstPage: 1,
      maxSize: 100,
      totalField: "total",
    });
    expect(descriptor.operations.listShelfBooks!.paging).toEqual({
      style: "token",
      tokenParam: "cursor",
      tokenField: "next_cursor",
      itemsField: "data",
      sizeParam: "limit",
      moreField: "has_more",
    });
    expect(descriptor.operations.listArchivedShelves!.paging).toEqual({
      style: "offset",
      offsetParam: "offset",
      limitParam: "limit",
      itemsField: ".",
      maxLimit: 25,
    });
  });
});

describe("a plain spec's mock: every answer valid against its schema", () => {
  it("warns at generate time about examples that fail their schema, with their place (SF192)", () => {
    const at = (op: string) => `/paths/~1${op}/get/responses/200/content/application~1json/example`;
    const warnings = g.warnings
      .filter((w) => w.code === "SF192" && /\/paths\/~1(stats|health)\//.test(w.pointer ?? ""))
      .map((w) => `${w.line}:${w.column} ${w.pointer} ${w.message}`);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^174:\d+ /);
    expect(warnings[0]).toContain(`${at("stats")} example does not match its schema`);
    expect(warnings[0]).toContain('lacks the required field "shelves"');
    expect(warnings[1]).toMatch(/^184:\d+ /);
    expect(warnings[1]).toContain(`${at("health")} example does not match its schema`);
    // What the mock does about it, said where the author reads the warning.
    for (const w of warnings) expect(w).toContain("the mock never answers with it");
  });

  it("serves a schema sample instead of an invalid example (missing required field, null object)", async () => {
    const stats = await call(m.url, "/stats", { headers: auth });
    expect(valid("#/paths/~1stats/get/responses/200/content/application~1json/schema", stats.json)).toBe("valid");
    const health = await call(m.url, "/health", { headers: auth });
    expect(health.json).not.toBeNull();
    expect(valid("#/paths/~1health/get/responses/200/content/application~1json/schema", health.json)).toBe("valid");
  });

  it("answers a media type with no schema and no examples with an empty body of that type", async () => {
    const ping = await call(m.url, "/ping", { headers: auth });
    expect([ping.status, ping.text, ping.type]).toEqual([200, "", "application/json"]);
  });
});

describe("a plain spec's mock: what was inferred is shown", () => {
  it("mock --explain prints per operation its action, resource, id, envelope and paging, and the auth", async () => {
    const { mockCommand } = await import("../../cli/commands/mock.js");
    const out = new Text();
    const err = new Text();
    expect(await mockCommand(["bookshelf", "--explain"], out, err, undefined, [SPEC])).toBe(0);
    expect(err.text).toBe("");
    const text = out.text;
    expect(text).toContain(`bookshelf mock: inferred from the REST shape of ${SPEC}`);
    expect(text).toContain(
      "auth: header Authorization: Bearer {accessToken}; any well-formed value is accepted, a call without one is 401",
    );
    expect(text).toMatch(
      new RegExp(
        String.raw`GET +/books +listBooks: list books\n +answer: records in items; total ← page\.total\n` +
          String.raw` +paging: page page/per_page \(from 1, at most 100\)\n`,
      ),
    );
    expect(text).toMatch(/GET +\/books\/\{bookId\} +getBook: read books\n +id: path bookId → id \(new ids: uuid\)\n/);
    expect(text).toMatch(
      new RegExp(
        String.raw`POST +/shelves/\{shelfId\}/books +addShelfBook: create books\n +id: new id: uuid\n` +
          String.raw` +parent: path shelfId → shelfId\n +answer: the record in data\n`,
      ),
    );
    expect(text).toMatch(/GET +\/stats +getStats: example\n/);
  });

  it("the generated README has a section with the same", () => {
    const readme = readFileSync(join(g.out, "bookshelf", "README.md"), "utf8");
    expect(readme).toContain("## Mock");
    const listBooks = "| `listBooks` | list books |  | records in items; total ← page.total |";
    expect(readme).toContain(`${listBooks} page page/per_page (from 1, at most 100) |`);
    expect(readme).toContain(
      "| `getShelfBook` | read books | path bookId → id (new ids: uuid); under path shelfId → shelfId |  |  |",
    );
  });
});

class Text extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}
