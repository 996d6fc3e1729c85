/**
 * A tool context holds its client: a context reused across calls builds one client (on the first
 * call) instead of one per call, per-call settings (signal, wait bound) still apply per call, and
 * the API Call step runs on the caller's client rather than building one from a copied descriptor.
 */
import { describe, expect, it } from "vitest";
import { descriptor as trelloDescriptor } from "../../generated/trello/descriptor.js";
import { tools as trello } from "../../generated/trello/tools.js";
import type { PipelineEvent } from "../../runtime/hooks.js";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { executeTool, executeToolByName, type ToolContext, type ToolDefinition } from "../../runtime/tools/index.js";
import { clientFor } from "../../runtime/tools/context.js";
import { fakeFetch, hangingFetch, jsonResponse } from "../runtime/pipeline/helpers.js";
import { connections, TRELLO_KEY } from "./helpers.js";

const BASE = "http://127.0.0.1:9";
const step = (name: string): ToolDefinition => trello.find((t) => t.name === name)!;
const CARD = { id: "6123a9f0c4b5d6e7f8091a2b", name: "Card", idList: "60d5ecb74e2a1b3c4d5e6f71", closed: false };

/** A context whose connection counts how often a client is built from it. */
function countingContext(send: typeof fetch): { context: ToolContext; builds: () => number } {
  let reads = 0;
  const context = {
    get connection() {
      reads++;
      return connections.trello!;
    },
    baseUrl: BASE,
    fetch: send,
    shared: createSharedState(),
  } as ToolContext;
  return { context, builds: () => reads };
}

describe("a context's client", () => {
  it("is built once, on the first call, and reused by every later call and step", async () => {
    const send = fakeFetch(() => jsonResponse(200, CARD));
    const { context, builds } = countingContext(send.fetch);
    await executeTool(step("trello_get_card"), { id: CARD.id }, context);
    const once = builds();
    expect(once).toBeGreaterThan(0);
    await executeTool(step("trello_get_card"), { id: CARD.id }, context);
    await executeToolByName(trello, "trello_get_card", { id: CARD.id }, context);
    await executeTool(step("trello_api_call"), { method: "GET", endpoint: "/1/members/me" }, context);
    expect(builds()).toBe(once);
    expect(send.sent).toHaveLength(4);
    expect(clientFor(context, trelloDescriptor)).toBe(clientFor(context, trelloDescriptor));
  });

  it("applies the context's signal per call, on the kept client", async () => {
    const controller = new AbortController();
    const context: ToolContext = {
      connection: connections.trello!,
      baseUrl: BASE,
      fetch: hangingFetch().fetch,
      shared: createSharedState(),
      signal: controller.signal,
    };
    const pending = executeTool(step("trello_get_card"), { id: CARD.id }, context);
    setTimeout(() => controller.abort(), 5);
    expect(await pending).toMatchObject({ ok: false, error: { kind: "network", retryable: false } });
  });
});

describe("a client the caller wrapped", () => {
  it("stays in the path when the context adds a signal: the step calls the wrapper's own call", async () => {
    const inner = createServiceClient(trelloDescriptor, {
      connection: connections.trello!,
      baseUrl: BASE,
      fetch: fakeFetch(() => jsonResponse(200, CARD)).fetch,
      shared: createSharedState(),
    });
    const seen: object[] = [];
    const wrapped = {
      ...inner,
      call: (operationId: string, init?: object) => (seen.push(init ?? {}), inner.call(operationId, init)),
    };
    const controller = new AbortController();
    const result = await executeTool(
      step("trello_get_card"),
      { id: CARD.id },
      { connection: connections.trello!, client: wrapped, signal: controller.signal },
    );
    expect(result).toMatchObject({ ok: true });
    expect(seen).toHaveLength(1);
    expect((seen[0] as { signal?: AbortSignal }).signal).toBe(controller.signal);
  });
});

describe("the API Call step", () => {
  it("runs on the caller's client: its fetch, its observers, its connection", async () => {
    const events: PipelineEvent[] = [];
    const callers = fakeFetch(() => jsonResponse(200, { id: "me" }));
    const client = createServiceClient(trelloDescriptor, {
      connection: connections.trello!,
      baseUrl: BASE,
      fetch: callers.fetch,
      shared: createSharedState(),
      observers: [{ onEvent: (e) => events.push(e) }],
    });
    // The options beside the client point elsewhere; the step must not build its own client from them.
    const elsewhere = fakeFetch();
    const context: ToolContext = {
      client,
      connection: { name: "other", fields: { apiKey: "OTHERKEY0123456789", token: "x" } },
      fetch: elsewhere.fetch,
    };
    const result = await executeTool(
      step("trello_api_call"),
      { method: "GET", endpoint: "/1/members/me", query_parameters: { fields: "id" } },
      context,
    );
    expect(result).toEqual({ ok: true, data: { id: "me" } });
    expect(elsewhere.sent).toHaveLength(0);
    expect(callers.sent[0]!.url).toMatch(new RegExp(`^${BASE}/1/members/me\\?fields=id&key=${TRELLO_KEY}&token=`));
    expect(events[0]).toMatchObject({ type: "call_start", operation: "apiCall", urlTemplate: "/1/members/me" });
  });
});
