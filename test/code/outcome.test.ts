/**
 * Each write's outcome in execute's result: done, failed, or unknown with the check to run first,
 * written as the code's own call (services.trello.getListCards(...)), so an agent can resume
 * without doing anything twice. The lost answer is real: the mock applies createCard and sends its
 * answer slower than the client waits (as test/tools/outcome.test.ts does for the steps).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import type { Account } from "../../runtime/mcp/index.js";
import { CARD, LIST, TRELLO } from "../mock/helpers.js";
import { json, serve, type Served } from "./helpers.js";

let mock: RunningMock;
let served: Served;

beforeAll(async () => {
  mock = await startMock("trello", {
    faults: { seed: 1, slowBody: { rate: 1, delayMs: 40, chunkBytes: 16 }, operations: ["createCard"] },
  });
  const account: Account = {
    name: "mock",
    context: {
      connection: { name: "mock", fields: { ...TRELLO } },
      baseUrl: mock.url,
      shared: createSharedState(),
      retry: { attempts: 2, baseDelayMs: 1, timeoutMs: 300 },
    },
  };
  served = await serve("code", [["trello", [account]]]);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await mock?.close();
});

interface Write {
  call: string;
  path?: Record<string, string>;
  outcome: "done" | "failed" | "unknown";
  error?: { kind: string };
  check?: { call: string; init: { params: { path: { id: string } } }; match: Record<string, string> };
}

describe("writes and their outcomes", () => {
  it("lists each write as done, failed, or unknown with its check in the code's terms", async () => {
    const before = mock.records("card").length;
    const result = await served.client.callTool({
      name: "execute",
      arguments: {
        code: `const cards = await services.trello.getListCards({ params: { path: { id: "${LIST}" } } });
await services.trello.updateCard({ params: { path: { id: "${CARD}" } }, body: { desc: "checked" } });
const failed = await services.trello.addCommentToCard({
  params: { path: { id: "0000000000000000deadbeef" } }, body: { text: "x" } }).catch((e) => e.kind);
const lost = await services.trello.createCard({
  body: { idList: "${LIST}", name: "Lost answer" } }).catch((e) => e.outcome);
return { read: cards.length, failed, lost };`,
      },
    });
    expect(result.isError).toBeFalsy();
    const body = json<{ result: { failed: string; lost: string }; writes: Write[]; calls: number }>(result);
    expect(body.result).toMatchObject({ failed: "not_found", lost: "unknown" });
    expect(body.calls).toBe(4);
    expect(body.writes.map((w) => [w.call, w.outcome])).toEqual([
      ["services.trello.updateCard", "done"],
      ["services.trello.addCommentToCard", "failed"],
      ["services.trello.createCard", "unknown"],
    ]);
    expect(body.writes[0]!.path).toEqual({ id: CARD });
    expect(body.writes[1]!.error?.kind).toBe("not_found");
    expect(body.writes[2]!.check).toEqual({
      call: "services.trello.getListCards",
      init: { params: { path: { id: LIST } } },
      match: { name: "Lost answer" },
    });
    // The runtime sent it once; following the check finds that one card instead of making another.
    expect(mock.records("card").length).toBe(before + 1);
    const check = body.writes[2]!.check!;
    const resumed = await served.client.callTool({
      name: "execute",
      arguments: {
        code:
          `const cards = await ${check.call}(${JSON.stringify(check.init)});\nreturn cards.filter((c) => ` +
          `c.name === ${JSON.stringify(check.match.name)}).length;`,
      },
    });
    expect(json<{ result: number }>(resumed).result).toBe(1);
  });

  it("an unknown outcome that ends the run is in the failure too, with the call to check", async () => {
    const result = await served.client.callTool({
      name: "execute",
      arguments: {
        code: `return await services.trello.createCard({ body: { idList: "${LIST}", name: "Second lost" } });`,
      },
    });
    expect(result.isError).toBe(true);
    const body = json<{
      error: { kind: string; message: string; service: { outcome: string; retryable: boolean } };
      writes: Write[];
    }>(result);
    expect(body.error.service).toMatchObject({ outcome: "unknown", retryable: false });
    expect(body.error.message).toMatch(
      joinedPattern([
        /Do not call services\.trello\.createCard again yet: first call /,
        /services\.trello\.getListCards\(\{"params":\{"path":\{"id":"[0-9a-f]{24}"\}\}\}\) /,
        /and look for a record with name = "Second lost"/,
      ]),
    );
    expect(body.writes).toEqual([expect.objectContaining({ call: "services.trello.createCard", outcome: "unknown" })]);
  });
});
