/**
 * The observer seam (runtime/hooks.ts, runtime/client/observer.ts, report.ts) through the whole
 * pipeline with a fake fetch: every event of a call carries its id; call and attempt start and
 * end; hooks keep receiving only the request-level events; observers never break a call; no
 * secret in any event.
 */
import { describe, expect, it } from "vitest";
import type { PipelineEvent, RuntimeEvent } from "../../../runtime/hooks.js";
import { AbortedError, createServiceClient, createSharedState, type ClientOptions } from "../../../runtime/index.js";
import { apiKeyConnection, KEY, TOKEN } from "../helpers.js";
import { board, fakeFetch, hangingFetch, jsonResponse, oauthService } from "./helpers.js";

const BASE = "http://127.0.0.1:9";
const get = { params: { path: { id: "t1" } } };

function observed(send: typeof fetch, extra: Partial<ClientOptions> = {}, descriptor = board()) {
  const events: PipelineEvent[] = [];
  const hooked: RuntimeEvent[] = [];
  const client = createServiceClient(descriptor, {
    connection: apiKeyConnection(),
    baseUrl: BASE,
    fetch: send,
    shared: createSharedState(),
    retry: { baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 1000 },
    observers: [{ onEvent: (e) => events.push(e) }],
    hooks: { onEvent: (e) => hooked.push(e) },
    ...extra,
  });
  return { client, events, hooked };
}

/** The events of one attempt that got an answer, in order. */
const ONE_ATTEMPT = ["attempt_start", "request", "response", "attempt_end"];

