/**
 * Traces from the pipeline's observer events, exported by the OpenTelemetry SDK's in-memory
 * exporter: a Marketo tool call against the behavioural mock whose first attempt gets a 503 (a
 * seeded fault) and whose OAuth token is renewed (a two-second token lifetime), then a scan of
 * every exported span for the client secret and the access tokens the mock issued.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
// The observability layer (tracing, metrics, validate) is an explicit import, as in an application.
import "../../runtime/observe/index.js";
import * as z from "zod";
import { descriptor as marketoDescriptor } from "../../generated/marketo/descriptor.js";
import { marketoGetLeads } from "../../generated/marketo/tools.js";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { contextFromTraceparent, hashConnection, otelApi } from "../../runtime/observe/otel.js";
import { defineOperationTool, executeTool, type ToolContext } from "../../runtime/tools/index.js";
import { MARKETO } from "../mock/helpers.js";
import { textMarker } from "../reliability/markers.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("stepforge-test");
const open: RunningMock[] = [];

afterAll(async () => {
  for (const m of open) await m.close();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentOf(s) === parent.spanContext().spanId);

/** Every access token the mock hands out, read off the token endpoint's answers. */
function recordingFetch(tokens: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (String(input instanceof Request ? input.url : input).includes("/identity/oauth/token")) {
      const body = (await response.clone().json()) as { access_token?: string };
      if (body.access_token) tokens.push(body.access_token);
    }
    return response;
  };
}

