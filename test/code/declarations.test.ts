/**
 * What execute checks code against: the declarations printed flat from a generated client and
 * types (schemas as named aliases, parameters inlined, no openapi-typescript indexed access left),
 * and the checker's diagnostics with lines and columns of the agent's own code.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { buildDeclarations, type ServiceDeclarations } from "../../runtime/code/declarations.js";
import { operationTypesDeclarations, loadTypeBlanker, loadTypeScript } from "../../runtime/code/load.js";
import { CodeChecker } from "../../runtime/code/typecheck.js";
import { emitClient } from "../../generator/emit/client.js";
import { emitTypes } from "../../generator/emit/types.js";
import { context, modelOf } from "../generator/emit/fixture.js";
import { bundledServices } from "./helpers.js";

/**
 * A service in miniature, printed by the generator's own client and types emitters, with schema
 * names a TypeScript identifier cannot be and a path parameter that is a component reference.
 */
async function thingsService(): Promise<{ id: string; client: string; types: string }> {
  const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const model = modelOf((doc) => {
    doc.paths = {
      "/things/{id}": {
        get: {
          operationId: "getThing",
          summary: "Get a thing",
          description: "Reads one thing with its owner.",
          parameters: [
            { name: "verbose", in: "query", schema: { type: "boolean" } },
            { $ref: "#/components/parameters/ThingId" },
          ],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: schemaRef("thing-record") } } },
            "404": { description: "no such thing" },
          },
        },
      },
    };
    doc.components = {
      parameters: { ThingId: { name: "id", in: "path", required: true, schema: { type: "string" } } },
      schemas: {
        "thing-record": {
          type: "object",
          required: ["id"],
          properties: { id: { type: "string" }, owner: schemaRef("Promise"), code: schemaRef("2fa") },
        },
        Promise: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
        "2fa": { type: "object", required: ["code"], properties: { code: { type: "string" } } },
      },
    };
  });
  const [[client], [types]] = await Promise.all([emitClient(model, context), emitTypes(model, context)]);
  return { id: "things", client: client!.content, types: types!.content };
}

/** The four services' declarations, built once for the file. */
let all: ServiceDeclarations[];
beforeAll(async () => {
  const ts = await loadTypeScript();
  const services = await bundledServices();
  all = buildDeclarations(ts, {
    services: services.map((s) => ({ id: s.catalog.id, client: s.client, types: s.types })),
    operationTypes: operationTypesDeclarations(),
  });
}, 120_000);

