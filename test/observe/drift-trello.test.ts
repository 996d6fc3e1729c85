/**
 * Drift against something nobody here wrote: Prism serving Atlassian's own Trello document
 * (test/corpus/specs/trello-openapi.json) stands in for the real Trello behind the validation
 * proxy, which checks every exchange against specs/trello.yaml. The Trello tool steps run through
 * it; the report must list differences that really exist between the two documents (each one is
 * checked in Atlassian's document here too), and nothing secret. Then the recording is replayed by
 * the behavioural mock and every step must get the same answer as through the proxy; a request
 * the recording lacks is answered by the mock. Last, the same through the CLI (`stepforge proxy`,
 * `stepforge mock --replay`).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockCommand } from "../../cli/commands/mock.js";
import { proxyCommand } from "../../cli/commands/proxy.js";
import { conformanceFromSpec } from "../../cli/commands/proxy-spec.js";
import { mockDefinition } from "../../generated/trello/mock.js";
import { tools } from "../../generated/trello/tools.js";
import { createSharedState } from "../../runtime/index.js";
import { createReplayer, startMockServer, type RunningMock } from "../../runtime/mock/index.js";
import { startPrism, type RunningPrism } from "../../runtime/mock/prism.js";
import {
  type DriftReportJson,
  type Har,
  readHar,
  type RunningProxy,
  startValidationProxy,
} from "../../runtime/observe/index.js";
import { executeTool, type ToolResult } from "../../runtime/tools/index.js";
import { freePort } from "../helpers/ports.js";
import { createMarkers, describeLeaks, needlesFor, scanText } from "../reliability/markers.js";

const ROOT = join(import.meta.dirname, "../..");
const ATLASSIAN = join(ROOT, "test/corpus/specs/trello-openapi.json");
const ID = "5abbe4b7ddc1b351ef961414";
const M = createMarkers();
const connection = { name: "work", fields: { apiKey: M.trelloApiKey.value, token: M.trelloToken.value } };

/** Steps and inputs driven through the proxy: reads and writes over cards, boards, lists, members. */
const STEPS: Array<[string, Record<string, unknown>]> = [
  ["trello_get_card", { id: ID }],
  ["trello_get_board", { id: ID }],
  ["trello_get_board_lists", { id: ID }],
  ["trello_get_board_cards", { id: ID }],
  ["trello_get_list_cards", { id: ID }],
  ["trello_get_board_labels", { id: ID }],
  ["trello_get_member", { id: "me" }],
  ["trello_get_checklist", { id: ID }],
  ["trello_create_card", { idList: ID, name: "Drift check" }],
  ["trello_update_card", { id: ID, name: "Renamed" }],
  ["trello_get_card", { id: ID }],
];

const tool = (name: string) => tools.find((t) => t.name === name)!;

class Text extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

