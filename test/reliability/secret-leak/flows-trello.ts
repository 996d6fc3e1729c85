/** Trello flows in process: steps and typed calls, the MCP server, failing transports. */
import { expect, it } from "vitest";
import { descriptor as trelloDescriptor } from "../../../generated/trello/descriptor.js";
import { trelloApiCall, trelloCreateCard, trelloGetBoard, trelloGetCard } from "../../../generated/trello/tools.js";
import { Accounts, serveMcpHttp, StepforgeMcp } from "../../../runtime/mcp/index.js";
import { loadCatalogs } from "../../../cli/commands/tools.js";
import { httpClient } from "../../mcp/helpers.js";
import { closedPort } from "../secret-leak-helpers.js";
import {
  BOARD,
  capture,
  clientCall,
  expectNoLeaks,
  fastRetry,
  LIST,
  M,
  mockWithProxy,
  opened,
  options,
  step,
  trelloCredentials,
} from "./harness.js";

export function trelloFlows(): void {
  it(
    "Trello: steps, typed calls, a revoked token, invalid input, the API Call step and " + "its endpoint guard",
    async () => {
      const { url } = await mockWithProxy("trello", {
        auth: { credentials: trelloCredentials },
        webhooks: { secret: M.trelloWebhookSecret.value },
      });
      const ctx = (source: string, fields = trelloCredentials) => options(source, trelloDescriptor, fields, url);

      expect(
        (await step("trello get board", trelloGetBoard, { id: BOARD, lists: "open" }, ctx("trello get board"))).ok,
      ).toBe(true);
      expect(
        (
          await step(
            "trello create card",
            trelloCreateCard,
            { idList: LIST, name: "Leak scan" },
            ctx("trello create card"),
          )
        ).ok,
      ).toBe(true);
      expect(
        (
          await clientCall("trello typed call", trelloDescriptor, ctx("trello typed call"), "getBoardLists", {
            params: { path: { id: BOARD } },
          })
        ).ok,
      ).toBe(true);
      // The OAuth-header mode of the same credentials.
      expect(
        (
          await step(
            "trello oauth mode",
            trelloGetBoard,
            { id: BOARD },
            { ...ctx("trello oauth mode"), connection: { name: "t", fields: trelloCredentials, authMode: "oauth" } },
          )
        ).ok,
      ).toBe(true);

      const revoked = { ...trelloCredentials, token: M.trelloRevokedToken.value };
      const refused = await step(
        "trello revoked token",
        trelloGetBoard,
        { id: BOARD },
        ctx("trello revoked token", revoked),
      );
      expect(refused.ok === false && refused.error.kind).toBe("auth");
      expect(
        (
          await clientCall("trello revoked typed", trelloDescriptor, ctx("trello revoked typed", revoked), "getBoard", {
            params: { path: { id: BOARD } },
          })
        ).ok,
      ).toBe(false);

      // Invalid input, including an unknown field that carries the token.
      const invalid = await step(
        "trello invalid input",
        trelloGetCard,
        { id: 42, token: M.trelloToken.value, key: M.trelloApiKey.value },
        ctx("trello invalid input"),
      );
      expect(invalid.ok === false && invalid.error.kind).toBe("invalid_input");

      // The API Call step: allowed paths (one has the token in it, as Trello's /1/tokens/{token} routes do) ...
      expect(
        (
          await step(
            "trello api call",
            trelloApiCall,
            { method: "GET", endpoint: "/1/members/me/boards" },
            ctx("trello api call"),
          )
        ).ok,
      ).toBe(true);
      const tokenPath = await step(
        "trello api call token path",
        trelloApiCall,
        { method: "GET", endpoint: `/1/tokens/${M.trelloToken.value}/webhooks` },
        ctx("trello api call token path"),
      );
      expect(tokenPath.ok).toBe(true);
      const missing = await step(
        "trello api call 404 token path",
        trelloApiCall,
        { method: "GET", endpoint: `/1/tokens/${M.trelloToken.value}/nothing-here` },
        ctx("trello api call 404 token path"),
      );
      expect(missing.ok).toBe(false);
      // ... and the guard's refusals, with the connection's secrets in the hostile input.
      const hostile = [
        `https://evil.example/steal?token=${M.trelloToken.value}`,
        `//evil.example/${M.trelloToken.value}`,
        `/1/../../${M.trelloApiKey.value}`,
        `/1/%2e%2e/${M.trelloToken.value}`,
        `/1/cards?key=${M.trelloApiKey.value}&token=${M.trelloToken.value}`,
        `/1/cards#${M.trelloToken.value}`,
        `/1/members/${M.trelloToken.value}@evil.example`,
        `/1/x\\${M.trelloToken.value}`,
        `1/${M.trelloToken.value}`,
      ];
      for (const endpoint of hostile) {
        const r = await step(
          "trello api call refused",
          trelloApiCall,
          { method: "GET", endpoint },
          ctx("trello api call refused"),
        );
        expect(r.ok === false && r.error.kind).toBe("invalid_input");
      }
      const reserved = await step(
        "trello api call reserved query",
        trelloApiCall,
        {
          method: "GET",
          endpoint: "/1/members/me",
          query_parameters: { key: M.trelloApiKey.value, Token: M.trelloToken.value },
        },
        ctx("trello api call reserved query"),
      );
      expect(reserved.ok === false && reserved.error.kind).toBe("invalid_input");
      expectNoLeaks();
    },
  );

  it(
    "the MCP server: listings, results and isError results over HTTP, two accounts (one " +
      "revoked), a lost write's check, a refused client",
    async () => {
      const { url } = await mockWithProxy("trello", {
        auth: { credentials: trelloCredentials },
        faults: { seed: 5, slowBody: { rate: 1, delayMs: 40, chunkBytes: 16 }, operations: ["createCard"] },
      });
      const catalogs = (await loadCatalogs()).filter((c) => c.id === "trello");
      const account = (name: string, fields: Record<string, string>) => ({
        name,
        context: { ...options(`mcp ${name}`, trelloDescriptor, fields, url), retry: { ...fastRetry, timeoutMs: 300 } },
      });
      const accounts = new Accounts([
        [
          "trello",
          [
            account("work", trelloCredentials),
            account("old", { ...trelloCredentials, token: M.trelloRevokedToken.value }),
          ],
        ],
      ]);
      const token = M.mcpBearerToken.value;
      for (const dynamic of [false, true]) {
        const mcp = new StepforgeMcp({ catalogs, accounts, dynamic, resultBytes: 3000 });
        const http = await opened(serveMcpHttp(() => mcp.createServer(), { port: 0, token }));
        const c = await httpClient(http.url, token);
        try {
          capture.add(`mcp list dynamic=${dynamic}`, await c.client.listTools());
          const call = async (name: string, args: Record<string, unknown>) => {
            const [tool, input] = dynamic ? ["call_step", { name, input: args }] : [name, args];
            const r = await c.client.callTool({ name: tool, arguments: input });
            capture.add(`mcp ${name} dynamic=${dynamic}`, r);
            return r;
          };
          expect(
            (await call("trello_get_board_cards", { id: BOARD, stepforge_connection: "work" })).isError,
          ).toBeFalsy();
          expect((await call("trello_get_board", { id: BOARD, stepforge_connection: "old" })).isError).toBe(true);
          expect(
            (await call("trello_create_card", { idList: LIST, name: "lost answer", stepforge_connection: "work" }))
              .isError,
          ).toBe(true);
          expect(
            (await call("trello_get_card", { id: 5, token: M.trelloToken.value, stepforge_connection: "work" }))
              .isError,
          ).toBe(true);
          expect((await call("trello_get_member", { id: "..", stepforge_connection: "work" })).isError).toBe(true);
          expect(
            (
              await call("trello_api_call", {
                method: "GET",
                endpoint: `/1/x/../${M.trelloToken.value}`,
                stepforge_connection: "work",
              })
            ).isError,
          ).toBe(true);
          if (dynamic)
            capture.add(
              "mcp describe",
              await c.client.callTool({ name: "describe_step", arguments: { name: "trello_create_card" } }),
            );
        } finally {
          await c.close();
        }
        // A client with a wrong token is refused; the answer carries neither token.
        const refused = await fetch(http.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${M.trelloToken.value}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: "{}",
        });
        capture.add(
          "mcp refused client",
          `${refused.status} ${await refused.text()} ${JSON.stringify([...refused.headers])}`,
        );
        expect(refused.status).toBe(401);
      }
      expectNoLeaks();
    },
  );

  it("Trello: 5xx until retries run out, dropped connections, timeouts, a closed port", async () => {
    const failing = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { error: { rate: 1, statuses: [500, 502, 503] } },
    });
    const dropping = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { drop: { rate: 1 } },
    });
    const slow = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { latency: { rate: 1, ms: 400 } },
    });
    const port = await closedPort();
    for (const [name, base, extra] of [
      ["5xx", failing.url, {}],
      ["dropped", dropping.url, {}],
      ["timeout", slow.url, { retry: { ...fastRetry, timeoutMs: 100 } }],
      ["closed port", `http://127.0.0.1:${port}`, {}],
    ] as const) {
      const ctx = { ...options(`trello ${name}`, trelloDescriptor, trelloCredentials, base), ...extra };
      const r = await step(`trello ${name}`, trelloGetBoard, { id: BOARD }, ctx);
      expect(r.ok, name).toBe(false);
      expect(
        (
          await clientCall(`trello ${name} typed`, trelloDescriptor, ctx, "getBoard", {
            params: { path: { id: BOARD } },
          })
        ).ok,
      ).toBe(false);
      const post = await step(`trello ${name} write`, trelloCreateCard, { idList: LIST, name: "x" }, ctx);
      expect(post.ok).toBe(false);
    }
    expectNoLeaks();
  });
}
