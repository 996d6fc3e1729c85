/** Marketo, World News and Content Snare flows in process (tokens, keys, quotas, renewals). */
import { join } from "node:path";
import { expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { contentsnareApiCall, contentsnareGetMe } from "../../../generated/contentsnare/tools.js";
import { descriptor as marketoDescriptor } from "../../../generated/marketo/descriptor.js";
import { marketoApiCall, marketoGetLeads } from "../../../generated/marketo/tools.js";
import { descriptor as worldnewsDescriptor } from "../../../generated/worldnews/descriptor.js";
import { worldnewsApiCall, worldnewsSearchNews, worldnewsTopNews } from "../../../generated/worldnews/tools.js";
import {
  type ClientOptions,
  type Connection,
  createSharedState,
  exchangeAuthorizationCode,
  FileConnectionStore,
  requireConnection,
} from "../../../runtime/index.js";
import { closedPort } from "../secret-leak-helpers.js";
import {
  capture,
  CS_CLIENT_ID,
  contentsnareMockCredentials,
  dir,
  expectNoLeaks,
  issued,
  M,
  MARKETO_CLIENT_ID,
  marketoFields,
  mockWithProxy,
  options,
  step,
  storeFiles,
  wrongCode,
} from "./harness.js";

export function serviceFlows(): void {
  it("Marketo: token fetch, a 602 renewal, a refused client secret", async () => {
    let now = Date.UTC(2026, 0, 15, 12);
    const { url } = await mockWithProxy("marketo", {
      auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
      clock: () => now,
    });
    const shared = createSharedState();
    const ctx = (source: string, fields = marketoFields) => ({
      ...options(source, marketoDescriptor, fields, url),
      shared,
    });
    const getAdasLeads = (source: string, fields = marketoFields) =>
      step(source, marketoGetLeads, { filterType: "email", filterValues: ["ada@example.com"] }, ctx(source, fields));
    expect((await getAdasLeads("marketo get leads")).ok).toBe(true);
    now += 2 * 3600 * 1000; // the mock's token expires; the client still believes in it
    expect((await getAdasLeads("marketo renewal")).ok).toBe(true);
    expect(issued.filter((t) => t.kind === "mock-issued access_token").length).toBeGreaterThanOrEqual(2);
    const wrong = { ...marketoFields, clientSecret: M.marketoWrongSecret.value };
    // Same client id, same shared token cache, wrong secret: refused (not handed the cached token).
    const refused = await getAdasLeads("marketo wrong secret", wrong);
    expect(refused.ok === false && refused.error.kind).toBe("auth");
    // The model puts the client secret in a query parameter of the API Call step (sent, never shown).
    await step(
      "marketo api call",
      marketoApiCall,
      {
        method: "GET",
        endpoint: "/rest/v1/leads.json",
        query_parameters: { filterType: "id", filterValues: "1", access_token: M.marketoClientSecret.value },
      },
      ctx("marketo api call"),
    );
    expectNoLeaks();
  });

  it("World News: header and query modes, a wrong key, the points quota, reserved query names", async () => {
    const { url } = await mockWithProxy("worldnews", {
      auth: { credentials: { apiKey: M.worldnewsApiKey.value } },
      limits: { overrides: { points: { points: 2 } } },
    });
    const fields = { apiKey: M.worldnewsApiKey.value };
    const shared = createSharedState();
    const ctx = (source: string, connection: Partial<Connection> = {}) => {
      const o = { ...options(source, worldnewsDescriptor, fields, url), shared };
      o.limits = {};
      return { ...o, connection: { ...o.connection, ...connection } };
    };
    expect(
      (await step("worldnews header", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews header"))).ok,
    ).toBe(true);
    expect(
      (
        await step(
          "worldnews query mode",
          worldnewsSearchNews,
          { text: "leak scan" },
          ctx("worldnews query mode", { authMode: "query" }),
        )
      ).ok,
    ).toBe(true);
    const quota = await step("worldnews quota", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews quota"));
    expect(quota.ok === false && quota.error.kind).toBe("quota_exhausted");
    // Refused locally now that the quota is known to be spent.
    await step("worldnews quota local", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews quota local"));
    const wrong = await step(
      "worldnews wrong key",
      worldnewsSearchNews,
      { text: "leak scan" },
      { ...ctx("worldnews wrong key", { fields: { apiKey: M.worldnewsWrongKey.value } }), shared: createSharedState() },
    );
    expect(wrong.ok === false && wrong.error.kind).toBe("auth");
    // Two calls at once under the free plan's concurrency of 1: the second waits (a throttle event).
    const throttled = { ...ctx("worldnews throttled"), shared: createSharedState() };
    await Promise.all([
      step("worldnews throttled 1", worldnewsTopNews, { source_country: "us", language: "en" }, throttled),
      step("worldnews throttled 2", worldnewsTopNews, { source_country: "us", language: "en" }, throttled),
    ]);
    const reserved = await step(
      "worldnews reserved",
      worldnewsApiCall,
      {
        method: "GET",
        endpoint: "/search-news",
        params: { "api-key": M.worldnewsApiKey.value, "API-KEY": M.worldnewsWrongKey.value },
      },
      ctx("worldnews reserved"),
    );
    expect(reserved.ok === false && reserved.error.kind).toBe("invalid_input");
    expectNoLeaks();
  });

  it(
    "Content Snare: a 401 renewal with rotation written to a file store, proactive " +
      "renewal, a revoked refresh token, code exchange",
    async () => {
      const { mock, url } = await mockWithProxy("contentsnare", {
        auth: { credentials: contentsnareMockCredentials, authorizationCode: M.contentsnareAuthorizationCode.value },
      });
      const storeFile = join(dir, "stores", "connections.json");
      storeFiles.push(storeFile);
      const store = new FileConnectionStore(storeFile);
      const stale: Connection = {
        name: "snare",
        fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
      };
      await store.put(contentsnareDescriptor, stale);
      const rotated: Array<Record<string, string>> = [];
      const ctx = (source: string, connection: Connection, extra: Partial<ClientOptions> = {}) => ({
        ...options(source, contentsnareDescriptor, connection.fields, url),
        connection,
        store,
        onTokens: (_name: string, fields: Record<string, string>) => void rotated.push(fields),
        ...extra,
      });

      expect(
        (
          await step(
            "contentsnare 401 renewal",
            contentsnareGetMe,
            {},
            ctx("contentsnare 401 renewal", await requireConnection(store, contentsnareDescriptor, "snare")),
          )
        ).ok,
      ).toBe(true);
      expect(rotated).toHaveLength(1);
      const renewed = (await store.get("contentsnare", "snare"))!;
      expect(renewed.fields.refreshToken).not.toBe(M.contentsnareRefreshToken.value);
      // Proactive renewal: the stored expiry is in the past.
      const expired = { ...renewed, fields: { ...renewed.fields, expiresAt: "2020-01-01T00:00:00Z" } };
      expect(
        (
          await step(
            "contentsnare proactive renewal",
            contentsnareApiCall,
            { method: "GET", endpoint: "/partner_api/v1/me" },
            ctx("contentsnare proactive renewal", expired),
          )
        ).ok,
      ).toBe(true);
      // The original refresh token was rotated away and no store holds a newer one: renewal is refused.
      const revoked = await step(
        "contentsnare revoked refresh",
        contentsnareGetMe,
        {},
        ctx("contentsnare revoked refresh", stale, { store: undefined }),
      );
      expect(revoked.ok === false && revoked.error.kind).toBe("auth");
      // The store failing to take rotated tokens (hook "failed"; its error quotes a secret and must stay swallowed).
      const failingStore = {
        ...store,
        get: store.get.bind(store),
        list: store.list.bind(store),
        put: store.put.bind(store),
        remove: store.remove.bind(store),
        updateFields: async () =>
          Promise.reject(new Error(`disk full while writing ${M.contentsnareRefreshToken.value}`)),
      };
      const latest = (await store.get("contentsnare", "snare"))!;
      await step(
        "contentsnare store failure",
        contentsnareGetMe,
        {},
        ctx(
          "contentsnare store failure",
          { ...latest, fields: { ...latest.fields, expiresAt: "2020-01-01T00:00:00Z" } },
          { store: failingStore },
        ),
      );

      // Authorization-code exchange: a wrong code, then the right one (its result is the tokens to store).
      const exchange = (code: string) =>
        exchangeAuthorizationCode(contentsnareDescriptor, {
          connection: {
            name: "snare",
            fields: { clientId: CS_CLIENT_ID, clientSecret: M.contentsnareClientSecret.value },
          },
          code,
          redirectUri: "https://app.example.com/oauth/callback",
          tokenUrl: `${url}/oauth/token`,
        });
      const badCode = await capture.run("contentsnare exchange wrong code", () => exchange(wrongCode.value));
      expect(badCode.ok).toBe(false);
      mock.reset();
      const good = await exchange(M.contentsnareAuthorizationCode.value);
      expect(good.accessToken).toBeTruthy();
      const closed = await closedPort();
      await capture.run("contentsnare exchange closed port", () =>
        exchangeAuthorizationCode(contentsnareDescriptor, {
          connection: {
            name: "snare",
            fields: { clientId: CS_CLIENT_ID, clientSecret: M.contentsnareClientSecret.value },
          },
          code: M.contentsnareAuthorizationCode.value,
          redirectUri: "https://app.example.com/cb",
          tokenUrl: `http://127.0.0.1:${closed}/oauth/token`,
          timeoutMs: 2_000,
        }),
      );
      expectNoLeaks();
    },
  );
}
