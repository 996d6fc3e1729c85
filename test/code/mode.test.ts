/**
 * Code mode's two tools through an MCP client: the listing's size, search's answers and input
 * checks, several accounts of one service, a read-only selection, a thrown error's line, the
 * result cut to the budget with console lines beside it, and the provider exports.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createCodeMode, exportCodeTools, type CodeMode, type CodeModeOptions } from "../../runtime/code/index.js";
import { Accounts, type Account, type MockAccounts } from "../../runtime/mcp/index.js";
import { bundledServices, json, mockAccounts, serve, texts, type Served } from "./helpers.js";

let mocks: MockAccounts;
let served: Served;
const execute = (s: Served, code: string) => s.client.callTool({ name: "execute", arguments: { code } });

beforeAll(async () => {
  mocks = await mockAccounts();
  served = await serve("code", mocks.accounts, { resultBytes: 4_000 });
}, 120_000);
afterAll(async () => {
  await served?.close();
  await mocks?.close();
});

/** Code mode over the four services and the mocks' accounts, serving `selection`; closed when the test ends. */
async function codeModeServing(selection: CodeModeOptions["selection"]): Promise<CodeMode> {
  const mode = await createCodeMode({
    services: await bundledServices(),
    connections: new Accounts(mocks.accounts),
    selection,
  });
  onTestFinished(() => mode.close());
  return mode;
}

describe("the listing", () => {
  it("is two tools in under 4 KB for the four services", async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search", "execute"]);
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(4096);
    expect(tools[0]!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("exports the same two tools for each provider", async () => {
    const mode = served.code!;
    const openai = exportCodeTools(mode, "openai") as unknown as Array<{
      function: { name: string; strict: boolean; parameters: { additionalProperties: boolean } };
    }>;
    expect(openai.map((t) => [t.function.name, t.function.strict, t.function.parameters.additionalProperties])).toEqual(
      [
        ["search", true, false],
        ["execute", true, false],
      ],
    );
    expect(
      (exportCodeTools(mode, "anthropic") as unknown as Array<{ input_schema: { type: string } }>)[1]!.input_schema
        .type,
    ).toBe("object");
    expect((exportCodeTools(mode, "gemini") as Array<{ name: string }>).map((t) => t.name)).toEqual([
      "search",
      "execute",
    ]);
  });
});

describe("search", () => {
  it("answers exact calls with the types they use", async () => {
    const found = texts(
      await served.client.callTool({ name: "search", arguments: { query: "add a comment to a card", limit: 1 } }),
    )[0]!;
    expect(found).toMatch(/^\/\/ 1 of \d+ operations for "add a comment to a card"/);
    expect(found).toContain(
      "services.trello.addCommentToCard(init: { params: { path: { id: IdOrShortLink; } }; body: { text: string; " +
        "} }): Promise<Action>",
    );
    expect(found).toMatch(/\ntype Action = \{ id: TrelloId;/);
    expect(found).toMatch(/\ntype TrelloId = string;/);
  });

  it("shows named types on request, and says which names do not exist", async () => {
    const found = texts(
      await served.client.callTool({
        name: "search",
        arguments: { query: "", service: "worldnews", limit: 1, types: ["GeoCoordinates", "Nope"] },
      }),
    )[0]!;
    expect(found).toMatch(/\ntype GeoCoordinates = \{ latitude: number; longitude: number;/);
    expect(found).toContain("// No type is named Nope.");
  });

  it("refuses fields it does not declare, naming them", async () => {
    const result = await served.client.callTool({ name: "search", arguments: { query: "card", services: ["trello"] } });
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "services", message: expect.stringMatching(/query, service, limit, types/) }],
    });
    const limit = await served.client.callTool({ name: "search", arguments: { query: "card", limit: 0 } });
    expect(json(limit)).toMatchObject({ fields: [{ path: "limit" }] });
  });
});

describe("execute", () => {
  it("gives a thrown error's line in the agent's code", async () => {
    const result = await execute(
      served,
      `const boards = await services.trello.getMemberBoards({ params: { path: { id: "me" } } });\nif ` +
        `(boards.length > 0) {\n  throw new Error("stop here");\n}\nreturn 1;`,
    );
    expect(result.isError).toBe(true);
    // The JavaScript kept the code's positions (its types blanked out): QuickJS's column is the code's.
    expect(json(result)).toMatchObject({
      error: { kind: "thrown", message: "Error: stop here", line: 3, column: 18 },
      calls: 1,
    });
  });

  it("runs what only the compiler's emitter turns into JavaScript, and still gives the line", async () => {
    // An enum and a parameter property (ts-blank-space declines them), a decorator and an accessor
    // field (blanking would leave them as they are): QuickJS has none of them.
    const declined = await execute(
      served,
      `enum Level { Low = 1, High = 5 }\nclass Pair { constructor(readonly left: number) {} }\n` +
        `if (Level.High === new Pair(5).left) throw new Error(\`enum \${Level.High}\`);\nreturn 0;`,
    );
    expect(json(declined)).toMatchObject({ error: { kind: "thrown", message: "Error: enum 5", line: 3 } });
    const kept = await execute(
      served,
      `function tag(value: unknown, context: ClassDecoratorContext) {\n` +
        `  (value as { tagged?: boolean }).tagged = true;\n}\n` +
        `@tag class Box { accessor size: number = 5; }\n` +
        `const tagged = (Box as unknown as { tagged: boolean }).tagged;\n` +
        `if (new Box().size === 5) throw new Error(\`tagged \${tagged}\`);\nreturn 0;`,
    );
    expect(json(kept)).toMatchObject({ error: { kind: "thrown", message: "Error: tagged true", line: 6 }, calls: 0 });
  });

  it("cuts a large result to the budget with a note, and returns console lines", async () => {
    const result = await execute(
      served,
      `console.log("reading", 200);\nreturn Array.from({ length: 200 }, (_, i) => ({ i, text: "x".repeat(40) }));`,
    );
    expect(result.isError).toBeFalsy();
    const body = json<{ result: unknown[]; logs: string[] }>(result);
    expect(body.logs).toEqual(["reading 200"]);
    expect(body.result.length).toBeGreaterThan(10);
    expect(body.result.length).toBeLessThan(200);
    expect(texts(result)[1]).toMatch(
      /^Result cut to stay under 4000 bytes: the list holds records 1-\d+ of 200\. Return fewer records/,
    );
  });

  it("refuses code that is empty or not a string", async () => {
    expect(json(await served.client.callTool({ name: "execute", arguments: { code: " " } }))).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "code" }],
    });
    expect(json(await served.client.callTool({ name: "execute", arguments: { code: 3 } }))).toMatchObject({
      kind: "invalid_input",
      fields: [{ path: "code" }],
    });
  });
});

