/**
 * Every tool step exported for OpenAI (strict), Anthropic and MCP, checked against the provider
 * rules by real checker functions (which are themselves tested on known-bad schemas) and, for MCP,
 * by the MCP SDK's own zod schemas.
 */
import { ListToolsResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  anthropicViolations,
  canonicalSchema,
  exportTools,
  mcpViolations,
  openaiStrictSchema,
  openaiStrictViolations,
  toAnthropic,
  toMcp,
  toOpenAI,
  type ToolDefinition,
} from "../../runtime/tools/index.js";
import { tools as contentsnare } from "../../generated/contentsnare/tools.js";
import { tools as marketo } from "../../generated/marketo/tools.js";
import { tools as trello } from "../../generated/trello/tools.js";
import { tools as worldnews } from "../../generated/worldnews/tools.js";
import { descriptor as marketoDescriptor } from "../../generated/marketo/descriptor.js";
import { descriptor as trelloDescriptor } from "../../generated/trello/descriptor.js";

const all: ToolDefinition[] = [...contentsnare, ...marketo, ...trello, ...worldnews];
const byName = new Map(all.map((t) => [t.name, t]));

const ISSUE_STEPS = [
  "marketo_api_call",
  "trello_create_card",
  "trello_update_card",
  "trello_get_card",
  "trello_archive_card",
  "trello_get_boards",
  "trello_get_list_cards",
  "trello_create_list",
  "trello_add_comment_to_card",
  "trello_add_comment",
  "trello_add_checklist",
  "trello_create_checklist_item",
  "trello_api_call",
  "worldnews_search_news",
  "worldnews_extract_news",
  "worldnews_get_geo_coordinates",
  "worldnews_api_call",
  "contentsnare_create_client",
  "contentsnare_create_request",
  "contentsnare_api_call",
];

describe("the catalogue", () => {
  it("has every step the issue names", () => {
    for (const name of ISSUE_STEPS) expect(byName.has(name), name).toBe(true);
  });

  it("has a step for every operation except the declared skips, with unique, valid names", () => {
    const names = all.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of all) {
      expect(t.name).toMatch(/^[a-z0-9_]{1,64}$/);
      expect(t.name.startsWith(`${t.service}_`)).toBe(true);
    }
    const skipped = ["getAccessToken", "getTokenWebhooks", "exchangeToken"];
    for (const tools of [contentsnare, marketo, trello, worldnews]) {
      const descriptor = tools[0]!.descriptor;
      const covered = new Set(tools.flatMap((t) => (t.kind === "operation" ? [t.operationId] : [])));
      for (const id of Object.keys(descriptor.operations))
        if (!skipped.includes(id)) expect(covered.has(id), `${descriptor.id}.${id}`).toBe(true);
      expect(tools.filter((t) => t.kind === "api_call")).toHaveLength(1);
    }
    expect(Object.keys(marketoDescriptor.operations).length - 1).toBeLessThanOrEqual(
      marketo.filter((t) => t.kind === "operation").length,
    );
  });

  it("derives hints from the method and the spec's overrides", () => {
    expect(byName.get("trello_get_card")!.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.get("trello_delete_card")!.annotations.destructiveHint).toBe(true);
    expect(byName.get("trello_create_card")!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get("trello_archive_card")!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get("marketo_remove_leads_from_list")!.annotations.destructiveHint).toBe(true);
  });

  it("keeps the connection out of every input schema", () => {
    for (const t of all)
      for (const key of Object.keys(t.input.shape))
        expect(key).not.toMatch(/^(connection|apiKey|token|accessToken|clientSecret|key)$/);
  });

  it("offers the seed's API Call fields and methods per service", () => {
    const fields = (name: string) => Object.keys(byName.get(name)!.input.shape).sort();
    expect(fields("marketo_api_call")).toEqual(["body", "endpoint", "method", "query_parameters"]);
    expect(fields("worldnews_api_call")).toEqual(["endpoint", "method", "params"]);
    expect(fields("trello_api_call")).toEqual(["body", "endpoint", "method", "query_parameters"]);
    const methods = (name: string) => (byName.get(name)!.input.shape.method as z.ZodEnum).options;
    expect(methods("marketo_api_call")).toEqual(["GET", "POST", "DELETE"]);
    expect(methods("trello_api_call")).toEqual(["GET", "POST", "PUT", "DELETE"]);
    expect(methods("worldnews_api_call")).toEqual(["GET", "POST"]);
    expect(methods("contentsnare_api_call")).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
  });

  it("describes steps and fields for a model", () => {
    for (const t of all) {
      expect(t.description.length, t.name).toBeGreaterThan(20);
      const schema = canonicalSchema(t.input, "input") as { properties: Record<string, { description?: string }> };
      for (const [field, prop] of Object.entries(schema.properties))
        expect(prop.description, `${t.name}.${field}`).toBeTruthy();
    }
    expect(trelloDescriptor.id).toBe("trello");
  });
});