describe("a call's events", () => {
  it("a success: call start, attempt start, request, response, attempt end, call end, one call id", async () => {
    const { client, events, hooked } = observed(fakeFetch().fetch);
    await client.call("getThing", get);
    expect(events.map((e) => e.type)).toEqual(["call_start", ...ONE_ATTEMPT, "call_end"]);
    expect(new Set(events.map((e) => e.callId)).size).toBe(1);
    expect(events[0]).toMatchObject({
      service: "board",
      connection: "main",
      operation: "getThing",
      method: "GET",
      urlTemplate: "/1/things/{id}",
    });
    expect(events[1]).toMatchObject({
      attempt: 0,
      resendCount: 0,
      method: "GET",
      urlTemplate: "/1/things/{id}",
      serverAddress: "127.0.0.1",
      serverPort: 9,
    });
    expect(events[4]).toMatchObject({ type: "attempt_end", status: 200, errorType: undefined });
    expect(events[5]).toMatchObject({ type: "call_end", outcome: "success", attempts: 1, retries: 0, status: 200 });
    // Hooks: the request-level events only, as before.
    expect(hooked.map((e) => e.type)).toEqual(["request", "response"]);
  });

  it("a retry: two attempts, the first ending with its error type, the pause between them", async () => {
    const send = fakeFetch((_, n) =>
      n === 1 ? jsonResponse(503, { message: "busy" }) : jsonResponse(200, { ok: true }),
    );
    const { client, events } = observed(send.fetch);
    await client.call("getThing", get);
    expect(events.map((e) => e.type)).toEqual(["call_start", ...ONE_ATTEMPT, "retry", ...ONE_ATTEMPT, "call_end"]);
    expect(events[4]).toMatchObject({ status: 503, errorType: "server", resendCount: 0 });
    expect(events[6]).toMatchObject({ attempt: 1, resendCount: 1 });
    expect(events.at(-1)).toMatchObject({ outcome: "success", attempts: 2, retries: 1 });
  });

  it("a write whose answer never came: the attempt times out and the call ends with an unknown outcome", async () => {
    const { client, events } = observed(hangingFetch().fetch, { retry: { timeoutMs: 20 } });
    await expect(client.call("createThing", { body: { name: "x" } })).rejects.toMatchObject({
      kind: "timeout",
      outcomeUnknown: true,
    });
    expect(events.find((e) => e.type === "attempt_end")).toMatchObject({ errorType: "timeout", status: undefined });
    expect(events.at(-1)).toMatchObject({
      type: "call_end",
      outcome: "failure",
      errorKind: "timeout",
      outcomeUnknown: true,
      attempts: 1,
    });
  });

  it("a call refused before sending has no attempt; a cancelled one ends as cancelled", async () => {
    const { client, events } = observed(fakeFetch().fetch);
    await expect(client.call("getThing", { params: { path: { id: ".." } } })).rejects.toMatchObject({
      code: "UNSAFE_PATH_VALUE",
    });
    expect(events.map((e) => e.type)).toEqual(["call_start", "call_end"]);
    expect(events[1]).toMatchObject({ outcome: "failure", errorKind: "validation", attempts: 0 });

    const cancelled = observed(hangingFetch().fetch);
    const controller = new AbortController();
    const pending = cancelled.client.call("getThing", { ...get, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(cancelled.events.find((e) => e.type === "attempt_end")).toMatchObject({ errorType: "cancelled" });
  });

  it("two calls have two ids; a token renewal carries the id of the call that needed it", async () => {
    const send = fakeFetch((sent) =>
      sent.url.endsWith("/oauth/token")
        ? jsonResponse(200, { access_token: "TOKENVALUE-1", expires_in: 3600 })
        : jsonResponse(200, { ok: true }),
    );
    const events: PipelineEvent[] = [];
    const client = createServiceClient(oauthService(), {
      connection: { name: "m", fields: { clientId: "id", clientSecret: "CLIENTSECRET-1" } },
      baseUrl: BASE,
      fetch: send.fetch,
      shared: createSharedState(),
      observers: [{ onEvent: (e) => events.push(e) }],
    });
    await client.call("getLeads");
    await client.call("getLeads");
    const starts = events.filter((e) => e.type === "call_start");
    expect(starts).toHaveLength(2);
    expect(starts[0]!.callId).not.toBe(starts[1]!.callId);
    expect(events.find((e) => e.type === "token")).toMatchObject({ action: "fetched", callId: starts[0]!.callId });
    expect(JSON.stringify(events)).not.toMatch(/TOKENVALUE|CLIENTSECRET/);
  });
});

describe("observers never change a call", () => {
  it("a throwing observer or hook leaves the call's result as it was", async () => {
    const boom = () => {
      throw new Error("observer failed");
    };
    const client = createServiceClient(board(), {
      connection: apiKeyConnection(),
      baseUrl: BASE,
      fetch: fakeFetch().fetch,
      shared: createSharedState(),
      observers: [{ onEvent: boom }],
      hooks: { onRequest: boom, onEvent: boom },
    });
    await expect(client.call("getThing", get)).resolves.toEqual({ ok: true });
  });

  it("no event carries a credential: URLs are masked, templates carry no values", async () => {
    const { client, events } = observed(
      fakeFetch((_, n) => (n === 1 ? jsonResponse(429, {}) : jsonResponse(200, {}))).fetch,
    );
    await client.call("getThing", get);
    const text = JSON.stringify(events);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(TOKEN);
    expect(events.find((e) => e.type === "request")).toMatchObject({
      url: `${BASE}/1/things/t1?key=[redacted]&token=[redacted]`,
    });
  });
  it("events nobody reads are not built: an observer naming its types gets no request or response", async () => {
    const events: PipelineEvent[] = [];
    const client = createServiceClient(board(), {
      connection: apiKeyConnection(),
      baseUrl: BASE,
      fetch: fakeFetch().fetch,
      shared: createSharedState(),
      observers: [{ eventTypes: ["call_start", "attempt_end", "call_end"], onEvent: (e) => events.push(e) }],
    });
    await client.call("getThing", get);
    // No request or response event: no attempt's address was masked for a reader that never looks.
    expect(events.map((e) => e.type)).toEqual(["call_start", "attempt_end", "call_end"]);
    // A call's own hooks still hear its request-level events.
    const heard: string[] = [];
    await client.call("getThing", { ...get, hooks: { onEvent: (e: RuntimeEvent) => heard.push(e.type) } });
    expect(heard).toEqual(["request", "response"]);
  });
});

describe("per-call options and ad-hoc requests", () => {
  it("a call's own maxLimitWaitMs bounds its wait", async () => {
    const limits = [
      { id: "all", kind: "window", requests: 1, windowSeconds: 10, description: "all", rejection: { status: 429 } },
    ];
    const { client } = observed(fakeFetch().fetch, {}, board(limits));
    await client.call("getThing", get);
    await expect(client.call("getThing", { ...get, maxLimitWaitMs: 50 })).rejects.toMatchObject({
      kind: "rate_limited",
      retryAfterMs: expect.any(Number),
    });
  });

  it("a call's own hooks hear that call's events only, and are not kept", async () => {
    // Two calls at once on one client that has no hooks or observers of its own: each call's hooks
    // hear its own requests, its token renewal and its retry, never the other call's.
    let renewals = 0;
    const send = fakeFetch((sent, n) => {
      if (sent.url.endsWith("/oauth/token")) {
        renewals++;
        return jsonResponse(200, { access_token: "TOKENVALUE-2", expires_in: 3600 });
      }
      return n === 2 ? jsonResponse(503, { message: "busy" }) : jsonResponse(200, { ok: true });
    });
    const client = createServiceClient(oauthService(), {
      connection: { name: "m", fields: { clientId: "id", clientSecret: "CLIENTSECRET-2" } },
      baseUrl: BASE,
      fetch: send.fetch,
      shared: createSharedState(),
      retry: { baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 1000 },
    });
    const heard = (list: RuntimeEvent[]) => ({ onEvent: (e: RuntimeEvent) => void list.push(e) });
    const first: RuntimeEvent[] = [];
    const second: RuntimeEvent[] = [];
    await Promise.all([
      client.call("getLeads", { hooks: heard(first) }),
      client.request({ method: "GET", path: "/leads" }, { hooks: heard(second) }),
    ]);
    expect(renewals).toBe(1);
    const all = [...first, ...second];
    // The first call needed the token and got the 503 (the second fetch): its retry is its own.
    expect(first.map((e) => e.type)).toEqual(["token", "request", "response", "retry", "request", "response"]);
    expect(second.map((e) => e.type)).toEqual(["request", "response"]);
    expect(new Set(first.map((e) => e.callId)).size).toBe(1);
    expect(second[0]!.callId).not.toBe(first[0]!.callId);
    expect(JSON.stringify(all)).not.toMatch(/TOKENVALUE|CLIENTSECRET/);
    // A later call without hooks is heard by nobody.
    await client.call("getLeads");
    expect(first.length + second.length).toBe(all.length);
  });

  it("request() sends to any path through the same credentials, and names the call as asked", async () => {
    const send = fakeFetch();
    const { client, events } = observed(send.fetch);
    await client.request({ method: "GET", path: "/1/search", query: { q: "x" }, operationId: "apiCall" });
    expect(send.sent[0]!.url).toBe(`${BASE}/1/search?q=x&key=${KEY}&token=${TOKEN}`);
    expect(events[0]).toMatchObject({ type: "call_start", operation: "apiCall", urlTemplate: "/1/search" });
  });

  it("an unknown operation rejects the call; it does not throw", async () => {
    const { client } = observed(fakeFetch().fetch);
    const result = client.call("nope");
    await expect(result).rejects.toThrow('board has no operation "nope"');
  });
});
