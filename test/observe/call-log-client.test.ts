/**
 * A logged tool call keeps the shared client: the call log counts a call's attempts with hooks of
 * that call, not with a client built per call. Counts the clients `createServiceClient` builds
 * (the real one, wrapped) while tool calls run against the Trello mock.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { trelloGetCard } from "../../generated/trello/tools.js";
import * as clientModule from "../../runtime/client/client.js";
import { createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { type CallLog, createCallLog, type CallRecord } from "../../runtime/observe/index.js";
import { executeTool, type ToolContext } from "../../runtime/tools/index.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { Accounts, StepforgeMcp } from "../../runtime/mcp/index.js";
import "../mock/register.js";
import { createMarkers } from "../reliability/markers.js";

vi.mock("../../runtime/client/client.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../runtime/client/client.js")>();
  return { ...actual, createServiceClient: vi.fn(actual.createServiceClient) };
});
const builds = vi.mocked(clientModule.createServiceClient);

const CARD = "6123a9f0c4b5d6e7f8091a2b";
const M = createMarkers();
const FIELDS = { apiKey: M.trelloApiKey.value, token: M.trelloToken.value };

describe("a logged tool call keeps the shared client", () => {
  let dir: string;
  let trello: RunningMock;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sf-calllog-client-"));
    trello = await startMock("trello", { auth: { credentials: FIELDS } });
  });
  afterAll(async () => {
    await trello?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    builds.mockClear();
  });

  const records = (file: string): CallRecord[] =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CallRecord);
  const loggedContext = (callLog: CallLog): ToolContext => ({
    connection: { name: "work", fields: FIELDS },
    baseUrl: trello.url,
    shared: createSharedState(),
    callLog,
  });
  const logged = expect.objectContaining({ tool: "trello_get_card", connection: "work", outcome: "ok", attempts: 1 });

  it("an MCP server with a call log builds one client per account, and counts each call's attempts", async () => {
    const file = join(dir, "mcp.jsonl");
    const log = createCallLog({ file });
    const context = loggedContext(log);
    const mcp = new StepforgeMcp({
      catalogs: await loadCatalogs(),
      selection: { services: ["trello"] },
      accounts: new Accounts([["trello", [{ name: "work", context }]]]),
    });
    for (let i = 0; i < 3; i++) {
      const result = (await mcp.callTool("trello_get_card", { id: CARD })) as { isError?: boolean };
      expect(result.isError).toBeUndefined();
    }
    await log.flush();
    expect(records(file)).toEqual([logged, logged, logged]);
    expect(builds).toHaveBeenCalledTimes(1);
  });

  it("executeTool with a call log reuses the context's client across calls", async () => {
    const file = join(dir, "execute.jsonl");
    const log = createCallLog({ file });
    const context = loggedContext(log);
    for (let i = 0; i < 2; i++) expect((await executeTool(trelloGetCard, { id: CARD }, context)).ok).toBe(true);
    await log.flush();
    expect(records(file)).toEqual([logged, logged]);
    expect(builds).toHaveBeenCalledTimes(1);
  });
});