describe("tracing a tool call", () => {
  it("spans per tool call, operation call and attempt; retry and token renewals as events; no secret", async () => {
    const secret = textMarker("marketo.clientSecret");
    const mock = await startMock("marketo", {
      auth: { credentials: { clientId: MARKETO.clientId, clientSecret: secret.value }, tokenLifetimeSeconds: 2 },
      faults: { seed: 12, error: { rate: 0.5, statuses: [503] }, operations: ["getLeads"] },
    });
    open.push(mock);
    const tokens: string[] = [];
    const context: ToolContext = {
      connection: { name: "acme-marketing", fields: { ...MARKETO, clientSecret: secret.value } },
      baseUrl: mock.url,
      shared: createSharedState(),
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      fetch: recordingFetch(tokens),
      callLog: false,
      tracing: { tracer },
    };
    const input = { filterType: "email", filterValues: ["ada@example.com"] };
    const first = await executeTool(marketoGetLeads, input, context);

    expect(first.ok).toBe(true);
    // A two-second token is due for renewal a second before it lapses (less than a minute of life:
    // renewed a moment before it ends, at most a second).
    await new Promise((r) => setTimeout(r, 1100));
    const second = await executeTool(marketoGetLeads, input, context);
    expect(second.ok).toBe(true);

    const spans = exporter.getFinishedSpans();
    const tools = spans.filter((s) => s.name === "execute_tool marketo_get_leads");
    expect(tools).toHaveLength(2);
    const [tool] = tools;
    expect(parentOf(tool!)).toBeUndefined();
    expect(tool!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "marketo_get_leads",
      "stepforge.service": "marketo",
      "stepforge.connection.hash": hashConnection("marketo", "acme-marketing"),
      "stepforge.outcome": "ok",
    });

    const [call] = childrenOf(spans, tool!);
    expect(call!.name).toBe("marketo getLeads");
    expect(call!.spanContext().traceId).toBe(tool!.spanContext().traceId);
    expect(call!.attributes).toMatchObject({
      "stepforge.service": "marketo",
      "stepforge.operation": "getLeads",
      "stepforge.outcome": "ok",
      "stepforge.attempts": 2,
      "stepforge.retries": 1,
      "http.response.status_code": 200,
    });
    // By start time, seconds then nanoseconds (the two attempts may straddle a second).
    const attempts = childrenOf(spans, call!).sort(
      (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
    );
    expect(attempts.map((a) => a.name)).toEqual(["GET /rest/v1/leads.json", "GET /rest/v1/leads.json"]);
    const port = Number(new URL(mock.url).port);
    expect(attempts[0]!.attributes).toEqual({
      "http.request.method": "GET",
      "url.template": "/rest/v1/leads.json",
      "server.address": "127.0.0.1",
      "server.port": port,
      "http.response.status_code": 503,
      "error.type": "server",
    });
    expect(attempts[0]!.status.code).toBe(otelApi()!.SpanStatusCode.ERROR);
    expect(attempts[1]!.attributes).toMatchObject({ "http.request.resend_count": 1, "http.response.status_code": 200 });
    expect(attempts[1]!.attributes["error.type"]).toBeUndefined();

    // (On a slow machine the resend may already need the renewed token: a third event.)
    const eventNames = call!.events.map((e) => e.name);
    expect(eventNames.slice(0, 2)).toEqual(["stepforge.token", "stepforge.retry"]);
    expect(call!.events[0]!.attributes).toMatchObject({ "stepforge.token.action": "fetched" });
    expect(call!.events[1]!.attributes).toMatchObject({
      "stepforge.retry.attempt": 1,
      "stepforge.retry.reason": "status 503",
    });

    // The second tool call renewed the token (the first one's had gone stale).
    const [secondCall] = childrenOf(spans, tools[1]!);
    expect(secondCall!.events.map((e) => e.name)).toContain("stepforge.token");
    expect(tokens.length).toBeGreaterThanOrEqual(2);

    const exported = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    for (const value of [secret.value, secret.tail, ...tokens]) expect(exported).not.toContain(value);
  });

  it("an operation call without a tool is a root span; tracing: false and no option trace nothing", async () => {
    const credentials = { clientId: MARKETO.clientId, clientSecret: MARKETO.clientSecret };
    const mock = await startMock("marketo", { auth: { credentials } });
    open.push(mock);
    const connection = { name: "m", fields: { ...MARKETO } };
    const options = { connection, baseUrl: mock.url, shared: createSharedState() };
    await createServiceClient(marketoDescriptor, { ...options, tracing: { tracer } }).call("getLeads", {
      params: { query: { filterType: "email", filterValues: ["x@example.com"] } },
    });
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === "marketo getLeads")!;
    expect(parentOf(call)).toBeUndefined();
    // The token request is no attempt of the call: one attempt span, a child of the call.
    expect(spans.filter((s) => parentOf(s) === call.spanContext().spanId)).toHaveLength(1);
    exporter.reset();
    for (const tracing of [false, undefined]) {
      await createServiceClient(marketoDescriptor, { ...options, tracing }).call("getLeads", {
        params: { query: { filterType: "email", filterValues: ["x@example.com"] } },
      });
    }
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("a tool's calls nest under its span without AsyncLocalStorage; pages, a caller's client still nest", async () => {
    const mock = await startMock("marketo", {
      auth: { credentials: { clientId: MARKETO.clientId, clientSecret: MARKETO.clientSecret } },
    });
    open.push(mock);
    const query = { params: { query: { filterType: "email", filterValues: ["x@example.com"] } } };
    // A hand-written step: a call after an await, then the first page of a paged operation.
    const step = defineOperationTool({
      name: "marketo_two_reads",
      operationId: "getLeads",
      title: "Two reads",
      description: "Reads leads twice.",
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      descriptor: marketoDescriptor,
      input: z.object({ paged: z.boolean() }),
      output: z.object({ ok: z.boolean() }),
      outputWrap: "none",
      handler: async (client, input) => {
        await new Promise((resolve) => setImmediate(resolve));
        await client.call("getLeads", query);
        if (input.paged) for await (const _page of client.pages("getLeads", query)) break;
        return { ok: true };
      },
    });
    const options = {
      connection: { name: "m", fields: { ...MARKETO } },
      baseUrl: mock.url,
      shared: createSharedState(),
    };
    const entered = vi.spyOn(AsyncLocalStorage.prototype, "run");
    const context: ToolContext = { ...options, callLog: false, tracing: { tracer } };
    const plain = await executeTool(step, { paged: false }, context);
    // The call was handed its parent synchronously: nothing ran under AsyncLocalStorage (whose
    // promise hooks, once on, slow every promise of the process).
    const storeRuns = entered.mock.calls.length;
    entered.mockRestore();
    expect(plain.ok).toBe(true);
    expect(storeRuns).toBe(0);
    const paged = await executeTool(step, { paged: true }, context);
    const client = createServiceClient(marketoDescriptor, { ...options, tracing: { tracer } });
    const given = await executeTool(step, { paged: true }, { ...context, client });
    expect([paged.ok, given.ok]).toEqual([true, true]);
    const spans = exporter.getFinishedSpans();
    const tools = spans.filter((s) => s.name === "execute_tool marketo_two_reads");
    expect(tools.map((tool) => childrenOf(spans, tool).map((s) => s.name))).toEqual([
      ["marketo getLeads"],
      ["marketo getLeads", "marketo getLeads"],
      ["marketo getLeads", "marketo getLeads"],
    ]);
  });

  it("reads a W3C traceparent and ignores malformed ones", () => {
    const api = otelApi()!;
    const good = contextFromTraceparent(api, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(api.trace.getSpanContext(good!)).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    });
    for (const bad of [
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
      42,
    ])
      expect(contextFromTraceparent(api, bad), String(bad)).toBeUndefined();
  });
});
