/**
 * The validation proxy and the replay layer in front of the behavioural mocks (fast, no Prism):
 * request differences, an unreachable upstream, an OAuth flow recorded without its secrets,
 * replay order and matching, and the closing of response schemas that finds undocumented fields.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceFromSpec } from "../../cli/commands/proxy-spec.js";
import { mockDefinition as marketoMock } from "../../generated/marketo/mock.js";
import { marketoGetLeads } from "../../generated/marketo/tools.js";
import { mockDefinition as trelloMock } from "../../generated/trello/mock.js";
import { trelloApiCall, trelloGetCard } from "../../generated/trello/tools.js";
import { createSharedState } from "../../runtime/index.js";
import { createReplayer, startMockServer, type RunningMock } from "../../runtime/mock/index.js";
import {
  ConformanceChecker,
  type ConformanceDefinition,
  conformanceFromMock,
  type HarEntry,
  startValidationProxy,
} from "../../runtime/observe/index.js";
import { executeTool } from "../../runtime/tools/index.js";
import { listenOnLoopback } from "../runtime/helpers.js";
import { createMarkers, describeLeaks, needlesFor, scanText } from "../reliability/markers.js";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../..");
const M = createMarkers();
const CARD = "6123a9f0c4b5d6e7f8091a2b";
const trelloConnection = { name: "work", fields: { apiKey: M.trelloApiKey.value, token: M.trelloToken.value } };

/** Trello's conformance definition cut down to one operation, GET /thing, answering `schema`. */
const definition = (schema: unknown, components: Record<string, unknown> = {}): ConformanceDefinition => ({
  ...conformanceFromMock(trelloMock),
  operations: {
    getThing: {
      operationId: "getThing",
      method: "GET",
      path: "/thing",
      parameters: [],
      responses: { "200": { contentTypes: ["application/json"], schema } },
    },
  },
  components: { schemas: components },
});

