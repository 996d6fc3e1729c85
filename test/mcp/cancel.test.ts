/**
 * Calls held by a client-side limit, in process against the Trello mock: a call the MCP client
 * cancels (notifications/cancelled, or an HTTP client that goes away) is dropped from the queue and
 * never reaches the service.
 *
 * The account's `perToken` window is shrunk to one request per second, so one read fills it and
 * the next call queues. A read sent after the cancelled write queues behind it (first come, first
 * served): once the read has its answer, a write that was still queued would have been sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  Accounts,
  serveMcpHttp,
  startMockAccounts,
  StepforgeMcp,
  type MockAccounts,
  type RunningMcpHttp,
} from "../../runtime/mcp/index.js";
import type { ThrottleEvent } from "../../runtime/hooks.js";
import { createSharedState } from "../../runtime/state/shared.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { CARD, LIST } from "../mock/helpers.js";
import { httpClient, json } from "./helpers.js";
import { catalogsOf } from "./in-process.js";

type Json = Record<string, unknown>;

/** Resolves at the next throttle event of `operation` (the call is then queued behind a limit). */
class Throttles {
  private waiting: Array<{ operation: string; resolve: () => void }> = [];
  readonly hook = (event: ThrottleEvent) => {
    for (const w of this.waiting.filter((x) => x.operation === event.operation)) w.resolve();
    this.waiting = this.waiting.filter((x) => x.operation !== event.operation);
  };
  next(operation: string): Promise<void> {
    return new Promise((resolve) => this.waiting.push({ operation, resolve }));
  }
}

/** The mock's accounts with a window of one request per `windowSeconds` (own limit state) and the throttle hook. */
function limitedAccounts(mocks: MockAccounts, throttles: Throttles, windowSeconds = 1): Accounts {
  const shared = createSharedState();
  return new Accounts(
    mocks.accounts.map(([service, list]) => [
      service,
      list.map((a) => ({
        name: a.name,
        context: {
          ...a.context,
          shared,
          connection: { ...a.context.connection, limits: { perToken: { requests: 1, windowSeconds } } },
          hooks: { onThrottle: throttles.hook },
        },
      })),
    ]),
  );
}

const createdCards = (mocks: MockAccounts): number =>
  Object.values(mocks.mocks[0]!.counters().creates).reduce((a, b) => a + b, 0);

describe("a cancelled MCP call that waits behind a limit", () => {
  let catalogs: ServiceCatalog[];
  let mocks: MockAccounts;
  let mcp: StepforgeMcp;
  const throttles = new Throttles();
  beforeAll(async () => {
    catalogs = await catalogsOf("trello");
    mocks = await startMockAccounts(catalogs);
    mcp = new StepforgeMcp({ catalogs, accounts: limitedAccounts(mocks, throttles) });
  });
  afterAll(async () => mocks?.close());

  it("is never sent when the client cancels it (notifications/cancelled)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = mcp.createServer();
    await server.connect(serverSide);
    const client = new Client({ name: "stepforge-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const before = createdCards(mocks);
      expect((await client.callTool({ name: "trello_get_card", arguments: { id: CARD } })).isError).toBeFalsy();
      const queued = throttles.next("createCard");
      const cancel = new AbortController();
      const write = client.callTool(
        { name: "trello_create_card", arguments: { idList: LIST, name: "cancelled while queued" } },
        undefined,
        { signal: cancel.signal },
      );
      await queued;
      cancel.abort("the user gave up");
      await expect(write).rejects.toThrow();
      // Queued behind the write (if it were still there): when this has its answer, the write would have gone.
      expect((await client.callTool({ name: "trello_get_card", arguments: { id: CARD } })).isError).toBeFalsy();
      expect(createdCards(mocks)).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("is never sent when the HTTP client disconnects", async () => {
    const http: RunningMcpHttp = await serveMcpHttp(() => mcp.createServer(), { port: 0 });
    const c = await httpClient(http.url);
    try {
      const before = createdCards(mocks);
      expect((await c.client.callTool({ name: "trello_get_card", arguments: { id: CARD } })).isError).toBeFalsy();
      const queued = throttles.next("createCard");
      const gone = new AbortController();
      const body = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "trello_create_card", arguments: { idList: LIST, name: "disconnected while queued" } },
      };
      const write = fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
        signal: gone.signal,
      });
      await queued;
      gone.abort();
      await expect(write).rejects.toThrow();
      expect(json<Json>(await c.client.callTool({ name: "trello_get_card", arguments: { id: CARD } }))).toMatchObject({
        id: CARD,
      });
      expect(createdCards(mocks)).toBe(before);
    } finally {
      await c.close();
      await http.close();
    }
  });
});

describe("a call a client-side limit would hold longer than the server's bound", () => {
  let mocks: MockAccounts;
  beforeAll(async () => {
    mocks = await startMockAccounts(await catalogsOf("trello"));
  });
  afterAll(async () => mocks?.close());

  it("fails at once as rate_limited with retryAfterMs (default bound 10 s), nothing sent", async () => {
    const catalogs = await catalogsOf("trello");
    const mcp = new StepforgeMcp({ catalogs, accounts: limitedAccounts(mocks, new Throttles(), 60) });
    expect((await mcp.callTool("trello_get_card", { id: CARD })).isError).toBeFalsy();
    const sent = mocks.mocks[0]!.counters().requests;
    const held = await mcp.callTool("trello_create_card", { idList: LIST, name: "held for a minute" });
    expect(held.isError).toBe(true);
    const error = json<{ kind: string; retryable: boolean; retryAfterMs: number; message: string }>(held);
    expect(error).toMatchObject({ kind: "rate_limited", retryable: true });
    expect(error.retryAfterMs).toBeGreaterThan(10_000);
    expect(error.message).toMatch(/limit "perToken" would hold this call about 60 s.*Wait at least 60 s/);
    expect(mocks.mocks[0]!.counters().requests).toBe(sent);
  });

  it("waits when the bound is larger than the wait (maxLimitWaitMs)", async () => {
    const catalogs = await catalogsOf("trello");
    const mcp = new StepforgeMcp({
      catalogs,
      accounts: limitedAccounts(mocks, new Throttles(), 0.2),
      maxLimitWaitMs: 60_000,
    });
    expect((await mcp.callTool("trello_get_card", { id: CARD })).isError).toBeFalsy();
    expect(json(await mcp.callTool("trello_get_card", { id: CARD }))).toMatchObject({ id: CARD });
  });
});