describe("execute runs while it checks, and nothing leaves before the check passes", () => {
  const CARD = "6123a9f0c4b5d6e7f8091a2b";
  const trello = () => mocks.mocks.find((m) => m.service === "trello")!;
  const started = () => (served.code as unknown as { sandbox: { started: number } }).sandbox.started;

  it("sends no call of code that does not type-check, though the code started", async () => {
    // A run first, so a worker is ready and the next code starts before its check is over.
    expect(json(await execute(served, "return 1;"))).toMatchObject({ result: 1 });
    const requests = trello().counters().requests;
    const comments = trello().records("action").length;
    const runs = started();
    const result = await execute(
      served,
      `await services.trello.addCommentToCard({ params: { path: { id: "${CARD}" } }, body: { text: "held" } });\n` +
        `const n: number = "not a number";\nreturn n;`,
    );
    expect(json(result)).toMatchObject({
      kind: "type_error",
      diagnostics: [{ line: 2, column: 7, code: "TS2322" }],
    });
    expect(started()).toBe(runs + 1);
    // The run reached its write and was cancelled: the mock saw no request, and holds no comment.
    expect(json(await execute(served, "return 2;"))).toMatchObject({ result: 2 });
    expect(trello().counters().requests).toBe(requests);
    expect(trello().records("action").length).toBe(comments);
  });

  it("answers a type error with its diagnostics when the code loops forever or throws", async () => {
    const looping = await execute(served, `const n: number = "x";\nfor (;;) {}`);
    expect(json(looping)).toMatchObject({ kind: "type_error", diagnostics: [{ line: 1, code: "TS2322" }] });
    const throwing = await execute(served, `const n: number = "x";\nthrow new Error("boom");`);
    expect(json(throwing)).toMatchObject({ kind: "type_error", diagnostics: [{ line: 1, code: "TS2322" }] });
    // The looping run's worker was stopped and replaced: the next code is served.
    const card = await execute(
      served,
      `return (await services.trello.getCard({ params: { path: { id: "${CARD}" } } })).id;`,
    );
    expect(json(card)).toMatchObject({ result: CARD, calls: 1 });
  });
});

describe("accounts and selections", () => {
  it("with several accounts the code names one: services.trello.<account>", async () => {
    const [, [mock]] = mocks.accounts.find(([id]) => id === "trello") as [string, Account[]];
    const two: Array<[string, Account[]]> = [
      [
        "trello",
        [
          { ...mock!, name: "work" },
          { ...mock!, name: "home" },
        ],
      ],
    ];
    const several = await serve("code", two, { selection: { services: ["trello"] } });
    onTestFinished(() => several.close());
    const { tools } = await several.client.listTools();
    expect(tools[1]!.description).toContain("services.trello.<account> (home, work)");
    const ok = await execute(
      several,
      `return (await services.trello.work.getMemberBoards({ params: { path: { id: "me" } } })).length;`,
    );
    expect(json(ok)).toMatchObject({ result: 2 });
    const unnamed = await execute(
      several,
      `return await services.trello.getMemberBoards({ params: { path: { id: "me" } } });`,
    );
    expect(json(unnamed)).toMatchObject({ kind: "type_error", diagnostics: [{ code: "TS2339" }] });
  });

  it("execute's example names a served service, never one that is not served", async () => {
    const mode = await codeModeServing({ services: ["worldnews"] });
    const execute = mode.listTools().find((t) => t.name === "execute")!;
    expect(execute.description).toContain("services.worldnews.");
    expect(execute.description).not.toMatch(/services\.(trello|marketo|contentsnare)\./);
  });

  it("read-only exposes reads only, in the types and at the bridge", async () => {
    const mode = await codeModeServing({ services: ["trello"], readOnly: true });
    expect(mode.listTools()[1]!.annotations).toMatchObject({ readOnlyHint: true });
    const typed = await mode.callTool("execute", {
      code: `await services.trello.updateCard({ params: { path: { id: "x" } }, body: { name: "y" } }); return 1;`,
    });
    expect(json(typed)).toMatchObject({ kind: "type_error", diagnostics: [{ code: "TS2339" }] });
    const bypassed = await mode.callTool("execute", {
      code:
        `return await (services.trello as any).updateCard({ params: { path: { id: "x" } }, body: { name: ` +
        `"y" } });`,
    });
    expect(json(bypassed)).toMatchObject({
      error: { kind: "thrown", message: expect.stringMatching(/not a function/) },
    });
    const read = await mode.callTool("execute", {
      code: `return (await services.trello.getMemberBoards({ params: { path: { id: "me" } } })).length;`,
    });
    expect(json(read)).toMatchObject({ result: 2 });
  });
});