describe("the validation proxy in front of the behavioural mocks", () => {
  let trello: RunningMock;
  let marketo: RunningMock;
  const trelloSpec = conformanceFromSpec(join(ROOT, "specs/trello.yaml"));
  beforeAll(async () => {
    trello = await startMockServer(trelloMock, { auth: { credentials: trelloConnection.fields } });
    marketo = await startMockServer(marketoMock, {
      auth: {
        credentials: { clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61", clientSecret: M.marketoClientSecret.value },
      },
    });
  });
  afterAll(async () => {
    await trello?.close();
    await marketo?.close();
  });

  it("reports what a request gets wrong, with the pointer, the expectation and the value sent", async () => {
    const proxy = await startValidationProxy({ definition: trelloSpec.definition, upstream: trello.url });
    try {
      const result = await executeTool(
        trelloApiCall,
        { method: "GET", endpoint: `/1/cards/${CARD}`, query_parameters: { attachments: "maybe", members: "yes" } },
        { connection: trelloConnection, baseUrl: proxy.url, shared: createSharedState(), callLog: false },
      );
      expect(result.ok, JSON.stringify(result)).toBe(false);
      const getCard = proxy.report().operations.find((o) => o.operationId === "getCard")!;
      expect(getCard, JSON.stringify([result, proxy.report()])).toBeDefined();
      expect(getCard.statuses).toEqual({ 400: 1 });
      expect(getCard.differences).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            direction: "request",
            kind: "enum",
            pointer: "/query/attachments",
            expected: 'one of ["true","false","cover"]',
            example: "maybe",
          }),
          expect.objectContaining({
            direction: "request",
            kind: "type",
            pointer: "/query/members",
            expected: "type boolean",
            example: "yes",
          }),
        ]),
      );
      // A step that follows the spec, to a mock that follows it too: nothing to report.
      const clean = await startValidationProxy({ definition: trelloSpec.definition, upstream: trello.url });
      try {
        expect(
          (
            await executeTool(
              trelloGetCard,
              { id: CARD },
              { connection: trelloConnection, baseUrl: clean.url, shared: createSharedState(), callLog: false },
            )
          ).ok,
        ).toBe(true);
        expect(clean.report().summary).toMatchObject({ operationsSeen: 1, differences: 0 });
      } finally {
        await clean.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it("answers 502 naming the upstream when it cannot be reached, and counts it", async () => {
    const closed = await listenOnLoopback(createServer());
    const gone = closed.url;
    await closed.close();
    const proxy = await startValidationProxy({ definition: trelloSpec.definition, upstream: gone, timeoutMs: 2000 });
    try {
      const answer = await fetch(
        `${proxy.url}/1/cards/${CARD}?key=${M.trelloApiKey.value}&token=${M.trelloToken.value}`,
      );
      expect(answer.status).toBe(502);
      const text = await answer.text();
      expect(text).toContain(`the upstream ${gone}`);
      expect(describeLeaks(scanText("502 body", text, needlesFor(Object.values(M))))).toBe("");
      expect(proxy.report()).toMatchObject({ exchanges: 1, upstreamFailures: 1 });
    } finally {
      await proxy.close();
    }
  });

  it("lets an exchange through unchecked when the spec's schema cannot be read, and says so", async () => {
    const upstream = await listenOnLoopback(
      createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id":"1"}');
      }),
    );
    const broken = definition({ $ref: "#/components/schemas/Gone" });
    const proxy = await startValidationProxy({ definition: broken, upstream: upstream.url });
    try {
      const answer = await fetch(`${proxy.url}/thing`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ id: "1" });
      expect(proxy.report().uncheckable).toEqual([
        { operation: "getThing", reason: expect.stringContaining("Gone"), count: 1 },
      ]);
      expect(proxy.markdown()).toContain("## Not checked");
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("records an OAuth client-credentials flow with no secret in the HAR or the report", async () => {
    const definition = conformanceFromSpec(join(ROOT, "specs/marketo.yaml")).definition;
    const proxy = await startValidationProxy({ definition, upstream: marketo.url, record: true });
    try {
      const connection = {
        name: "mkto",
        fields: {
          endpoint: "https://123-ABC-456.mktorest.com",
          clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
          clientSecret: M.marketoClientSecret.value,
        },
      };
      const result = await executeTool(
        marketoGetLeads,
        { filterType: "email", filterValues: ["ada@example.com"] },
        { connection, baseUrl: proxy.url, shared: createSharedState(), callLog: false },
      );
      expect(result.ok).toBe(true);
      const har = proxy.har()!;
      expect(har.log.entries.map((e) => e._operationId)).toEqual(["getAccessToken", "getLeads"]);
      const [token, leads] = har.log.entries as [HarEntry, HarEntry];
      expect(token.response.content.text).toContain('"access_token":"[redacted]"');
      expect(new URL(token.request.url).searchParams.get("client_secret")).toBe("[redacted]");
      expect(leads.request.headers.find((h) => h.name === "authorization")?.value).toBe("[redacted]");
      // The token the mock issued is a secret too: learned from the token answer, redacted everywhere.
      const issued = JSON.parse(
        await (
          await fetch(
            `${marketo.url}/identity/oauth/token?grant_type=client_credentials` +
              `&client_id=${connection.fields.clientId}` +
              `&client_secret=${encodeURIComponent(M.marketoClientSecret.value)}`,
          )
        ).text(),
      ) as { access_token: string };
      const needles = needlesFor(Object.values(M), [{ kind: "issued", value: issued.access_token }]);
      const everything = JSON.stringify(har) + JSON.stringify(proxy.report()) + proxy.markdown();
      expect(describeLeaks(scanText("recording and report", everything, needles))).toBe("");
    } finally {
      await proxy.close();
    }
  });
});

