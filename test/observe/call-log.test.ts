/**
 * The call log in one process: tool calls against the behavioural mocks recorded with their
 * connection, redacted input, outcome, attempts and duration; no marker secret in any record; the
 * environment switch; the file sink's rotation, retention, torn lines and following.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, appendFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trelloApiCall, trelloGetCard } from "../../generated/trello/tools.js";
import { worldnewsSearchNews } from "../../generated/worldnews/tools.js";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import {
  CALL_LOG_ENV,
  closeDefaultCallLog,
  createCallLog,
  FileCallLog,
  type CallRecord,
  type Logger,
} from "../../runtime/observe/index.js";
import { executeTool, type ToolContext } from "../../runtime/tools/index.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { Accounts, StepforgeMcp } from "../../runtime/mcp/index.js";
import "../mock/register.js";
import { appendNumbered, followedIds } from "./follow.js";
import { createMarkers, describeLeaks, needlesFor, scanText } from "../reliability/markers.js";

const M = createMarkers();
const CARD = "6123a9f0c4b5d6e7f8091a2b";

/** A fetch whose first answer is 503 (the service busy) and whose later ones are the mock's. */
function busyOnce(): typeof fetch {
  let first = true;
  return async (input, init) => {
    if (!first) return fetch(input, init);
    first = false;
    return new Response("busy", { status: 503 });
  };
}