describe("OpenAI strict export", () => {
  const exported = exportTools(all, "openai");

  it("every strict tool passes the strict-mode rules", () => {
    for (const tool of exported.tools as Array<{
      type: string;
      function: { name: string; strict: boolean; parameters: unknown };
    }>) {
      expect(tool.type).toBe("function");
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      if (tool.function.strict)
        expect(openaiStrictViolations(tool.function.parameters), tool.function.name).toEqual([]);
    }
  });

  it("only steps with a free-form map fall back to strict: false, with the reason", () => {
    const names = exported.nonStrict.map((n) => n.name).sort();
    for (const name of names) expect(name === "marketo_sync_leads" || name.endsWith("_api_call"), name).toBe(true);
    for (const n of exported.nonStrict) expect(n.reasons.join(" ")).toMatch(/free-form/);
    expect(exported.tools.length - exported.nonStrict.length).toBeGreaterThan(70);
  });

  it("non-strict fallbacks still satisfy the portable rules", () => {
    for (const t of all) {
      const { tool } = toOpenAI(t);
      const p = tool.function.parameters as Record<string, unknown>;
      expect(p.type).toBe("object");
      expect(p.anyOf ?? p.oneOf ?? p.allOf).toBeUndefined();
      expect(JSON.stringify(p)).not.toContain("$ref");
    }
  });

  it("makes optional fields required-with-null", () => {
    const p = toOpenAI(byName.get("trello_create_card")!).tool.function.parameters as {
      required: string[];
      properties: Record<string, { type?: unknown; anyOf?: unknown[] }>;
    };
    expect(p.required).toContain("name");
    expect(p.properties.name!.type).toEqual(["string", "null"]);
    expect(p.properties.pos!.anyOf).toContainEqual({ type: "null" });
  });
});

