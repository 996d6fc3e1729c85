import { describe, expect, it } from "vitest";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, json, KEY, startTestServer, type TestServer, TOKEN } from "./helpers.js";

let server: TestServer | undefined;

describe("api key", () => {
  it("sends key and token in the query, or in a header for the header mode", async () => {
    server = await startTestServer((req, res) => json(res, 200, { ok: true }));
    const d = apiKeyService();
    await createServiceClient(d, {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    }).call("getThing", { params: { path: { id: "c1" } } });
    await createServiceClient(d, {
      connection: { ...apiKeyConnection(), authMode: "header" },
      baseUrl: server.url,
      shared: createSharedState(),
    }).call("getThing", {
      params: { path: { id: "c1" } },
    });
    expect(server.seen[0]!.url.pathname).toBe("/1/things/c1");
    expect(server.seen[0]!.url.searchParams.get("key")).toBe(KEY);
    expect(server.seen[0]!.url.searchParams.get("token")).toBe(TOKEN);
    expect(server.seen[1]!.url.search).toBe("");
    expect(server.seen[1]!.headers.authorization).toBe(`OAuth oauth_consumer_key="${KEY}", oauth_token="${TOKEN}"`);
  });

  it("sends a connection field named accessToken as a bearer token (a plain spec's http bearer scheme)", async () => {
    server = await startTestServer((req, res) => json(res, 200, { ok: true }));
    const d = apiKeyService();
    const bearer = {
      ...d,
      connection: {
        ...d.connection,
        fields: { accessToken: { description: "Bearer token", secret: true, required: true } },
      },
      auth: {
        kind: "api-key" as const,
        modes: { bearer: [{ in: "header" as const, name: "Authorization", value: "Bearer {accessToken}" }] },
        defaultMode: "bearer",
      },
    };
    const connection = { name: "m", fields: { accessToken: "bearer-token-0123" } };
    await createServiceClient(bearer, { connection, baseUrl: server.url, shared: createSharedState() }).call(
      "getThing",
      { params: { path: { id: "c1" } } },
    );
    expect(server.seen[0]!.headers.authorization).toBe("Bearer bearer-token-0123");
  });

  it("refuses a plain-http base address unless it is an explicit override", () => {
    const d = apiKeyService();
    const plain = { ...d, connection: { ...d.connection, baseUrl: "http://api.board.example" } };
    expect(() => createServiceClient(plain, { connection: apiKeyConnection(), shared: createSharedState() })).toThrow(
      /not https/,
    );
  });
});
