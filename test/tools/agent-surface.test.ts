/**
 * The agent surface beyond the transports: Gemini as a fourth export checked against Gemini's
 * schema rules (and the checker on known-bad declarations), toolsets (every step in one, selection
 * by name, service and read/write, clear errors), the context budget of `tools/list`, and results
 * cut to a byte budget at a record boundary.
 */
import { describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import * as z from "zod";
import {
  exportTools,
  geminiSchema,
  geminiViolations,
  recordsKeyOf,
  selectFields,
  shapeResult,
  toGemini,
  canonicalSchema,
  type GeminiTool,
  type ToolDefinition,
} from "../../runtime/tools/index.js";
import {
  Accounts,
  selectTools,
  SelectionError,
  StepforgeMcp,
  CursorStore,
  CONTINUE_TOOL,
  type Account,
} from "../../runtime/mcp/index.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { listingBytes } from "../../cli/commands/mcp.js";
import { runCli } from "../helpers/cli.js";

const catalogs = await loadCatalogs();
const all: ToolDefinition[] = catalogs.flatMap((c) => [...c.tools]);

describe("Gemini export", () => {
  it("every step of every service passes Gemini's function-declaration rules", () => {
    const { tools, nonStrict } = exportTools(all, "gemini");
    expect(tools).toHaveLength(all.length);
    expect(
      tools.flatMap((t) => geminiViolations(t).map((v) => `${(t as GeminiTool).name} ${v.path}: ${v.rule}`)),
    ).toEqual([]);
    // Only the API Call steps (free-form query and body maps) need the JSON Schema field.
    expect(nonStrict.map((n) => n.name).sort()).toEqual([
      "contentsnare_api_call",
      "marketo_api_call",
      "trello_api_call",
      "worldnews_api_call",
    ]);
    for (const t of tools as GeminiTool[]) {
      if (nonStrict.some((n) => n.name === t.name)) expect(t.parametersJsonSchema).toBeDefined();
      else expect(t.parametersJsonSchema).toBeUndefined();
    }
  });

  it(
    "turns null unions into nullable, keeps enums on strings only, drops " +
      "additionalProperties and unsupported formats",
    () => {
      const schema = canonicalSchema(
        z.strictObject({
          due: z.string().meta({ format: "date-time" }).nullable(),
          mail: z.email(),
          size: z.union([z.literal(1), z.literal(2)]),
          color: z.enum(["red", "blue"]),
          tags: z.array(z.string()).optional(),
        }),
        "input",
      );
      const { schema: g, freeForm } = geminiSchema(schema);
      const props = g.properties as Record<string, Record<string, unknown>>;
      expect(freeForm).toEqual([]);
      expect(props.due).toMatchObject({ type: "string", nullable: true, format: "date-time" });
      expect(props.mail!.format).toBeUndefined();
      expect(props.mail!.description).toMatch(/Format: email/);
      expect(props.color).toMatchObject({ type: "string", enum: ["red", "blue"] });
      expect(JSON.stringify(g)).not.toMatch(/additionalProperties|"const"/);
      expect(geminiViolations({ name: "x_step", description: "d", parameters: g })).toEqual([]);
    },
  );

  it("the checker flags what Gemini refuses", () => {
    const rules = (t: unknown) => geminiViolations(t).map((v) => v.rule);
    expect(rules({ name: "1bad name", description: "", parameters: { type: "array" } })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^name must match/),
        "a description is required",
        'the root must be { type: "object" }',
      ]),
    );
    const bad = {
      name: "ok",
      description: "d",
      parameters: {
        type: "object",
        properties: {
          a: { type: ["string", "null"] },
          b: { type: "object" },
          c: { type: "integer", enum: [1, 2] },
          d: { type: "string", format: "email" },
          e: { $ref: "#/x" },
          f: { type: "string", default: "x" },
        },
      },
    };
    expect(rules(bad)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^type must be one of/),
        "properties: should be non-empty for OBJECT type",
        "enum is only for string values",
        'format "email" is not supported for string',
        '"$ref" is not in Gemini\'s schema subset',
        '"default" is not in Gemini\'s schema subset',
      ]),
    );
    expect(
      rules({ name: "ok", description: "d", parameters: { type: "object" }, parametersJsonSchema: { type: "object" } }),
    ).toContain("parameters and parametersJsonSchema are exclusive");
    const freeForm = toGemini(all.find((t) => t.name === "trello_api_call")!);
    expect(freeForm.freeForm).toEqual(["query_parameters", "body"]);
  });

  it("stepforge tools schema --format gemini prints the declarations and notes the JSON Schema fallbacks", async () => {
    const result = await runCli("tools", "schema", "--format", "gemini", "--service", "worldnews");
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as GeminiTool[];
    expect(tools.map((t) => t.name)).toContain("worldnews_search_news");
    expect(result.stderr).toMatch(
      /worldnews_api_call is exported with parametersJsonSchema \(params is a free-form object/,
    );
  });
});