describe("the call log of tool calls", () => {
  let dir: string;
  let trello: RunningMock;
  let news: RunningMock;
  const trelloConnection = { name: "work", fields: { apiKey: M.trelloApiKey.value, token: M.trelloToken.value } };
  const newsConnection = { name: "news", fields: { apiKey: M.worldnewsApiKey.value } };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sf-calllog-"));
    trello = await startMock("trello", {
      auth: { credentials: { apiKey: M.trelloApiKey.value, token: M.trelloToken.value } },
    });
    news = await startMock("worldnews", { auth: { credentials: { apiKey: M.worldnewsApiKey.value } } });
  });
  afterAll(async () => {
    await trello?.close();
    await news?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const context = (extra: Partial<ToolContext> = {}): ToolContext => ({
    connection: trelloConnection,
    baseUrl: trello.url,
    shared: createSharedState(),
    ...extra,
  });
  const lines = (file: string): CallRecord[] =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CallRecord);

  it("records a successful step: tool, service, connection, input, outcome, one attempt, duration", async () => {
    const file = join(dir, "ok.jsonl");
    const log = createCallLog({ file });
    const result = await executeTool(trelloGetCard, { id: CARD, fields: "name" }, context({ callLog: log }));
    expect(result.ok).toBe(true);
    await log.flush();
    const [record, ...rest] = lines(file);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      v: 1,
      tool: "trello_get_card",
      service: "trello",
      connection: "work",
      input: { id: CARD, fields: "name" },
      outcome: "ok",
      attempts: 1,
      pid: process.pid,
    });
    expect(record!.durationMs).toBeGreaterThan(0);
    expect(Date.parse(record!.time)).toBeGreaterThan(Date.now() - 60_000);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("records a failure with its kind, and attempts counted across a retry", async () => {
    const file = join(dir, "fail.jsonl");
    const log = createCallLog({ file });
    // The service answers 503 once, then the mock answers: two attempts, one call.
    const flaky = busyOnce();
    const retried = await executeTool(
      trelloGetCard,
      { id: CARD },
      context({ callLog: log, fetch: flaky, retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } }),
    );
    expect(retried.ok).toBe(true);
    const missing = await executeTool(trelloGetCard, { id: "0000000000000000000000ff" }, context({ callLog: log }));
    expect(missing.ok).toBe(false);
    const invalid = await executeTool(trelloGetCard, { nope: 1 }, context({ callLog: log }));
    expect(invalid.ok).toBe(false);
    await log.flush();
    const [a, b, c] = lines(file);
    expect(a).toMatchObject({ outcome: "ok", attempts: 2 });
    expect(b).toMatchObject({
      outcome: "not_found",
      attempts: 1,
      error: { kind: "not_found", status: 404, retryable: false },
    });
    expect(c).toMatchObject({ outcome: "invalid_input", attempts: 0, error: { kind: "invalid_input" } });
  });

  it("counts the attempts of a client the caller built (context.client), per tool call", async () => {
    const file = join(dir, "own-client.jsonl");
    const log = createCallLog({ file });
    const flaky = busyOnce();
    let ownRequests = 0;
    const client = createServiceClient(trelloGetCard.descriptor, {
      ...context({ fetch: flaky, retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } }),
      hooks: { onRequest: () => void ownRequests++ },
    });
    const own = context({ client, callLog: log });
    expect((await executeTool(trelloGetCard, { id: CARD }, own)).ok).toBe(true);
    expect((await executeTool(trelloApiCall, { method: "GET", endpoint: `/1/cards/${CARD}` }, own)).ok).toBe(true);
    await log.flush();
    expect(lines(file)).toEqual([
      expect.objectContaining({ tool: "trello_get_card", connection: "work", outcome: "ok", attempts: 2 }),
      expect.objectContaining({ tool: "trello_api_call", connection: "work", outcome: "ok", attempts: 1 }),
    ]);
    // The client's own hooks still hear every request.
    expect(ownRequests).toBe(3);
  });

  it("keeps no secret: connection secrets in the input, credential-named fields, the API Call's query", async () => {
    const file = join(dir, "secrets.jsonl");
    const log = createCallLog({ file });
    await executeTool(
      trelloApiCall,
      {
        method: "GET",
        endpoint: `/1/cards/${CARD}`,
        query_parameters: { fields: `name ${M.trelloToken.value}`, password: "hunter22-not-a-marker" },
      },
      context({ callLog: log }),
    );
    await executeTool(
      worldnewsSearchNews,
      { text: `look up ${M.worldnewsApiKey.value} and ${encodeURIComponent(M.worldnewsApiKey.value)}` },
      { connection: newsConnection, baseUrl: news.url, shared: createSharedState(), callLog: log },
    );
    // The model's input as a whole is a secret-shaped value under a credential-named key.
    await executeTool(
      trelloApiCall,
      { method: "POST", endpoint: "/1/cards", body: { token: M.trelloRevokedToken.value, name: "x" } },
      context({ callLog: log }),
    );
    await log.flush();
    const text = readFileSync(file, "utf8");
    const leaks = scanText(file, text, needlesFor(Object.values(M)));
    expect(describeLeaks(leaks)).toBe("");
    const [apiCall, search, body] = lines(file);
    expect(apiCall!.input).toMatchObject({ query_parameters: { fields: "name [redacted]", password: "[redacted]" } });
    expect(apiCall!.outcome).not.toBe("invalid_input");
    expect((search!.input as { text: string }).text).toBe("look up [redacted] and [redacted]");
    expect(body!.input).toMatchObject({ body: { token: "[redacted]", name: "x" } });
  });

  it("keeps metadata only with inputs: none, and cuts long values", async () => {
    const file = join(dir, "meta.jsonl");
    const log = createCallLog({ file, inputs: "none" });
    await executeTool(trelloGetCard, { id: CARD }, context({ callLog: log }));
    const long = createCallLog({ file: join(dir, "long.jsonl") });
    await executeTool(
      worldnewsSearchNews,
      { text: "y".repeat(5000) },
      { connection: newsConnection, baseUrl: news.url, shared: createSharedState(), callLog: long },
    );
    await Promise.all([log.flush(), long.flush()]);
    expect(lines(file)[0]).not.toHaveProperty("input");
    const text = (lines(join(dir, "long.jsonl"))[0]!.input as { text: string }).text;
    expect(text.length).toBeLessThan(1100);
    expect(text).toMatch(/…\[cut 4000 chars\]$/);
  });

  it("STEPFORGE_CALL_LOG names the log of every call whose context names none; callLog: false opts out", async () => {
    const file = join(dir, "env.jsonl");
    const before = process.env[CALL_LOG_ENV];
    process.env[CALL_LOG_ENV] = file;
    try {
      await executeTool(trelloGetCard, { id: CARD }, context());
      await executeTool(trelloGetCard, { id: CARD }, context({ callLog: false }));
      await closeDefaultCallLog();
    } finally {
      if (before === undefined) delete process.env[CALL_LOG_ENV];
      else process.env[CALL_LOG_ENV] = before;
    }
    expect(lines(file)).toHaveLength(1);
  });

  it("an MCP server logs its tool calls with the account's connection name (STEPFORGE_CALL_LOG)", async () => {
    const file = join(dir, "mcp.jsonl");
    const before = process.env[CALL_LOG_ENV];
    process.env[CALL_LOG_ENV] = file;
    try {
      const account = {
        name: "team-board",
        context: {
          connection: { ...trelloConnection, name: "team-board" },
          baseUrl: trello.url,
          shared: createSharedState(),
        },
      };
      const mcp = new StepforgeMcp({
        catalogs: await loadCatalogs(),
        selection: { services: ["trello"] },
        accounts: new Accounts([["trello", [account]]]),
      });
      const result = (await mcp.callTool("trello_get_card", { id: CARD })) as { isError?: boolean };
      expect(result.isError).toBeUndefined();
      await closeDefaultCallLog();
    } finally {
      if (before === undefined) delete process.env[CALL_LOG_ENV];
      else process.env[CALL_LOG_ENV] = before;
    }
    expect(lines(file)).toEqual([
      expect.objectContaining({ tool: "trello_get_card", connection: "team-board", outcome: "ok", attempts: 1 }),
    ]);
  });

  it("a logger sees the client's events; a failing sink is counted and told, the call unharmed", async () => {
    const seen: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const logger = Object.fromEntries(
      (["debug", "info", "warn", "error"] as const).map((level) => [
        level,
        (fields: Record<string, unknown>, message: string) => seen.push({ level, fields, message }),
      ]),
    ) as unknown as Logger;
    const broken = createCallLog({
      sink: {
        kind: "file",
        where: "nowhere",
        append: () => Promise.reject(new Error("disk full")),
        appendBatch: () => Promise.reject(new Error("disk full")),
        read: async () => ({ records: [], unreadable: 0 }),
        follow: async () => {},
        close: async () => {},
      },
      logger,
    });
    const result = await executeTool(trelloGetCard, { id: CARD }, context({ callLog: broken, logger }));
    expect(result.ok).toBe(true);
    await broken.flush();
    expect(broken.dropped).toBe(1);
    expect(seen.map((s) => `${s.level} ${s.fields.event}`)).toEqual([
      "debug request",
      "debug response",
      "warn call_log_dropped",
    ]);
    expect(seen[0]!.message).toMatch(
      new RegExp(
        `^trello getCard: GET http://127\\.0\\.0\\.1:\\d+/1/cards/${CARD}\\?key=\\[redacted\\]&token=\\[redacted\\]$`,
      ),
    );
  });
});

