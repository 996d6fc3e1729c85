/**
 * The MCP listing's cost grows with the number of steps and the size of their shared schemas, not
 * with the size those schemas would have inlined. Public specs share schemas everywhere (Stripe's
 * records reach ~2,800 component schemas from any response): converted and inlined one step at a
 * time, 452 steps took 82 s to list. Counted in schema nodes handled (`schemaWork`), not in time.
 *
 * The synthetic catalogue: every step's result is a list of records whose schema is a "diamond"
 * chain, each level an object holding the level below twice. Twelve levels are 4,096 leaves once
 * inlined, and a few dozen schemas shared.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { descriptor } from "../../generated/worldnews/descriptor.js";
import { Accounts, StepforgeMcp, type ServiceCatalog } from "../../runtime/mcp/index.js";
import {
  defineOperationTool,
  exportTools,
  ToolSchemas,
  type SchemaWork,
  type ToolDefinition,
} from "../../runtime/tools/index.js";

const LEVELS = 12;

function diamond(levels: number): z.ZodType {
  let node: z.ZodType = z.object({ leaf: z.string().describe("A leaf.") });
  for (let i = 0; i < levels; i++) node = z.object({ left: node, right: node }).describe(`Level ${i + 1}.`);
  return node;
}

function catalogue(steps: number, levels = LEVELS): ServiceCatalog {
  const record = diamond(levels);
  const tools: ToolDefinition[] = Array.from({ length: steps }, (_, i) =>
    defineOperationTool({
      name: `worldnews_synthetic_${i}`,
      operationId: `synthetic${i}`,
      title: `Synthetic ${i}`,
      description: `Lists synthetic records (${i}).`,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      descriptor,
      input: z.strictObject({ query: z.string().describe("What to find."), limit: z.number().int().optional() }),
      output: z.object({ items: z.array(record), total: z.number() }),
      outputWrap: "none",
      handler: async () => ({ items: [], total: 0 }),
    }),
  );
  return { id: "worldnews", title: "World News", tools, toolsets: [] };
}

function listingWork(steps: number, levels = LEVELS): { work: number; bytes: number; server: StepforgeMcp } {
  const schemaWork: SchemaWork = { nodes: 0 };
  const server = new StepforgeMcp({ catalogs: [catalogue(steps, levels)], accounts: new Accounts([]), schemaWork });
  const bytes = Buffer.byteLength(JSON.stringify({ tools: server.listTools() }));
  return { work: schemaWork.nodes, bytes, server };
}

describe("the MCP listing's work", () => {
  it("grows linearly with the number of steps", () => {
    const small = listingWork(20);
    const large = listingWork(80);
    // Four times the steps: about four times the work (the shared schemas are converted once).
    expect(large.work).toBeLessThanOrEqual(4 * small.work);
    expect(large.work - small.work).toBeLessThan(60 * 200);
  });

  it("does not inline the result schemas it only needs the top of (4,096 leaves each here)", () => {
    const { work, server } = listingWork(20);
    expect(work).toBeLessThan(20_000);
    // The listing still knows each step's records (its stepforge_result_fields input).
    const listed = server.listTools().find((t) => t.name === "worldnews_synthetic_0")!;
    expect(Object.keys(listed.inputSchema.properties as object)).toEqual(["query", "limit", "stepforge_result_fields"]);
  });

  it("describes a step's result two levels deep without building the rest", async () => {
    const schemaWork: SchemaWork = { nodes: 0 };
    const server = new StepforgeMcp({
      catalogs: [catalogue(5)],
      accounts: new Accounts([]),
      dynamic: true,
      schemaWork,
    });
    const before = schemaWork.nodes;
    const described = await server.callTool("describe_step", { name: "worldnews_synthetic_3" });
    const body = JSON.parse((described.content[0] as { text: string }).text) as { result: Record<string, unknown> };
    expect(schemaWork.nodes - before).toBeLessThan(200);
    const pruned = { type: "object", additionalProperties: true, description: `Level ${LEVELS - 1}.` };
    expect(body.result).toMatchObject({
      type: "object",
      properties: {
        items: {
          type: "array",
          items: { description: `Level ${LEVELS}.`, properties: { left: pruned, right: pruned } },
        },
      },
    });
  });

  it("gives the same schemas as converting each step alone (the book changes cost, not content)", () => {
    const tools = catalogue(3, 4).tools;
    const book = new ToolSchemas(tools);
    const alone = exportTools([tools[1]!], "mcp").tools[0];
    const together = exportTools(tools, "mcp").tools[1];
    expect(together).toEqual(alone);
    expect(book.output(tools[1]!, 1)).toEqual({
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", additionalProperties: true, description: "Level 4." } },
        total: { type: "number" },
      },
      required: ["items", "total"],
      additionalProperties: false,
    });
  });
});