describe("replaying a recording", () => {
  const entry = (url: string, status: number, body: unknown, method = "GET"): HarEntry => ({
    startedDateTime: new Date().toISOString(),
    time: 1,
    request: {
      method,
      url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [
        { name: "content-type", value: "application/json" },
        { name: "x-request-id", value: "r1" },
      ],
      content: { size: 0, mimeType: "application/json", text: JSON.stringify(body) },
      redirectURL: "",
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  });
  const request = (url: string, method = "GET") => ({ method, url, headers: {}, body: Buffer.alloc(0) });

  it("matches operation, path and query (credentials aside); answers in recorded order, then the last again", () => {
    const replayer = createReplayer(
      [
        entry(`https://api.trello.com/1/cards/${CARD}?fields=name&key=[redacted]&token=[redacted]`, 200, {
          id: CARD,
          name: "first",
        }),
        entry(`https://api.trello.com/1/cards/${CARD}?token=[redacted]&fields=name`, 200, { id: CARD, name: "second" }),
        entry(`https://api.trello.com/1/cards/${CARD}`, 404, "model not found"),
        entry("https://api.trello.com/1/nowhere", 200, {}),
      ],
      trelloMock,
    );
    expect(replayer.unmatched).toBe(1);
    const name = (url: string) => JSON.parse(replayer.answer(request(url))!.body.toString()).name as string;
    expect(name(`/1/cards/${CARD}?key=mine&fields=name&token=mine`)).toBe("first");
    expect(name(`/1/cards/${CARD}?fields=name`)).toBe("second");
    expect(name(`/1/cards/${CARD}?fields=name`)).toBe("second");
    expect(replayer.answer(request(`/1/cards/${CARD}`))!.status).toBe(404);
    expect(replayer.answer(request(`/1/cards/${CARD}?fields=desc`))).toBeUndefined();
    expect(replayer.answer(request(`/1/cards/${CARD}?fields=name`, "PUT"))).toBeUndefined();
    expect(replayer.answer(request(`/1/cards/${CARD}?fields=name`))!.headers).toEqual({
      "content-type": "application/json",
      "x-request-id": "r1",
    });
    expect(replayer.replayed).toBe(5);
  });
});

describe("what counts as an undocumented field", () => {
  const check = (schema: unknown, body: unknown, components?: Record<string, unknown>) => {
    const checker = new ConformanceChecker(definition(schema, components));
    const op = checker.route("GET", "/thing")!.op;
    return checker
      .checkResponse(op, { status: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(body)) })
      .map((d) => `${d.kind} ${d.pointer}`);
  };
  const Base = { type: "object", properties: { id: { type: "string" } } };

  it("a field no schema lists, at any depth, through $ref, allOf and the matching anyOf branch", () => {
    expect(check({ $ref: "#/components/schemas/Base" }, { id: "1", extra: 2 }, { Base })).toEqual([
      "undocumented-field /body/extra",
    ]);
    expect(
      check(
        { allOf: [{ $ref: "#/components/schemas/Base" }, { properties: { name: { type: "string" } } }] },
        { id: "1", name: "n", extra: 1 },
        { Base },
      ),
    ).toEqual(["undocumented-field /body/extra"]);
    expect(
      check(
        { type: "array", items: { anyOf: [Base, { type: "object", properties: { n: { type: "number" } } }] } },
        [{ id: "a" }, { n: 1, x: 0 }],
        {},
      ),
    ).toEqual(["undocumented-field /body/1/x"]);
    expect(check({ type: "object", properties: { inner: Base } }, { inner: { id: "1", deep: true } })).toEqual([
      "undocumented-field /body/inner/deep",
    ]);
  });

  it("not where the spec allows more: additionalProperties, a free-form branch, a free-form object", () => {
    expect(check({ ...Base, additionalProperties: true }, { id: "1", extra: 2 })).toEqual([]);
    expect(check({ anyOf: [Base, { type: "object" }] }, { id: "1", extra: 2 })).toEqual([]);
    expect(check({ type: "object" }, { anything: 1 })).toEqual([]);
    expect(check({ ...Base, additionalProperties: false }, { id: "1", extra: 2 })).toEqual([
      "undocumented-field /body/extra",
    ]);
  });

  it("answers are read in the response direction: a writeOnly field is not required back, a readOnly one is", () => {
    const schema = {
      type: "object",
      required: ["id", "password"],
      properties: { id: { type: "string", readOnly: true }, password: { type: "string", writeOnly: true } },
    };
    expect(check(schema, { id: "1" })).toEqual([]);
    expect(check(schema, { password: "x" })).toEqual(["missing-field /body/id"]);
  });
});