describe("the file sink", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sf-calllog-file-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const record = (n: number, extra: Partial<CallRecord> = {}): CallRecord => ({
    v: 1,
    id: `r${n}`,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    tool: n % 2 ? "trello_get_card" : "trello_create_card",
    service: "trello",
    connection: n % 3 ? "work" : "home",
    input: { n, pad: "p".repeat(200) },
    outcome: n % 5 ? "ok" : "rate_limited",
    durationMs: 1,
    pid: 1,
    ...extra,
  });

  it("rotates past maxBytes, keeps maxFiles segments, and reads the newest records in order across them", async () => {
    const file = join(dir, "rot", "calls.jsonl");
    const sink = new FileCallLog(file, { maxBytes: 2000, maxFiles: 3 });
    await appendNumbered(sink, record, 1, 60);
    const segments = await sink.segments();
    expect(segments).toHaveLength(3);
    expect(readdirSync(join(dir, "rot")).filter((f) => f.startsWith("calls.jsonl.")).length).toBe(3);
    const { records } = await sink.read({}, 1000);
    const ns = records.map((r) => (r.input as { n: number }).n);
    // The oldest segments went; what is left is a contiguous run ending with the last record.
    expect(ns[ns.length - 1]).toBe(60);
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => 60 - ns.length + 1 + i));
    expect(ns.length).toBeLessThan(60);
    const last = await sink.read({}, 5);
    expect(last.records.map((r) => (r.input as { n: number }).n)).toEqual([56, 57, 58, 59, 60]);
  });

  it("removes segments older than maxAgeMs at the next rotation", async () => {
    const file = join(dir, "age", "calls.jsonl");
    const sink = new FileCallLog(file, { maxBytes: 1000, maxFiles: 100, maxAgeMs: 1000 });
    await appendNumbered(sink, record, 1, 8);
    const rotated = new Set<string>();
    for (const segment of await sink.segments())
      for (const line of readFileSync(segment, "utf8").trim().split("\n"))
        rotated.add((JSON.parse(line) as CallRecord).id);
    expect(rotated.size).toBeGreaterThan(2);
    await new Promise((r) => setTimeout(r, 1100));
    await appendNumbered(sink, record, 9, 12);
    const left = (await sink.read({}, 1000)).records.map((r) => r.id);
    expect(left.filter((id) => rotated.has(id))).toEqual([]);
    expect(left).toEqual(expect.arrayContaining(["r9", "r10", "r11", "r12"]));
  });

  it("filters by tool, service, connection, outcome and since; skips and counts a torn line", async () => {
    const file = join(dir, "filter.jsonl");
    const sink = new FileCallLog(file);
    await appendNumbered(sink, record, 1, 20);
    appendFileSync(file, '{"v":1,"id":"torn","ti\n');
    await sink.append(record(21));
    const all = await sink.read({}, 100);
    expect(all.unreadable).toBe(1);
    expect(all.records).toHaveLength(21);
    const ids = async (f: Parameters<FileCallLog["read"]>[0]) => (await sink.read(f, 100)).records.map((r) => r.id);
    expect(await ids({ tool: "trello_create_card", connection: "home" })).toEqual(["r6", "r12", "r18"]);
    expect(await ids({ outcome: "error" })).toEqual(["r5", "r10", "r15", "r20"]);
    expect(await ids({ outcome: "rate_limited", since: Date.UTC(2026, 0, 1, 0, 0, 12) })).toEqual(["r15", "r20"]);
    expect(await ids({ service: "marketo" })).toEqual([]);
  });

  it("follow sees new records, across a rotation, and only those that match", async () => {
    const file = join(dir, "follow", "calls.jsonl");
    const sink = new FileCallLog(file, { maxBytes: 1500, pollMs: 20 });
    await sink.append(record(1));
    const got = await followedIds(sink, { outcome: "ok" }, 500, () => appendNumbered(sink, record, 2, 16), 12);
    expect((await sink.segments()).length).toBeGreaterThan(0);
    expect(got).toEqual(["r2", "r3", "r4", "r6", "r7", "r8", "r9", "r11", "r12", "r13", "r14", "r16"]);
  });
});
