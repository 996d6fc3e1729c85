/**
 * The API Call endpoint guard: hostile endpoints are refused before anything is sent (a loopback
 * server counting TCP connections and requests proves it), plain paths pass.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import { checkEndpoint, executeTool } from "../../runtime/tools/index.js";
import { tools as contentsnareTools } from "../../generated/contentsnare/tools.js";
import { tools as marketoTools } from "../../generated/marketo/tools.js";
import { tools as trelloTools } from "../../generated/trello/tools.js";
import { tools as worldnewsTools } from "../../generated/worldnews/tools.js";
import { connections, fastRetry, json, loopback, type Loopback } from "./helpers.js";

const BASE = "https://api.trello.com";

export const HOSTILE = [
  "https://evil.example/steal",
  "http://127.0.0.1:1/x",
  "HTTPS://evil.example",
  "javascript:alert(1)",
  "mailto:a@b.c",
  "//evil.example/x",
  "///evil.example",
  "/\\evil.example",
  "\\\\evil.example\\x",
  "/1/../../etc/passwd",
  "/1/..",
  "..",
  "../x",
  "/1/./cards",
  "/1/%2e%2e/x",
  "/1/%2E%2E/x",
  "/1/%2e./x",
  "/1/.%2E/x",
  "/1/%252e%252e/x",
  "/1/%25252e%25252e/x",
  "/1/%2f%2fevil.example",
  "/1/%2F..%2Fx",
  "/1/%5c..",
  "/1/cards%00.json",
  "/1/cards\u0000",
  "/1/cards\r\nHost: evil.example",
  "/1/cards\n",
  "/1/cards\t",
  "/1/ca rds",
  "/1/cards%0d%0aX-Injected:1",
  "/1/cards%20x",
  "/@evil.example",
  "/1/user:pass@evil.example",
  "/1/cards?key=x",
  "/1/cards#frag",
  "/1/cards/%zz",
  "/1/cards/%",
  "/1/cards/{id}",
  "/1/cards/\u2025",
  "/1/ＣＡＲＤＳ",
  "1/cards",
  "",
  " /1/cards",
  "/1/cards/%u002e%u002e",
];

const GOOD = [
  "/1/members/me/boards",
  "/1/cards/6123a9f0c4b5d6e7f8091a2b",
  "/rest/v1/leads.json",
  "/partner_api/v1/requests",
  "/search-news",
  "/1/boards/abc/lists:open",
  "/1/search(x)",
];

describe("checkEndpoint", () => {
  it.each(HOSTILE)("refuses %j", (endpoint) => {
    const result = checkEndpoint(endpoint, BASE);
    expect(result.ok).toBe(false);
  });

  it.each(GOOD)("accepts %j and keeps it under the base address", (endpoint) => {
    const result = checkEndpoint(endpoint, BASE);
    expect(result).toEqual({ ok: true, path: endpoint, url: `${BASE}${endpoint}` });
  });

  it("keeps a base address that has a path of its own", () => {
    const result = checkEndpoint("/v1/x", "https://host.example/api/");
    expect(result).toMatchObject({ ok: true, url: "https://host.example/api/v1/x" });
    expect(checkEndpoint("/../x", "https://host.example/api").ok).toBe(false);
  });

  it("refuses non-strings", () => {
    for (const value of [undefined, null, 42, ["/1/cards"], { path: "/x" }])
      expect(checkEndpoint(value, BASE).ok).toBe(false);
  });

  it("never yields an address outside the base, whatever the string (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.constantFrom("", "/", "//", "/..", "%2e", "%252e", "\\", "@", ":"),
        (tail, prefix) => {
          const result = checkEndpoint(`/${prefix}${tail}`, BASE);
          if (!result.ok) return true;
          const url = new URL(result.url);
          return (
            url.origin === BASE &&
            url.pathname === `/${prefix}${tail}` &&
            !url.pathname.includes("..") &&
            url.username === ""
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("API Call steps refuse hostile endpoints with nothing sent", () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await loopback((_req, res) =>
      json(res, 200, { access_token: "t", expires_in: 3600, success: true, result: [] }),
    );
  });
  afterAll(() => server.close());

  const steps = [
    { tool: trelloTools.find((t) => t.name === "trello_api_call")!, method: "GET" },
    { tool: marketoTools.find((t) => t.name === "marketo_api_call")!, method: "GET" },
    { tool: worldnewsTools.find((t) => t.name === "worldnews_api_call")!, method: "GET" },
    { tool: contentsnareTools.find((t) => t.name === "contentsnare_api_call")!, method: "GET" },
  ];

  it.each(steps.map((s) => [s.tool.name, s] as const))("%s", async (_name, { tool, method }) => {
    for (const endpoint of [...HOSTILE, `${server.url}/x`, `//127.0.0.1:${server.port}/x`]) {
      const result = await executeTool(
        tool,
        { method, endpoint },
        { connection: connections[tool.service]!, baseUrl: server.url, retry: fastRetry, shared: createSharedState() },
      );
      expect(result.ok, endpoint).toBe(false);
      if (!result.ok) {
        expect(result.error.kind).toBe("invalid_input");
        expect(result.error.fields[0]?.path).toBe("endpoint");
        expect(result.error.retryable).toBe(false);
      }
    }
    expect(server.received).toHaveLength(0);
    expect(server.connections).toBe(0);
  });

  it("a plain path does reach the loopback server (the counter works)", async () => {
    const tool = steps[0]!.tool;
    const result = await executeTool(
      tool,
      { method: "GET", endpoint: "/1/members/me/boards" },
      { connection: connections.trello!, baseUrl: server.url, retry: fastRetry, shared: createSharedState() },
    );
    expect(result.ok).toBe(true);
    expect(server.received.map((r) => r.url.pathname)).toEqual(["/1/members/me/boards"]);
    server.received.length = 0;
  });
});
