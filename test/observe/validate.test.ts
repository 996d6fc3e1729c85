/**
 * Response validation in the client (`validate`), against a loopback server that answers Trello's
 * getCard with a card whose `id` is a number (the spec says string) — the rest of the card as the
 * behavioural mock serves it — and, separately, with a field the spec does not list.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The observability layer (tracing, metrics, validate) is an explicit import, as in an application.
import "../../runtime/observe/index.js";
import { descriptor as trello } from "../../generated/trello/descriptor.js";
import type { DriftEvent } from "../../runtime/hooks.js";
import { createServiceClient, createSharedState, StepforgeError } from "../../runtime/index.js";
import { startMock } from "../../runtime/mock/index.js";
import type { Logger } from "../../runtime/observe/logger.js";
import { ResponseDriftError, validateModeOf } from "../../runtime/observe/response-check.js";
import { withLogger } from "../../runtime/observe/logger.js";
import { CARD, TRELLO } from "../mock/helpers.js";
import { json, startServer, type TestServer } from "../runtime/helpers.js";

let server: TestServer;
let card: Record<string, unknown>;
/** What the server answers next: the card with these changes. */
let changes: Record<string, unknown> = {};

beforeAll(async () => {
  const mock = await startMock("trello");
  try {
    const client = createServiceClient(trello, { connection: { name: "t", fields: TRELLO }, baseUrl: mock.url });
    card = (await client.call("getCard", { params: { path: { id: CARD } } })) as Record<string, unknown>;
  } finally {
    await mock.close();
  }
  server = await startServer((_req, res) => json(res, 200, { ...card, ...changes }));
});
afterAll(async () => server?.close());

const collect = (drift: DriftEvent[]) => ({ onDrift: (e: DriftEvent) => void drift.push(e) });

const call = (options: object) =>
  createServiceClient(trello, {
    connection: { name: "t", fields: TRELLO },
    baseUrl: server.url,
    shared: createSharedState(),
    retry: { attempts: 0 },
    ...options,
  }).call("getCard", { params: { path: { id: CARD } } });

describe("validate", () => {
  it("the mock's own answer has no drift (the baseline the other cases change)", async () => {
    changes = {};
    const drift: DriftEvent[] = [];
    await expect(call({ validate: "strict", hooks: collect(drift) })).resolves.toEqual(card);
    expect(drift).toEqual([]);
  });

  it("warn: the answer comes back, and a drift event reaches hooks, the logger and the span", async () => {
    changes = { id: 4242 };
    const drift: DriftEvent[] = [];
    const lines: Array<[string, Record<string, unknown>, string]> = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (fields, message) => lines.push(["warn", fields, message]),
      error: () => {},
    };
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const options = withLogger({ hooks: collect(drift) }, logger);
    const body = await call({ ...options, validate: "warn", tracing: { tracer: provider.getTracer("t") } });
    expect(body).toMatchObject({ id: 4242 });
    expect(drift).toEqual([
      expect.objectContaining({
        type: "drift",
        service: "trello",
        operation: "getCard",
        status: 200,
        kind: "type",
        pointer: "/body/id",
        expected: "type string",
        got: "integer",
      }),
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]![2]).toBe(
      "trello getCard: answer differs from the spec at /body/id: expected type string, got integer",
    );
    const span = exporter.getFinishedSpans().find((s) => s.name === "trello getCard")!;
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        "stepforge.response.drift",
        {
          "stepforge.drift.pointer": "/body/id",
          "stepforge.drift.kind": "type",
          "stepforge.drift.expected": "type string",
          "stepforge.drift.got": "integer",
        },
      ],
    ]);
    await provider.shutdown();
  });

  it("strict: the call fails with a typed error naming the pointer, never the value", async () => {
    changes = { id: 4242 };
    const error = await call({ validate: "strict" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseDriftError);
    expect(error).toBeInstanceOf(StepforgeError);
    expect(error).toMatchObject({
      kind: "server",
      code: "RESPONSE_DRIFT",
      retryable: false,
      status: 200,
      operation: "getCard",
      differences: [{ kind: "type", pointer: "/body/id", expected: "type string", got: "integer" }],
    });
    expect((error as Error).message).toMatch(
      /^Trello getCard: the answer does not match the spec \(\/body\/id expected/,
    );
    expect(JSON.stringify(error)).not.toMatch(/\b4242\b/); // as a number, not inside a random id
  });

  it("strict lets a field the spec does not list through, reporting it as drift", async () => {
    changes = { brandNewField: "x" };
    const drift: DriftEvent[] = [];
    const body = await call({ validate: "strict", hooks: collect(drift) });
    expect(body).toMatchObject({ brandNewField: "x" });
    expect(drift).toMatchObject([{ kind: "undocumented-field", pointer: "/body/brandNewField" }]);
  });

  it("a malformed date-time or address is a format difference (formats are checked by shape)", async () => {
    changes = { dateLastActivity: "last Tuesday", shortUrl: "not an address" };
    const drift: DriftEvent[] = [];
    await call({ validate: "warn", hooks: collect(drift) });
    expect(drift.map((d) => [d.kind, d.pointer, d.expected]).sort()).toEqual([
      ["format", "/body/dateLastActivity", "format date-time"],
      ["format", "/body/shortUrl", "format uri"],
    ]);
  });

  it("warn with nobody listening: one process warning per operation and pointer", async () => {
    changes = { id: 4242, idBoard: 7 };
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      for (let i = 0; i < 3; i++) await call({ validate: "warn" });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    const drift = warnings.filter((w) => w.includes("differs from the spec"));
    expect(drift.filter((w) => w.includes("/body/idBoard"))).toHaveLength(1);
    expect(drift.every((w) => !w.includes("4242"))).toBe(true);
  });

  it("off (and the default outside development) checks nothing", async () => {
    changes = { id: 4242 };
    const drift: DriftEvent[] = [];
    for (const validate of ["off", undefined])
      await expect(call({ validate, hooks: collect(drift) })).resolves.toMatchObject({ id: 4242 });
    expect(drift).toEqual([]);
    expect(validateModeOf(undefined, "production")).toBe("off");
    expect(validateModeOf(undefined, undefined)).toBe("off");
    expect(validateModeOf(undefined, "development")).toBe("warn");
    expect(() => validateModeOf("loud" as never)).toThrow(/validate must be "off", "warn" or "strict"/);
  });
});