describe("toolsets", () => {
  it("every step of every service is in at least one toolset, and every toolset names existing steps", () => {
    for (const c of catalogs) {
      expect(c.toolsets.length, c.id).toBeGreaterThan(1);
      const names = new Set(c.tools.map((t) => t.name));
      for (const set of c.toolsets)
        for (const s of set.steps) expect(names.has(s), `${c.id}.${set.name}: ${s}`).toBe(true);
      for (const t of c.tools)
        expect(
          c.toolsets.some((set) => set.steps.includes(t.name)),
          `${t.name} is in no toolset`,
        ).toBe(true);
    }
  });

  it("selects by name across services, by service, and by read/write; --read-only keeps only reads", () => {
    const names = (toolsets: string[], extra = {}) => selectTools(catalogs, { toolsets, ...extra }).map((t) => t.name);
    expect(names(["api"]).sort()).toEqual([
      "contentsnare_api_call",
      "marketo_api_call",
      "trello_api_call",
      "worldnews_api_call",
    ]);
    expect(names(["trello.api"])).toEqual(["trello_api_call"]);
    const cards = names(["cards"]);
    expect(cards).toContain("trello_create_card");
    expect(names(["cards:read"]).every((n) => all.find((t) => t.name === n)!.annotations.readOnlyHint)).toBe(true);
    // Writes only, plus the read steps their "outcome unknown" advice names (served with them).
    const writes = names(["cards:write"]).map((n) => all.find((t) => t.name === n)!);
    const checks = new Set(writes.flatMap((t) => (t.check ? [t.check.step] : [])));
    expect(writes.every((t) => !t.annotations.readOnlyHint || checks.has(t.name))).toBe(true);
    expect(writes.some((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(names(["lists"]).filter((n) => n.startsWith("marketo_"))).toContain("marketo_get_lists");
    expect(
      names(["all"], { readOnly: true }).every((n) => all.find((t) => t.name === n)!.annotations.readOnlyHint),
    ).toBe(true);
    expect(names(["cards", "boards"], { services: ["trello"] }).length).toBeLessThan(25);
  });

  it("refuses a toolset or service that does not exist, listing the choices", () => {
    expect(() => selectTools(catalogs, { toolsets: ["cardz"] })).toThrow(SelectionError);
    expect(() => selectTools(catalogs, { toolsets: ["cardz"], services: ["trello"] })).toThrow(
      joinedPattern([
        /"cardz" matches no step of trello; the toolsets are /,
        /trello: cards, boards, lists, checklists, members, webhooks, api, all/,
      ]),
    );
    expect(() => selectTools(catalogs, { services: ["jira"] })).toThrow(
      /unknown service "jira".*contentsnare, marketo, trello, worldnews/,
    );
    expect(() => selectTools(catalogs, { toolsets: ["cards;drop"] })).toThrow(/is not a toolset name/);
  });

  it("stepforge mcp names the flag when a selection or the command line is wrong (exit 2)", async () => {
    const result = await runCli("mcp", "--toolsets", "nope", "--budget");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--toolsets "nope" matches no step/);
    const beyond = await runCli("mcp", "--http", "0", "--host", "0.0.0.0", "--service", "worldnews");
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toMatch(/beyond loopback.*STEPFORGE_MCP_TOKEN/);
    expect((await runCli("mcp", "--host", "127.0.0.1")).stderr).toMatch(/--host only applies with --http PORT/);
    expect((await runCli("mcp", "--base-url", "trello")).stderr).toMatch(/--base-url takes SERVICE=URL/);
    expect((await runCli("mcp", "--result-bytes", "10")).stderr).toMatch(/--result-bytes must be/);
    expect((await runCli("mcp", "--mock", "--connections", "x.json")).stderr).toMatch(
      /--mock uses the mocks' own accounts/,
    );
  });
});

describe("the context budget", () => {
  it(
    "default tools/list for all four services is at most 120,000 bytes, also with two " +
      "accounts per service; dynamic under 8,000",
    () => {
      expect(listingBytes(catalogs, {}, false)).toBeLessThanOrEqual(120_000);
      expect(listingBytes(catalogs, {}, true)).toBeLessThan(8_000);
      const twoEach: Array<[string, Account[]]> = catalogs.map((c) => [
        c.id,
        [
          { name: "work", context: { connection: { name: "work", fields: {} } } },
          { name: "personal", context: { connection: { name: "personal", fields: {} } } },
        ],
      ]);
      const twoAccounts = new StepforgeMcp({ catalogs, accounts: new Accounts(twoEach) });
      expect(Buffer.byteLength(JSON.stringify({ tools: twoAccounts.listTools() }))).toBeLessThanOrEqual(120_000);
    },
  );

  it("stepforge mcp --budget prints bytes and tokens per service and in total", async () => {
    const result = await runCli("mcp", "--budget");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^service\s+steps\s+default bytes\s+~tokens\s+dynamic bytes\s+~tokens$/m);
    expect(result.stdout).toMatch(/^all\s+80\s+\d+\s+\d+\s+\d+\s+\d+$/m);
  });
});

describe("results sized for a model", () => {
  const records = Array.from({ length: 500 }, (_, i) => ({
    id: `r${i}`,
    name: `record ${i}`,
    body: "x".repeat(200),
    nested: { a: i },
  }));

  it("cuts the records list at a record boundary within the budget and hands back the rest", () => {
    const shaped = shapeResult({ items: records, total: 500 }, { maxBytes: 10_000, recordsKey: "items" });
    expect(shaped.bytes).toBeLessThanOrEqual(10_000);
    const kept = (shaped.data as { items: unknown[] }).items;
    expect(kept.length).toBeGreaterThan(10);
    expect(shaped.cut).toMatchObject({ path: ["items"], returned: kept.length, total: 500 });
    expect([...kept, ...shaped.cut!.rest]).toEqual(records);
    expect((shaped.data as { total: number }).total).toBe(500);
  });

  it("selects fields (dotted too) before cutting, and reports fields no record has", () => {
    const shaped = shapeResult(
      { items: records },
      { maxBytes: 40_000, recordsKey: "items", fields: ["id", "nested.a", "missing"] },
    );
    expect(shaped.cut).toBeUndefined();
    expect((shaped.data as { items: unknown[] }).items[3]).toEqual({ id: "r3", nested: { a: 3 } });
    expect(shaped.unknownFields).toEqual(["missing"]);
    expect(selectFields({ __proto__x: 1, id: 1 }, ["id"])).toEqual({ id: 1 });
  });

  it(
    "cuts the longest list when the result has no declared records, and long strings when " + "one record is too big",
    () => {
      const board = { id: "b", name: "board", cards: records, labels: [{ id: "l" }] };
      const shaped = shapeResult(board, { maxBytes: 8_000 });
      expect(shaped.cut?.path).toEqual(["cards"]);
      expect(shaped.bytes).toBeLessThanOrEqual(8_000);
      const huge = shapeResult({ text: "y".repeat(100_000) }, { maxBytes: 5_000 });
      expect(huge.bytes).toBeLessThanOrEqual(5_000);
      expect(huge.stringsCut).toBe(true);
      expect((huge.data as { text: string }).text).toMatch(/…\[cut\]$/);
    },
  );

  it(
    "a record too wide to show even with cut strings becomes a preview, and the note does " + "not call it records",
    async () => {
      // 400 small values per record: cutting long strings cannot bring one record under the budget.
      const wide = (n: number) => Object.fromEntries(Array.from({ length: 400 }, (_, k) => [`field${k}`, n]));
      const shaped = shapeResult({ items: [wide(1), wide(2)] }, { maxBytes: 2_000, recordsKey: "items" });
      expect(shaped.preview).toBe(true);
      expect(Object.keys(shaped.data as object)).toEqual(["preview", "note"]);
      expect(shaped.cut).toMatchObject({ returned: 1, total: 2 });

      const cursors = new CursorStore();
      const mcp = new StepforgeMcp({ catalogs, accounts: new Accounts([]), resultBytes: 2_000, cursors });
      const cursor = cursors.put(
        { tool: "trello_get_list_cards", path: ["items"], records: [wide(1), wide(2)], offset: 0, total: 2 },
        0,
      );
      const result = await mcp.callTool(CONTINUE_TOOL, { cursor });
      const note = (result.content as Array<{ text: string }>)[1]!.text;
      expect(note).toMatch(
        joinedPattern([
          /^Result cut to stay under 2000 bytes: "preview" /,
          /holds only the start of the JSON text of record 1 of 2, too large to show whole\. /,
          /For the next records call continue_result/,
        ]),
      );
      expect(note).not.toMatch(/holds records/);
    },
  );

  it("finds the records key of every list step from its output schema", () => {
    const key = (name: string) => recordsKeyOf(canonicalSchema(all.find((t) => t.name === name)!.output, "output"));
    expect(key("trello_get_board_cards")).toBe("items");
    expect(key("marketo_get_leads")).toBe("result");
    expect(key("worldnews_search_news")).toBe("news");
    expect(key("trello_get_card")).toBeUndefined();
  });

  it("the cursor store forgets old and expired entries", () => {
    let now = 0;
    const store = new CursorStore({ maxEntries: 2, ttlMs: 1000, now: () => now });
    const a = store.put({ tool: "t", path: ["items"], records: [1], offset: 1, total: 2 }, 10);
    const b = store.put({ tool: "t", path: ["items"], records: [2], offset: 1, total: 2 }, 10);
    store.put({ tool: "t", path: ["items"], records: [3], offset: 1, total: 2 }, 10);
    expect(store.take(a)).toBeUndefined();
    now = 2000;
    expect(store.take(b)).toBeUndefined();
    expect(store.size).toBe(0);
  });
});

describe("step descriptions", () => {
  it("a step that narrows its operation does not describe the operation's other fields", () => {
    const byName = (n: string) => all.find((t) => t.name === n)!;
    // trello_archive_card offers only `id` (closed is fixed); updateCard's text about idList and due is not its to
    // give.
    expect(byName("trello_archive_card").description).not.toMatch(/idList|due/);
    expect(byName("trello_archive_card").description).toMatch(/^Archive \(close\) a card/);
    // The full step keeps the operation's description.
    expect(byName("trello_update_card").description).toMatch(/Setting `idList` moves the card/);
  });

  it("an API Call step's body names only the methods the step accepts", () => {
    const body = (n: string) =>
      (
        exportTools([all.find((t) => t.name === n)!], "mcp").tools[0] as unknown as {
          inputSchema: { properties: Record<string, { description?: string }> };
        }
      ).inputSchema.properties.body!.description;
    expect(body("trello_api_call")).toContain("for POST, PUT and DELETE when");
    expect(body("marketo_api_call")).toContain("for POST and DELETE when");
  });
});
