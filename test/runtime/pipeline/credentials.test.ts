/**
 * The credentials source (runtime/credentials/source.ts): placements filled from the connection,
 * and OAuth tokens fetched, cached, invalidated and renewed through the shared TokenCache, with a
 * fake fetch standing in for the token endpoint.
 */
import { describe, expect, it } from "vitest";
import { Events } from "../../../runtime/client/observer.js";
import { resolveRetry } from "../../../runtime/client/retry.js";
import { createSharedState } from "../../../runtime/state/shared.js";
import { CredentialsSource } from "../../../runtime/credentials/source.js";
import type { PipelineEvent } from "../../../runtime/hooks.js";
import type { ServiceDescriptor } from "../../../runtime/index.js";
import { apiKeyConnection, KEY, TOKEN } from "../helpers.js";
import { board, fakeFetch, jsonResponse, oauthService } from "./helpers.js";

const call = { op: { operationId: "getLeads" }, callId: "c-1", signal: undefined };

function source(descriptor: ServiceDescriptor, fields: Record<string, string>, send: typeof fetch, authMode?: string) {
  const events: PipelineEvent[] = [];
  const connection = { name: "main", fields, authMode };
  const credentials = new CredentialsSource({
    descriptor,
    connection,
    tokenUrl: "https://api.leads.example/oauth/token",
    account: "main#1",
    send,
    retry: resolveRetry({ attempts: 0 }),
    shared: createSharedState(),
    events: new Events({ service: descriptor.id, connection: "main" }, undefined, [{ onEvent: (e) => events.push(e) }]),
  });
  return { credentials, events };
}

describe("placing an api key", () => {
  const { credentials } = source(board(), apiKeyConnection().fields, fakeFetch().fetch);

  it("appends the credential query to an address without one", () => {
    const placed = credentials.place("https://x.example/1/things/1", undefined, undefined);
    expect(placed.url).toBe(`https://x.example/1/things/1?key=${KEY}&token=${TOKEN}`);
    expect(placed.headers).toBeUndefined();
  });

  it("sets the credential parameters on an address with a query, replacing a same-named one", () => {
    const placed = credentials.place("https://x.example/1/things?key=mine&fields=name", undefined, undefined);
    expect([...new URL(placed.url).searchParams]).toEqual([
      ["key", KEY],
      ["fields", "name"],
      ["token", TOKEN],
    ]);
  });

  it("puts header placements on a copy of the request's headers", () => {
    const { credentials: header } = source(board(), apiKeyConnection().fields, fakeFetch().fetch, "header");
    const own = new Headers({ accept: "application/json" });
    const placed = header.place("https://x.example/1/things", own, undefined);
    expect(placed.url).toBe("https://x.example/1/things");
    expect(placed.headers!.get("authorization")).toBe(`OAuth oauth_consumer_key="${KEY}", oauth_token="${TOKEN}"`);
    expect(own.has("authorization")).toBe(false);
  });

  it("names the missing field when a placement needs one the connection lacks", () => {
    const { credentials: partial } = source(board(), { apiKey: KEY, token: "" }, fakeFetch().fetch);
    expect(() => partial.place("https://x.example/", undefined, undefined)).toThrow(/no value for "token"/);
  });

  it("knows the connection's secrets and the credential query names, for masking", () => {
    expect([...credentials.secrets].sort()).toEqual([KEY, TOKEN].sort());
    expect(credentials.queryNames).toEqual(["key", "token"]);
    expect(credentials.usesTokens).toBe(false);
  });
});

describe("OAuth tokens", () => {
  const fields = { clientId: "id-1", clientSecret: "SECRET-1" };
  const tokenEndpoint = () => {
    let issued = 0;
    return fakeFetch(() => jsonResponse(200, { access_token: `tok-${++issued}`, expires_in: 3600 }));
  };

  it("fetches a token once and serves it from the cache to later attempts", async () => {
    const endpoint = tokenEndpoint();
    const { credentials, events } = source(oauthService(), fields, endpoint.fetch);
    expect(await credentials.accessToken(call)).toBe("tok-1");
    expect(await credentials.accessToken(call)).toBe("tok-1");
    expect(endpoint.sent).toHaveLength(1);
    expect(endpoint.sent[0]!.body).toBe("grant_type=client_credentials&client_id=id-1&client_secret=SECRET-1");
    expect(events).toEqual([
      expect.objectContaining({ type: "token", action: "fetched", callId: "c-1", operation: "getLeads" }),
    ]);
    expect(credentials.place("https://api.leads.example/leads", undefined, "tok-1").headers!.get("authorization")).toBe(
      "Bearer tok-1",
    );
    expect(credentials.secrets.has("tok-1")).toBe(true);
  });

  it("renews once after the service refused the token, and not for a token already replaced", async () => {
    const endpoint = tokenEndpoint();
    const { credentials, events } = source(oauthService(), fields, endpoint.fetch);
    await credentials.accessToken(call);
    credentials.invalidate("tok-1", call);
    credentials.invalidate("tok-1", call);
    expect(await credentials.accessToken(call)).toBe("tok-2");
    credentials.invalidate("tok-1", call); // an answer about the old token: nothing to do
    expect(await credentials.accessToken(call)).toBe("tok-2");
    expect(endpoint.sent).toHaveLength(2);
    // A burst of refusals for the same token marks it twice but renews once.
    expect(events.map((e) => (e.type === "token" ? e.action : e.type))).toEqual([
      "fetched",
      "invalidated",
      "invalidated",
      "fetched",
    ]);
  });

  it("gives up waiting for a token when the call is cancelled", async () => {
    const slow = fakeFetch(() => new Promise<Response>(() => undefined));
    const { credentials } = source(oauthService(), fields, slow.fetch);
    const controller = new AbortController();
    const waiting = credentials.accessToken({ ...call, signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });
});
