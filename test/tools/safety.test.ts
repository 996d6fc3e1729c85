/**
 * Path and input safety for every step of every service, at each level it is enforced:
 * - the service client refuses a path parameter that is `.`, `..` (in any encoding) or empty for
 *   every operation with a path parameter, before anything is sent;
 * - every step refuses such a value in each field that fills a path parameter, naming the field;
 * - every step refuses input nested deeper than 32 levels or over 1 MiB, naming the field, before
 *   validation (a 40,000-level body is a clear error, not a stack overflow);
 * - and the same through the MCP server's tool calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient, StepforgeError, UNSAFE_PATH_VALUE } from "../../runtime/index.js";
import { executeTool, type ToolDefinition } from "../../runtime/tools/index.js";
import { Accounts, StepforgeMcp } from "../../runtime/mcp/index.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import "../../generated/trello/mock.js";
import { LIST } from "../mock/helpers.js";
import { CONNECTIONS, countingFetch, deep, DOT_VALUES, pathFields, validInput } from "./safety-helpers.js";

/** Nothing listens there: a refused input that were sent anyway would be counted, then fail to connect. */
const BASE = "http://127.0.0.1:9";
const catalogs = await loadCatalogs();
const tools: ToolDefinition[] = catalogs.flatMap((c) => [...c.tools]);
/** Trello's behavioural mock: where the inputs that pass the guards are sent. */
let trello: RunningMock;
beforeAll(async () => {
  trello = await startMock("trello");
});
afterAll(() => trello?.close());

/** The input passed the guards: the step succeeded on its one request, which reached the mock as `operationId`. */
function expectSentOnce(result: { ok: boolean }, spy: ReturnType<typeof countingFetch>, operationId: string): void {
  expect(result.ok, JSON.stringify(result)).toBe(true);
  expect(spy.count()).toBe(1);
  expect(trello.counters().byOperation[operationId]).toBe(1);
}

describe("path parameters", () => {
  it(
    "the client refuses dot segments and empty values for every operation with a path " + "parameter, sending nothing",
    async () => {
      let checked = 0;
      for (const catalog of catalogs) {
        const descriptor = catalog.tools[0]!.descriptor;
        const spy = countingFetch();
        const client = createServiceClient(descriptor, {
          connection: CONNECTIONS[catalog.id]!,
          baseUrl: BASE,
          fetch: spy.fetch,
          retry: { attempts: 0 },
        });
        for (const op of Object.values(descriptor.operations)) {
          const params = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
          for (const param of params) {
            for (const bad of DOT_VALUES) {
              const path = Object.fromEntries(params.map((p) => [p, p === param ? bad : "abc123"]));
              const error = await client.call(op.operationId, { params: { path } }).then(
                () => undefined,
                (e: unknown) => e,
              );
              expect(error, `${op.operationId} ${param}=${JSON.stringify(bad)}`).toBeInstanceOf(StepforgeError);
              expect((error as StepforgeError).code).toBe(UNSAFE_PATH_VALUE);
              expect((error as StepforgeError).message).toContain(`"${param}"`);
              checked++;
            }
          }
        }
        expect(spy.count(), catalog.id).toBe(0);
      }
      expect(checked).toBeGreaterThan(400);
    },
  );

  it(
    "every step refuses them in each field that fills a path parameter, naming the field, " + "before sending",
    async () => {
      const spy = countingFetch();
      let steps = 0;
      for (const tool of tools) {
        const fields = await pathFields(tool);
        if (fields.length === 0) continue;
        steps++;
        const base = validInput(tool);
        for (const field of fields) {
          for (const bad of DOT_VALUES) {
            const result = await executeTool(
              tool,
              { ...base, [field]: bad },
              { connection: CONNECTIONS[tool.service]!, baseUrl: BASE, fetch: spy.fetch, retry: { attempts: 0 } },
            );
            expect(result.ok, `${tool.name}.${field}=${JSON.stringify(bad)}`).toBe(false);
            if (!result.ok) {
              expect(result.error.kind, `${tool.name}.${field}=${JSON.stringify(bad)}: ${result.error.message}`).toBe(
                "invalid_input",
              );
              expect(
                result.error.fields.map((f) => f.path),
                `${tool.name}.${field}=${JSON.stringify(bad)}`,
              ).toContain(field);
            }
          }
        }
      }
      expect(steps).toBeGreaterThan(40);
      expect(spy.count()).toBe(0);
    },
  );

  it("a good value still goes out (the guard is not refusing everything)", async () => {
    const spy = countingFetch();
    const getMember = tools.find((t) => t.name === "trello_get_member")!;
    const result = await executeTool(
      getMember,
      { id: "me" },
      { connection: CONNECTIONS.trello!, baseUrl: trello.url, fetch: spy.fetch, retry: { attempts: 0 } },
    );
    expectSentOnce(result, spy, "getMember");
  });
});

