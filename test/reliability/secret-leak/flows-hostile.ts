/** Hostile base and token addresses, and a service that echoes the whole request. */
import { expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { contentsnareApiCall, contentsnareGetMe } from "../../../generated/contentsnare/tools.js";
import { descriptor as marketoDescriptor } from "../../../generated/marketo/descriptor.js";
import { marketoApiCall, marketoGetLeads } from "../../../generated/marketo/tools.js";
import { descriptor as trelloDescriptor } from "../../../generated/trello/descriptor.js";
import { trelloApiCall, trelloGetBoard } from "../../../generated/trello/tools.js";
import { descriptor as worldnewsDescriptor } from "../../../generated/worldnews/descriptor.js";
import { worldnewsApiCall, worldnewsSearchNews } from "../../../generated/worldnews/tools.js";
import { createServiceClient } from "../../../runtime/index.js";
import type { ToolDefinition, ToolResult } from "../../../runtime/tools/index.js";
import { mask } from "../markers.js";
import { closedPort, echoServer } from "../secret-leak-helpers.js";
import {
  BOARD,
  capture,
  contentsnareMockCredentials,
  expectNoLeaks,
  M,
  MARKETO_CLIENT_ID,
  marketoFields,
  mockWithProxy,
  needles,
  opened,
  options,
  step,
  trelloCredentials,
} from "./harness.js";

export function hostileFlows(): void {
  it("hostile base and token addresses: user information, other schemes, malformed addresses", async () => {
    const { url } = await mockWithProxy("trello", { auth: { credentials: trelloCredentials } });
    const port = new URL(url).port;
    const bases = [
      `http://proxyuser:${M.userinfoPassword.value}@127.0.0.1:${port}`,
      `http://${M.userinfoPassword.value}@127.0.0.1:${port}`,
      `ftp://127.0.0.1:${port}`,
      "file:///etc/passwd",
      "javascript:alert(1)",
      "not a url",
      `http://[::1`,
      `http://127.0.0.1:${port}/?next=`,
    ];
    for (const base of bases) {
      for (const [descriptor, fields, tool, input] of [
        [trelloDescriptor, trelloCredentials, trelloGetBoard, { id: BOARD }],
        [trelloDescriptor, trelloCredentials, trelloApiCall, { method: "GET", endpoint: "/1/members/me/boards" }],
        [worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, worldnewsSearchNews, { text: "leak scan" }],
        [marketoDescriptor, marketoFields, marketoGetLeads, { filterType: "email", filterValues: ["ada@example.com"] }],
        [
          contentsnareDescriptor,
          { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
          contentsnareGetMe,
          {},
        ],
      ] as const) {
        const source = `${descriptor.id} hostile base ${mask(base, needles())}`;
        await step(source, tool as ToolDefinition, input, options(source, descriptor, fields, base));
        const client = await capture.run(`${source} client`, () =>
          createServiceClient(descriptor, options(source, descriptor, fields, base)),
        );
        if (client.ok)
          await capture.run(`${source} call`, () => client.value.call(Object.keys(descriptor.operations)[0]!, {}));
      }
    }
    // A token endpoint with user information, and a closed one, for both OAuth kinds.
    const closed = await closedPort();
    for (const tokenUrl of [
      `http://tokenuser:${M.userinfoPassword.value}@127.0.0.1:${closed}/identity/oauth/token`,
      `http://127.0.0.1:${closed}/identity/oauth/token`,
    ]) {
      const source = `marketo hostile token url ${mask(tokenUrl, needles())}`;
      const r = await step(
        source,
        marketoGetLeads,
        { filterType: "email", filterValues: ["ada@example.com"] },
        options(source, marketoDescriptor, marketoFields, url, { tokenUrl }),
      );
      expect(r.ok).toBe(false);
      const cs = `contentsnare hostile token url ${mask(tokenUrl, needles())}`;
      const stale = {
        ...contentsnareMockCredentials,
        accessToken: M.contentsnareAccessToken.value,
        expiresAt: "2020-01-01T00:00:00Z",
      };
      expect(
        (await step(cs, contentsnareGetMe, {}, options(cs, contentsnareDescriptor, stale, url, { tokenUrl }))).ok,
      ).toBe(false);
    }
    expectNoLeaks();
  });

  it("a hostile service that echoes the whole request (URL, headers, body) in its errors", async () => {
    const echo = await opened(echoServer());
    const marketoMock = await mockWithProxy("marketo", {
      auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
    });
    const csMock = await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } });
    let redactions = 0;
    const check = (r: ToolResult) => {
      expect(r.ok).toBe(false);
      if (!r.ok && r.error.message.includes("[redacted]")) redactions++;
    };
    for (const [status, format] of [
      [400, "text"],
      [401, "json"],
      [503, "json"],
      [401, "text"],
      [200, "mkto"],
    ] as const) {
      const base = echo.base(status, format);
      const label = `echo ${status} ${format}`;
      if (format === "mkto") {
        // Marketo's own failure shape: HTTP 200 with success:false.
        check(
          await step(
            `marketo api ${label}`,
            marketoApiCall,
            {
              method: "GET",
              endpoint: "/rest/v1/leads.json",
              query_parameters: { filterType: "id", filterValues: "1" },
            },
            options(`marketo api ${label}`, marketoDescriptor, marketoFields, base, {
              tokenUrl: `${marketoMock.url}/identity/oauth/token`,
            }),
          ),
        );
        continue;
      }
      check(
        await step(
          `trello ${label}`,
          trelloGetBoard,
          { id: BOARD },
          options(`trello ${label}`, trelloDescriptor, trelloCredentials, base),
        ),
      );
      check(
        await step(
          `trello oauth ${label}`,
          trelloGetBoard,
          { id: BOARD },
          {
            ...options(`trello oauth ${label}`, trelloDescriptor, trelloCredentials, base),
            connection: { name: "t", fields: trelloCredentials, authMode: "oauth" },
          },
        ),
      );
      check(
        await step(
          `trello api call ${label}`,
          trelloApiCall,
          { method: "POST", endpoint: "/1/cards", body: { name: "x" } },
          options(`trello api call ${label}`, trelloDescriptor, trelloCredentials, base),
        ),
      );
      check(
        await step(
          `worldnews header ${label}`,
          worldnewsSearchNews,
          { text: "leak scan" },
          options(`worldnews header ${label}`, worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, base),
        ),
      );
      check(
        await step(
          `worldnews query ${label}`,
          worldnewsApiCall,
          { method: "GET", endpoint: "/search-news", params: { text: "leak scan" } },
          {
            ...options(`worldnews query ${label}`, worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, base),
            connection: { name: "w", fields: { apiKey: M.worldnewsApiKey.value }, authMode: "query" },
          },
        ),
      );
      // Marketo: the token endpoint itself echoes (client secret in its query) ...
      check(
        await step(
          `marketo token ${label}`,
          marketoGetLeads,
          { filterType: "email", filterValues: ["ada@example.com"] },
          options(`marketo token ${label}`, marketoDescriptor, marketoFields, base),
        ),
      );
      // ... and a real token (from the mock) echoed back by the API.
      check(
        await step(
          `marketo api ${label}`,
          marketoApiCall,
          { method: "GET", endpoint: "/rest/v1/leads.json", query_parameters: { filterType: "id", filterValues: "1" } },
          options(`marketo api ${label}`, marketoDescriptor, marketoFields, base, {
            tokenUrl: `${marketoMock.url}/identity/oauth/token`,
          }),
        ),
      );
      // Content Snare: the API echoes the access token; the token endpoint echoes client secret and refresh token.
      const stale = { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value };
      check(
        await step(
          `contentsnare ${label}`,
          contentsnareGetMe,
          {},
          options(`contentsnare ${label}`, contentsnareDescriptor, stale, base),
        ),
      );
      check(
        await step(
          `contentsnare api refreshed ${label}`,
          contentsnareApiCall,
          { method: "GET", endpoint: "/partner_api/v1/me" },
          options(
            `contentsnare api refreshed ${label}`,
            contentsnareDescriptor,
            { ...stale, expiresAt: "2020-01-01T00:00:00Z" },
            base,
            { tokenUrl: `${csMock.url}/oauth/token` },
          ),
        ),
      );
      csMock.mock.reset();
    }
    // The echoes did carry secrets, and they were redacted.
    expect(redactions).toBeGreaterThan(20);
    expectNoLeaks();
  });
}
