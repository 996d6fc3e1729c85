/**
 * `stepforge mcp` continues the trace an MCP client names in a request's `_meta.traceparent`
 * (W3C Trace Context): the tool call's span is a child of the client's span, in the client's trace.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { Accounts, startMockAccounts, StepforgeMcp, type MockAccounts } from "../../runtime/mcp/index.js";
import { CARD } from "../mock/helpers.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("stepforge-test");
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

describe("stepforge mcp and a client's traceparent", () => {
  let mocks: MockAccounts;
  let client: Client;
  beforeAll(async () => {
    const catalogs = (await loadCatalogs()).filter((c) => c.id === "trello");
    mocks = await startMockAccounts(catalogs);
    const accounts = new Accounts(
      mocks.accounts.map(([service, list]) => [
        service,
        list.map((a) => ({ name: a.name, context: { ...a.context, callLog: false as const, tracing: { tracer } } })),
      ]),
    );
    const server = new StepforgeMcp({ catalogs, accounts }).createServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "stepforge-test", version: "1.0.0" });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await mocks?.close();
    await provider.shutdown();
  });

  it("parents the tool call's span on the client's span", async () => {
    const result = await client.callTool({
      name: "trello_get_card",
      arguments: { id: CARD },
      _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
    });
    expect(result.isError).toBeFalsy();
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((s) => s.name === "execute_tool trello_get_card")!;
    expect(tool.spanContext().traceId).toBe(TRACE_ID);
    expect(tool.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: CLIENT_SPAN, isRemote: true });
    // The operation call and its attempt follow in the same trace.
    const call = spans.find((s) => s.name === "trello getCard")!;
    expect(call.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    expect(spans.filter((s) => s.spanContext().traceId === TRACE_ID).length).toBe(3);
  });

  it("starts a new trace without one, and for a malformed one", async () => {
    exporter.reset();
    await client.callTool({ name: "trello_get_card", arguments: { id: CARD } });
    await client.callTool({ name: "trello_get_card", arguments: { id: CARD }, _meta: { traceparent: "00-zz-01" } });
    const tools = exporter.getFinishedSpans().filter((s) => s.name === "execute_tool trello_get_card");
    expect(tools).toHaveLength(2);
    for (const t of tools) {
      expect(t.parentSpanContext).toBeUndefined();
      expect(t.spanContext().traceId).not.toBe(TRACE_ID);
    }
  });
});