describe("input depth and size caps", () => {
  it("every step refuses input deeper than 32 levels or over 1 MiB, naming the field, before sending", async () => {
    const spy = countingFetch();
    const values = [
      [deep(40), /nests deeper than 32 levels/],
      [deep(40_000), /nests deeper than 32 levels/],
      ["x".repeat(1_100_000), /larger than 1048576 bytes/],
      [Array.from({ length: 300_000 }, () => 1), /larger than 1048576 bytes/],
    ] as const;
    for (const tool of tools) {
      const base = validInput(tool);
      const field = Object.keys(tool.input.shape)[0] ?? "extra";
      const context = {
        connection: CONNECTIONS[tool.service]!,
        baseUrl: BASE,
        fetch: spy.fetch,
        retry: { attempts: 0 },
      };
      for (const [value, pattern] of values) {
        const result = await executeTool(tool, { ...base, [field]: value }, context);
        expect(result.ok, tool.name).toBe(false);
        if (!result.ok) {
          expect(result.error.kind, tool.name).toBe("invalid_input");
          expect(result.error.fields[0], tool.name).toMatchObject({
            path: field,
            message: expect.stringMatching(pattern),
          });
        }
      }
    }
    expect(spy.count()).toBe(0);
  });

  it("an API Call body 40,000 levels deep or 10 MB large is refused with the field named", async () => {
    const spy = countingFetch();
    const apiCall = tools.find((t) => t.name === "trello_api_call")!;
    const context = { connection: CONNECTIONS.trello!, baseUrl: BASE, fetch: spy.fetch, retry: { attempts: 0 } };
    const deepBody = await executeTool(
      apiCall,
      { method: "POST", endpoint: "/1/cards", body: deep(40_000) as Record<string, unknown> },
      context,
    );
    expect(deepBody).toMatchObject({
      ok: false,
      error: { kind: "invalid_input", fields: [{ path: "body", message: expect.stringMatching(/deeper than 32/) }] },
    });
    const bigBody = await executeTool(
      apiCall,
      { method: "POST", endpoint: "/1/cards", body: { desc: "x".repeat(10_000_000) } },
      context,
    );
    expect(bigBody).toMatchObject({
      ok: false,
      error: { kind: "invalid_input", fields: [{ path: "body", message: expect.stringMatching(/larger than/) }] },
    });
    // Within the caps it is sent (to the mock).
    const fine = await executeTool(
      apiCall,
      { method: "POST", endpoint: "/1/cards", body: { idList: LIST, name: "Deep", extra: deep(19) } },
      { ...context, baseUrl: trello.url },
    );
    expectSentOnce(fine, spy, "createCard");
  });
});

describe("through the MCP server", () => {
  it("every step's path fields and the caps are refused as isError results naming the field", async () => {
    const spy = countingFetch();
    const accounts = new Accounts(
      catalogs.map((c) => [
        c.id,
        [
          {
            name: "only",
            context: { connection: CONNECTIONS[c.id]!, baseUrl: BASE, fetch: spy.fetch, retry: { attempts: 0 } },
          },
        ],
      ]),
    );
    const mcp = new StepforgeMcp({ catalogs, accounts });
    for (const tool of tools) {
      const base = validInput(tool);
      const expectRefused = async (input: Record<string, unknown>, field: string, label: string) => {
        const result = await mcp.callTool(tool.name, input);
        expect(result.isError, `${tool.name} ${label}`).toBe(true);
        const error = JSON.parse((result.content[0] as { text: string }).text) as {
          kind: string;
          fields: Array<{ path: string }>;
        };
        expect(error.kind, `${tool.name} ${label}`).toBe("invalid_input");
        expect(
          error.fields.map((f) => f.path),
          `${tool.name} ${label}`,
        ).toContain(field);
      };
      for (const field of await pathFields(tool))
        for (const bad of [".", "..", "%2e%2e", "．．"])
          await expectRefused({ ...base, [field]: bad }, field, `${field}=${bad}`);
      const field = Object.keys(tool.input.shape)[0] ?? "extra";
      await expectRefused({ ...base, [field]: deep(50) }, field, "deep");
      await expectRefused({ ...base, [field]: "x".repeat(1_100_000) }, field, "large");
    }
    expect(spy.count()).toBe(0);
  });
});