describe("declarations printed from a generated client", () => {
  it("names every schema with a usable alias and prints each method flat", async () => {
    const ts = await loadTypeScript();
    const [things] = buildDeclarations(ts, {
      services: [await thingsService()],
      operationTypes: operationTypesDeclarations(),
    });
    expect([...things!.aliases.keys()]).toEqual(["ThingRecord", "Promise_", "T2fa"]);
    expect(things!.aliases.get("ThingRecord")).toBe("{ id: string; owner?: Promise_; code?: T2fa; }");
    const [op] = things!.operations;
    expect(op).toMatchObject({
      method: "getThing",
      summary: "Get a thing",
      description: "Reads one thing with its owner.",
      typesUsed: ["ThingRecord"],
    });
    expect(op!.signature).toBe(
      "getThing(init: { params: { query?: { verbose?: boolean; }; path: { id: string; } } }): Promise<ThingRecord>",
    );
    // The checked module compiles as it is: the schema called Promise does not shadow the global.
    const checker = new CodeChecker(ts, { declarations: [things!], accounts: new Map() });
    expect(
      checker.check(
        `const t = await services.things.getThing({ params: { path: { id: "1" } } });\nreturn t.owner?.name;`,
      ),
    ).toMatchObject({ ok: true });
  });

  it("leaves no indexed access into the generated types in the four services' signatures", () => {
    const signatures = all.flatMap((d) => d.operations.map((o) => o.signature));
    expect(signatures.length).toBeGreaterThan(70);
    expect(signatures.filter((s) => /components\[|operations\[|paths\[|signal\?/.test(s))).toEqual([]);
    const trello = all.find((d) => d.id === "trello")!;
    expect(trello.operations.find((o) => o.method === "getCard")!.signature).toMatch(
      joinedPattern([
        /^getCard\(init: \{ params: \{ query\?: \{ fields\?: string; /,
        /.*path: \{ id: IdOrShortLink; \} \} \}\): Promise<Card>$/,
      ]),
    );
    // A paged walk (`searchNewsItems(): AsyncIterable<…>`) is not one bridged call: not offered.
    const news = all.find((d) => d.id === "worldnews")!;
    expect(news.operations.map((o) => o.method)).toContain("searchNews");
    expect(all.flatMap((d) => d.operations.map((o) => o.method)).filter((m) => m.endsWith("Items"))).toEqual([]);
  });
});

describe("the check", () => {
  it("reports errors at the line and column of the agent's code, and strips types when it passes", async () => {
    const checker = new CodeChecker(await loadTypeScript(), {
      declarations: all,
      accounts: new Map([["trello", ["work", "home"]]]),
    });
    const wrong = checker.check(
      `const lists = await services.trello.work.getBoardLists({ params: { path: { id: "b" } } });\n\nconst ` +
        `first: number = lists[0]!.name;\nreturn services.trello.getBoardLists;`,
    );
    expect(wrong).toMatchObject({
      ok: false,
      diagnostics: [
        {
          line: 3,
          column: 7,
          code: "TS2322",
          message:
            "Type 'string | undefined' is not assignable to type 'number'. Type 'undefined' is not assignable to " +
            "type 'number'.",
        },
        { line: 4, column: 24, code: "TS2339" },
      ],
    });
    const right = checker.check(`const n: number = 1;\nreturn { n } as const;`);
    expect(right.ok).toBe(true);
    if (right.ok) {
      expect(right.js).not.toMatch(/: number|as const/);
      expect(right.js).toMatch(/async function __stepforge_main\(services\) \{/);
    }
  });

  it("blanks the types out where it can, so the JavaScript keeps every line and column", async () => {
    const blank = await loadTypeBlanker();
    expect(blank).toBeTypeOf("function");
    const checker = new CodeChecker(await loadTypeScript(), { declarations: all, accounts: new Map() }, { blank });
    expect(checker.check(`const n: number = 1;\nreturn { n } as const;`)).toEqual({
      ok: true,
      js: `async function __stepforge_main(services          ) {\nconst n         = 1;\nreturn { n }         ;\n}\n`,
    });
    // What blanking cannot write goes through the emitter, with its source map.
    for (const code of [`enum E { A }\nreturn E.A;`, `@((c: unknown, x: ClassDecoratorContext) => {}) class A {}`]) {
      const emitted = checker.check(code);
      expect(emitted.ok && emitted.sourceMap, code).toMatch(/"mappings"/);
    }
    // An "@" in a string is no decorator.
    const mail = checker.check(`return "a@example.com";`);
    expect(mail.ok && !("sourceMap" in mail)).toBe(true);
  });
});

describe("the warm checker", () => {
  const CODES = [
    `const card = await services.trello.getCard({ params: { path: { id: "c" } } });\nreturn card.nam;`,
    `const lists = await services.trello.getBoardLists({ params: { path: { id: "b" } } });\nreturn lists.length;`,
    `return services.trello.nope();`,
    `const x: number = "a";\nlet y = x +;`,
    `enum E { A, B }\nconst enum F { X = 3 }\nreturn E.B + F.X;`,
    `class A { constructor(private x: number) {} get() { return this.x; } }\nreturn new A(1).get();`,
    `// @ts-expect-error\nconst x: number = "a";\nreturn x;`,
    `with (services) {}`,
    `return setTimeout;`,
    `const a = await import("node:child_process");\nreturn a;`,
  ];
  // The source map names its file; the run file's name differs from the program's own agent file.
  const same = (result: unknown) =>
    JSON.stringify(result).replace(/sourceMappingURL=[\w.-]+|\\"(file|sources)\\":(\\"[^\\]*\\"|\[[^\]]*\])/g, "");

  it("answers as a fresh checker does, from one program, and repeats an error it reported before", async () => {
    const ts = await loadTypeScript();
    const warm = new CodeChecker(ts, { declarations: all, accounts: new Map() });
    const fresh = new CodeChecker(ts, { declarations: all, accounts: new Map() }, { warm: false });
    for (const code of CODES) expect(same(warm.check(code)), code).toBe(same(fresh.check(code)));
    // One program for every check but the one with a @ts-expect-error comment (a program applies those).
    expect(warm.programs).toBe(2);
    expect(fresh.programs).toBe(CODES.length);
    // The checker keeps diagnostics by file name and drops one equal to a kept one: the same wrong
    // code twice must fail twice.
    expect(warm.check(CODES[0]!)).toMatchObject({ ok: false, diagnostics: [{ line: 2, code: "TS2551" }] });
  });

  it("is replaced after its number of files, so what it keeps stays bounded", async () => {
    const checker = new CodeChecker(
      await loadTypeScript(),
      { declarations: all, accounts: new Map() },
      { checksPerChecker: 2 },
    );
    for (let i = 0; i < 5; i++) expect(checker.check(`return ${i};`).ok).toBe(true);
    expect(checker.programs).toBe(3);
  });
});
