/**
 * Parts of the inferred mock one at a time, through MockEngine.handle (no sockets): the page-token
 * answer named by the spec, credentials accepted by their shape, page-number pages, records shaped
 * by a closed schema.
 */
import { describe, expect, it } from "vitest";
import { MockEngine, registeredMock, type MockDefinition, type Outcome } from "../../runtime/mock/index.js";
import type { MockOperationSpec } from "../../runtime/mock/extension.js";
import { Pager } from "../../runtime/mock/paging.js";
import { RequestValidator } from "../../runtime/mock/validate.js";
import "./register.js";

function answer(engine: MockEngine, method: string, url: string, headers: Record<string, string> = {}, body?: unknown) {
  const out = engine.handle({
    method,
    url,
    headers,
    body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
  }) as Outcome;
  if (out.drop) throw new Error("dropped");
  engine.done(out);
  const text = out.reply.body.toString("utf8");
  return {
    status: out.reply.status,
    json: text ? JSON.parse(text) : undefined,
    type: out.reply.headers["content-type"],
  };
}

describe("the page-token answer", () => {
  it("puts the token in the field the operation's response schema names, not Marketo's nextPageToken", () => {
    const marketo = registeredMock("marketo")!;
    const op = Object.values(marketo.operations).find((o) => o.mock?.action === "pageToken")!;
    const plain: MockOperationSpec = {
      ...op,
      success: {
        status: 200,
        contentType: "application/json",
        schema: { type: "object", properties: { ok: { type: "boolean" }, cursorToken: { type: "string" } } },
      },
      mock: { ...op.mock!, respond: undefined },
    };
    const definition: MockDefinition = {
      ...marketo,
      descriptor: {
        ...marketo.descriptor,
        auth: { kind: "none" },
        limits: [],
        operations: { [op.operationId]: marketo.descriptor.operations[op.operationId]! },
      },
      operations: { [op.operationId]: plain },
    };
    const engine = new MockEngine(definition, { data: { fromExamples: false } });
    const r = answer(engine, "GET", `${op.path}?sinceDatetime=2026-01-01T00:00:00Z`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["cursorToken"]);
    expect(typeof r.json.cursorToken).toBe("string");
  });
});

/** A one-operation service answering its example, with the given auth and mock model settings. */
function service(auth: MockDefinition["descriptor"]["auth"], anyCredential: boolean): MockEngine {
  const op: MockOperationSpec = {
    operationId: "ping",
    method: "GET",
    path: "/ping",
    parameters: [],
    success: { status: 200, contentType: "application/json", example: { ok: true } },
  };
  const definition: MockDefinition = {
    descriptor: {
      id: "pings",
      title: "Pings",
      connection: { baseUrl: "https://api.pings.example", fields: {} },
      auth,
      limits: [],
      errors: { statuses: {}, codes: {} },
      operations: { ping: { operationId: "ping", method: "GET", path: "/ping", idempotent: true, limitClass: "read" } },
    } as unknown as MockDefinition["descriptor"],
    mock: {
      credentials: { apiKey: "the-one-key", basicCredentials: "dTpw" },
      ...(anyCredential ? { anyCredential } : {}),
      error: { contentType: "application/json", body: { message: "{message}" } },
      answers: {},
      limits: {},
      envelopes: {},
      pageSize: 100,
      resources: {},
    },
    operations: { ping: op },
    components: {},
  };
  return new MockEngine(definition);
}

describe("credentials by their shape (anyCredential)", () => {
  const apiKey: MockDefinition["descriptor"]["auth"] = {
    kind: "api-key",
    modes: {
      key: [{ in: "header", name: "X-Api-Key", value: "{apiKey}" }],
      basic: [{ in: "header", name: "Authorization", value: "Basic {basicCredentials}" }],
    },
    defaultMode: "key",
  };

  it("accepts any non-empty key and any base64 user:password, refuses a missing or malformed one", () => {
    const any = service(apiKey, true);
    expect(answer(any, "GET", "/ping", { "x-api-key": "whatever-key" }).status).toBe(200);
    expect(
      answer(any, "GET", "/ping", { authorization: `Basic ${Buffer.from("ann:secret").toString("base64")}` }).status,
    ).toBe(200);
    expect(answer(any, "GET", "/ping", { authorization: "Basic not-base64!" }).status).toBe(401);
    expect(
      answer(any, "GET", "/ping", { authorization: `Basic ${Buffer.from("no-colon").toString("base64")}` }).status,
    ).toBe(401);
    expect(answer(any, "GET", "/ping").status).toBe(401);
  });

  it("accepts only the named credentials when the spec names them (anyCredential unset)", () => {
    const named = service(apiKey, false);
    expect(answer(named, "GET", "/ping", { "x-api-key": "whatever-key" }).status).toBe(401);
    expect(answer(named, "GET", "/ping", { "x-api-key": "the-one-key" }).status).toBe(200);
  });
});

describe("page-number pages", () => {
  const pager = new Pager({ pageSize: 3 } as never);
  const desc = {
    operationId: "list",
    method: "GET",
    path: "/x",
    idempotent: true,
    limitClass: "read",
    paging: { style: "page", pageParam: "p", sizeParam: "n", itemsField: "items", firstPage: 0 },
  } as const;
  const all = Array.from({ length: 7 }, (_, i) => ({ id: i }));

  it("numbers pages from firstPage, sizes them by the size parameter, and says what comes next", () => {
    const first = pager.page(desc, undefined, all, {});
    expect(first).toMatchObject({
      items: [{ id: 0 }, { id: 1 }, { id: 2 }],
      page: { number: 0, pages: 3, more: true, nextPage: 1, total: 7 },
    });
    const last = pager.page(desc, undefined, all, { p: "3", n: "2" });
    expect(last).toMatchObject({
      items: [{ id: 6 }],
      page: { number: 3, limit: 2, more: false, nextPage: undefined, nextPageOrNull: null },
    });
  });
});

describe("the empty answer of a declared media type", () => {
  it("keeps the content type on an empty body, and none on a 204", () => {
    const engine = service({ kind: "none" } as never, true);
    const definition = (engine as unknown as { definition: MockDefinition }).definition;
    definition.operations.ping!.success = { status: 200, contentType: "application/json" };
    expect(answer(engine, "GET", "/ping")).toEqual({ status: 200, json: undefined, type: "application/json" });
    definition.operations.ping!.success = { status: 204, contentType: "application/json" };
    expect(answer(engine, "GET", "/ping")).toEqual({ status: 204, json: undefined, type: undefined });
  });
});

describe("values the mock writes itself, checked against schemas Ajv cannot compile", () => {
  it("judges nothing (the value passes) instead of throwing, so a record is still answered", () => {
    const validator = new RequestValidator({ schemas: { Odd: { type: "strin" } } });
    expect(validator.accepts("odd", { $ref: "#/components/schemas/Odd" }, 1)).toBe(true);
    expect(validator.accepts("pattern", { type: "string", pattern: "[" }, "x")).toBe(true);
    expect(validator.accepts("fine", { type: "string" }, 1)).toBe(false);
  });
});