describe("the strict-rule checker finds bad schemas", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["a top-level union", { anyOf: [{ type: "object" }, { type: "string" }] }, /root must be/],
    [
      "an optional property",
      { type: "object", properties: { a: { type: "string" } }, required: [], additionalProperties: false },
      /required/,
    ],
    [
      "missing additionalProperties",
      { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      /additionalProperties/,
    ],
    [
      "a nested open object",
      {
        type: "object",
        properties: { a: { type: "object", properties: {}, required: [] } },
        required: ["a"],
        additionalProperties: false,
      },
      /additionalProperties/,
    ],
    [
      "a $ref",
      { type: "object", properties: { a: { $ref: "#/$defs/x" } }, required: ["a"], additionalProperties: false },
      /\$ref/,
    ],
    [
      "allOf",
      {
        type: "object",
        properties: { a: { allOf: [{ type: "string" }, { type: "string" }] } },
        required: ["a"],
        additionalProperties: false,
      },
      /allOf/,
    ],
    [
      "an unsupported format",
      {
        type: "object",
        properties: { a: { type: "string", format: "uri" } },
        required: ["a"],
        additionalProperties: false,
      },
      /format/,
    ],
    [
      "a default",
      {
        type: "object",
        properties: { a: { type: "string", default: "x" } },
        required: ["a"],
        additionalProperties: false,
      },
      /default/,
    ],
  ];
  it.each(cases)("%s", (_label, schema, rule) => {
    const found = openaiStrictViolations(schema);
    expect(found.map((v) => v.rule).join("\n")).toMatch(rule);
  });

  it("converts a zod record to a flagged fallback, and a plain object to a strict schema", () => {
    const free = openaiStrictSchema(canonicalSchema(z.strictObject({ m: z.record(z.string(), z.string()) }), "input"));
    expect(free.strict).toBe(false);
    expect(free.reasons[0]).toMatch(/m is a free-form object/);
    const fine = openaiStrictSchema(
      canonicalSchema(z.strictObject({ a: z.string().optional(), b: z.object({ c: z.number().optional() }) }), "input"),
    );
    expect(fine.strict).toBe(true);
    expect(openaiStrictViolations(fine.schema)).toEqual([]);
  });

  it("the anthropic and mcp checkers flag bad tools", () => {
    expect(
      anthropicViolations({ name: "bad.name", description: "", input_schema: { oneOf: [] } })
        .map((v) => v.rule)
        .join("\n"),
    ).toMatch(/name must match[\s\S]*type: "object"[\s\S]*oneOf[\s\S]*description/);
    expect(
      anthropicViolations({
        name: "x",
        description: "d",
        input_schema: { type: "object", properties: { a: { $ref: "#/x" } } },
      })
        .map((v) => v.rule)
        .join(),
    ).toMatch(/\$ref/);
    expect(
      mcpViolations({
        name: "x",
        title: "X",
        description: "d",
        inputSchema: { type: "object" },
        outputSchema: { type: "array" },
        annotations: { readOnlyHint: true },
      })
        .map((v) => v.rule)
        .join("\n"),
    ).toMatch(/outputSchema root[\s\S]*must be a boolean/);
  });
});

describe("Anthropic export", () => {
  it("every tool passes", () => {
    const { tools } = exportTools(all, "anthropic");
    for (const t of tools) expect(anthropicViolations(t), (t as { name: string }).name).toEqual([]);
    expect(toAnthropic(byName.get("trello_add_comment")!).description).toMatch(
      /Deprecated: use trello_add_comment_to_card/,
    );
  });
});

describe("MCP export", () => {
  const { tools } = exportTools(all, "mcp");

  it("every tool passes our rules and the MCP SDK's Tool schema", () => {
    for (const t of tools) {
      expect(mcpViolations(t), (t as { name: string }).name).toEqual([]);
      const parsed = ToolSchema.safeParse(t);
      expect(parsed.success, (t as { name: string }).name).toBe(true);
    }
  });

  it("the whole list parses as a tools/list result (one bad tool would lose them all)", () => {
    const parsed = ListToolsResultSchema.safeParse({ tools });
    expect(parsed.success).toBe(true);
    if (parsed.success) expect(parsed.data.tools).toHaveLength(all.length);
  });

  it("carries title, object output schema and hints", () => {
    const t = toMcp(byName.get("trello_get_list_cards")!);
    expect(t.title).toBe("Get list cards");
    expect(t.outputSchema.type).toBe("object");
    expect((t.outputSchema.properties as Record<string, { type: string }>).items!.type).toBe("array");
    expect(t.annotations).toEqual({
      title: "Get list cards",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });
});

describe("determinism", () => {
  it("exports the same JSON twice", () => {
    expect(JSON.stringify(exportTools(all, "mcp"))).toBe(JSON.stringify(exportTools(all, "mcp")));
    expect(JSON.stringify(exportTools(all, "openai"))).toBe(JSON.stringify(exportTools(all, "openai")));
  });
});