describe("drift between specs/trello.yaml and Atlassian's Trello (Prism) through the validation proxy", {
  timeout: 240_000,
}, () => {
  let prism: RunningPrism;
  let proxy: RunningProxy;
  let dir: string;
  const atlassian = JSON.parse(readFileSync(ATLASSIAN, "utf8")) as {
    paths: Record<string, any>;
    components: { schemas: Record<string, any> };
  };
  const throughProxy: ToolResult[] = [];
  let report: DriftReportJson;
  let har: Har;

  const run = (baseUrl: string) => async (name: string, input: Record<string, unknown>) =>
    executeTool(tool(name), input, {
      connection,
      baseUrl,
      shared: createSharedState(),
      retry: { attempts: 1 },
      callLog: false,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sf-drift-"));
    prism = await startPrism({ specFile: ATLASSIAN, port: await freePort() });
    const { definition, label } = conformanceFromSpec(join(ROOT, "specs/trello.yaml"));
    // Atlassian's server is https://api.trello.com/1 and its paths start below /1.
    proxy = await startValidationProxy({
      definition,
      upstream: prism.url,
      stripPrefix: "/1",
      record: true,
      specLabel: label,
    });
    for (const [name, input] of STEPS) throughProxy.push(await run(proxy.url)(name, input));
    report = proxy.report();
    har = proxy.har()!;
  });
  afterAll(async () => {
    await proxy?.close();
    await prism?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const find = (operation: string, pointer: string, kind: string, status = 200) =>
    report.operations
      .find((o) => o.operationId === operation)
      ?.differences.find((d) => d.pointer === pointer && d.kind === kind && d.status === status);

  it("reads get through; the report covers every operation driven", () => {
    expect(throughProxy[0]).toMatchObject({ ok: true, data: { id: ID } });
    expect(report.exchanges).toBe(STEPS.length);
    expect(report.upstreamFailures).toBe(0);
    expect(report.summary.operationsSeen).toBe(
      new Set(
        STEPS.map(([name]) => tool(name).kind === "operation" && (tool(name) as { operationId: string }).operationId),
      ).size,
    );
    expect(report.unknownRoutes).toEqual([]);
  });

  it("lists real differences between the two documents", () => {
    const card = atlassian.components.schemas.Card.properties;
    // Atlassian: dueReminder is a string; ours: minutes before the due date, an integer (or null).
    expect(card.dueReminder.type).toBe("string");
    expect(find("getCard", "/body/dueReminder", "type")).toMatchObject({
      expected: "type integer or null",
      got: "string",
      count: 2,
    });
    // Atlassian: `labels` holds label ids; ours: the label objects Trello really nests.
    expect(card.labels.items.oneOf[0].$ref).toBe("#/components/schemas/TrelloID");
    expect(find("getCard", "/body/labels/*", "type")).toMatchObject({ expected: "type object", got: "string" });
    // Atlassian: `idChecklists` may hold checklist objects; ours: ids only.
    expect(card.idChecklists.items.oneOf.map((o: { $ref: string }) => o.$ref)).toContain(
      "#/components/schemas/Checklist",
    );
    expect(find("getCard", "/body/idChecklists/*", "type")).toMatchObject({ expected: "type string", got: "object" });
    // Atlassian: badges.due is a date; ours: a date-time.
    expect(card.badges.properties.due.format).toBe("date");
    expect(find("getCard", "/body/badges/due", "format")).toMatchObject({
      expected: "format date-time",
      example: "2019-08-24",
    });
    // Atlassian's card cover has isTemplate, which ours does not list (an undocumented field).
    expect(card.cover.properties.isTemplate).toBeDefined();
    expect(find("getCard", "/body/cover/isTemplate", "undocumented-field")).toMatchObject({
      expected: "not in the spec",
      example: false,
    });
    // Atlassian documents GET /boards/{id}/cards as a 200 without a body; ours returns the cards.
    expect(atlassian.paths["/boards/{id}/cards"].get.responses["200"].content).toBeUndefined();
    expect(find("getBoardCards", "/body", "missing-body")).toBeDefined();
    // Atlassian's POST /cards takes every field as a query parameter and no body; ours sends JSON,
    // which Prism refuses with 415 (a status our spec does not declare).
    expect(atlassian.paths["/cards"].post.requestBody).toBeUndefined();
    expect(find("createCard", "", "undeclared-status", 415)).toMatchObject({
      expected: expect.stringMatching(/^one of 200, 400/),
    });
    expect(throughProxy[8]).toMatchObject({ ok: false, error: { status: 415 } });
    // The same difference of every card in a list counts once per answer.
    expect(find("getListCards", "/body/*/dueReminder", "type")).toMatchObject({ count: 1 });
  });

  it("ranks what breaks typed code first, and counts by kind", () => {
    const kinds = report.summary.mostImportant.map((d) => d.kind);
    expect(kinds[0]).toBe("undeclared-status");
    for (const kind of ["undeclared-status", "type", "format", "missing-body"] as const)
      expect(report.summary.byKind[kind]).toBeGreaterThan(0);
    const md = proxy.markdown();
    expect(md).toContain("# Drift report: trello");
    expect(md).toContain("## getCard: GET `/1/cards/{id}`");
    expect(md).toMatch(
      /\| response 200 `\/body\/dueReminder` \| type \| type integer or null \| `"string"` \(string\) \| 2 \|/,
    );
  });

  it("writes no secret into the report or the recording", () => {
    const needles = needlesFor(Object.values(M));
    const leaks = [
      ...scanText("report.json", JSON.stringify(report), needles),
      ...scanText("report.md", proxy.markdown(), needles),
      ...scanText("recording.har", JSON.stringify(har), needles),
    ];
    expect(describeLeaks(leaks)).toBe("");
    const url = new URL(har.log.entries[0]!.request.url);
    expect(url.searchParams.get("key")).toBe("[redacted]");
    expect(url.searchParams.get("token")).toBe("[redacted]");
  });

  it("records HAR 1.2 that the behavioural mock replays: the same answer for every step", async () => {
    expect(har.log.version).toBe("1.2");
    expect(har.log.entries).toHaveLength(STEPS.length);
    const entry = har.log.entries[0]!;
    expect(entry).toMatchObject({
      request: { method: "GET", httpVersion: "HTTP/1.1" },
      response: { status: 200 },
      _operationId: "getCard",
      _path: `/1/cards/${ID}`,
    });
    expect(entry.request.url.startsWith(`${prism.url}/cards/${ID}?`)).toBe(true);
    const replayer = createReplayer(har.log.entries, mockDefinition);
    const mock: RunningMock = await startMockServer(mockDefinition, {
      auth: { credentials: connection.fields },
      hooks: { replay: replayer },
    });
    try {
      const replayed: ToolResult[] = [];
      for (const [name, input] of STEPS) replayed.push(await run(mock.url)(name, input));
      expect(replayed).toEqual(throughProxy);
      expect(replayer.replayed).toBe(STEPS.length);
      // Not recorded (another card): the behavioural mock answers from its own records.
      const other = await run(mock.url)("trello_get_card", { id: "6123a9f0c4b5d6e7f8091a2b" });
      expect(other).toMatchObject({
        ok: true,
        data: { id: "6123a9f0c4b5d6e7f8091a2b", name: "Write launch announcement" },
      });
      expect(mock.counters().byOperation.getCard).toBe(1);
    } finally {
      await mock.close();
    }
  });

  it("the CLI: stepforge proxy writes the report and the recording; stepforge mock --replay serves them", async () => {
    const port = await freePort();
    const har = join(dir, "trello.har");
    const base = join(dir, "drift");
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const out = new Text();
    const err = new Text();
    const running = proxyCommand(
      [
        "--service",
        "trello",
        "--upstream",
        prism.url,
        "--strip-prefix",
        "/1",
        "--port",
        String(port),
        "--record",
        har,
        "--report",
        base,
      ],
      out,
      err,
      until,
    );
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !out.text.includes(" proxy "); i++) await new Promise((r) => setTimeout(r, 50));
    expect(out.text).toContain(`trello proxy ${url} -> ${prism.url} (without /1)`);
    const first = await run(url)("trello_get_card", { id: ID });
    stop();
    expect(await running).toBe(0);
    expect(err.text).toBe("");
    expect(out.text).toContain(`GET /1/cards/${ID} getCard 200`);
    expect(out.text).toMatch(/trello: 1 exchanges over 1 operations; 1 differ from the spec in \d+ ways/);
    const written = JSON.parse(readFileSync(`${base}.json`, "utf8")) as DriftReportJson;
    expect(written.operations[0]!.differences.some((d) => d.pointer === "/body/dueReminder")).toBe(true);
    expect(readFileSync(`${base}.md`, "utf8")).toContain("## getCard");
    expect(readHar(har)).toHaveLength(1);

    const mockPort = await freePort();
    let stopMock!: () => void;
    const mockUntil = new Promise<void>((resolve) => (stopMock = resolve));
    const mockOut = new Text();
    const mockErr = new Text();
    const serving = mockCommand(["trello", "--port", String(mockPort), "--replay", har], mockOut, mockErr, mockUntil);
    for (let i = 0; i < 100 && !mockOut.text.includes("running"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(mockOut.text).toContain(`trello: 1 recorded answers from ${har}`);
    const again = await run(`http://127.0.0.1:${mockPort}`)("trello_get_card", { id: ID });
    stopMock();
    expect(await serving).toBe(0);
    expect(again).toEqual(first);
    expect(mockErr.text).toBe("");
  });
});
