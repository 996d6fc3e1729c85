/**
 * How a service's answer becomes a typed error, from the descriptor's `errors` section only
 * (runtime/client/classify.ts), against real HTTP servers on 127.0.0.1: nested message and request-id
 * fields, request-id and Retry-After headers, and `resendSafe` on a rule.
 */
import { describe, expect, it } from "vitest";
import { createServiceClient, createSharedState, type StepforgeError } from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, json, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer | undefined;

function client(errors: Record<string, unknown>, retry: Record<string, unknown> = {}) {
  return createServiceClient(apiKeyService({ errors }), {
    connection: apiKeyConnection(),
    baseUrl: server!.url,
    shared: createSharedState(),
    retry: { baseDelayMs: 5, maxDelayMs: 10, timeoutMs: 5000, ...retry },
  } as never);
}

async function failure(
  errors: Record<string, unknown>,
  answer: (res: import("node:http").ServerResponse) => void,
  operation = "getThing",
): Promise<StepforgeError> {
  server = await startTestServer((_req, res) => answer(res));
  const init = operation === "createThing" ? { body: { name: "x" } } : { params: { path: { id: "1" } } };
  return (await client(errors, { attempts: 0 })
    .call(operation, init)
    .catch((e: unknown) => e)) as StepforgeError;
}

describe("errors.messageFields", () => {
  const nested = { status: 422, body: { error: { code: "invalid_board", message: "Board name must not be empty" } } };

  it("reads a nested message by dotted path (error.message) instead of reporting the status", async () => {
    const error = await failure({ messageFields: ["error.message"] }, (res) => json(res, nested.status, nested.body));
    expect(error.message).toBe("Board getThing: Board name must not be empty");
    expect(error.status).toBe(422);
    expect(error.kind).toBe("validation");
  });

  it(
    "falls back to HTTP <status> when the declared fields hold no message (the case the " + "nested path fixes)",
    async () => {
      const error = await failure({ messageFields: ["message"] }, (res) => json(res, nested.status, nested.body));
      expect(error.message).toBe("Board getThing: HTTP 422");
    },
  );

  it(
    "takes the first declared field that holds a message, and a top-level key with a dot " + "in its name as is",
    async () => {
      const first = await failure({ messageFields: ["detail", "error.message", "message"] }, (res) =>
        json(res, 400, { message: "top", error: { message: "inner" } }),
      );
      expect(first.message).toBe("Board getThing: inner");
      const dotted = await failure({ messageFields: ["error.message"] }, (res) =>
        json(res, 400, { "error.message": "literal key", error: { message: "inner" } }),
      );
      expect(dotted.message).toBe("Board getThing: literal key");
    },
  );

  it("joins a nested list of messages, and reads nothing through the prototype", async () => {
    const list = await failure({ messageFields: ["response.errors"] }, (res) =>
      json(res, 400, { response: { errors: [{ message: "name is required" }, { message: "pos is invalid" }] } }),
    );
    expect(list.message).toBe("Board getThing: name is required; pos is invalid");
    const proto = await failure({ messageFields: ["constructor.name", "__proto__.x"] }, (res) => json(res, 400, {}));
    expect(proto.message).toBe("Board getThing: HTTP 400");
  });
});

describe("errors.requestIdField, requestIdHeaders, retryAfterHeaders", () => {
  it("reads the request id from a declared header first, else from a nested body field", async () => {
    const errors = { requestIdHeaders: ["x-request-id"], requestIdField: "meta.requestId" };
    const fromHeader = await failure(errors, (res) =>
      json(res, 500, { meta: { requestId: "body-1" } }, { "x-request-id": "hdr-1" }),
    );
    expect(fromHeader.requestId).toBe("hdr-1");
    const fromBody = await failure(errors, (res) => json(res, 500, { meta: { requestId: "body-2" } }));
    expect(fromBody.requestId).toBe("body-2");
    const numeric = await failure({ requestIdField: "requestId" }, (res) => json(res, 500, { requestId: 12345 }));
    expect(numeric.requestId).toBe("12345");
    const none = await failure({}, (res) => json(res, 500, { requestId: "not declared" }));
    expect(none.requestId).toBeUndefined();
  });

  it("reads Retry-After from the headers the spec names, and only those", async () => {
    const declared = await failure({ retryAfterHeaders: ["x-rate-limit-reset-after"] }, (res) =>
      json(res, 429, { message: "slow" }, { "x-rate-limit-reset-after": "7" }),
    );
    expect(declared.retryAfterMs).toBe(7000);
    const other = await failure({ retryAfterHeaders: ["x-rate-limit-reset-after"] }, (res) =>
      json(res, 429, { message: "slow" }, { "retry-after": "7" }),
    );
    expect(other.retryAfterMs).toBeUndefined();
  });
});

describe("errors.statuses.<status>.resendSafe", () => {
  async function posts(rule: Record<string, unknown>): Promise<number> {
    let n = 0;
    server = await startTestServer((_req, res) =>
      ++n === 1 ? json(res, 502, { message: "bad gateway" }) : json(res, 200, { id: "t1" }),
    );
    await client(
      { statuses: { "502": { kind: "server", retry: true, description: "gateway", ...rule } } },
      { attempts: 2 },
    )
      .call("createThing", { body: { name: "x" } })
      .catch(() => undefined);
    const sent = server.seen.length;
    await server.close();
    server = undefined;
    return sent;
  }

  it(
    "resends a non-idempotent POST after a retryable status only when the rule says the " + "service did not act",
    async () => {
      expect(await posts({})).toBe(1);
      expect(await posts({ resendSafe: true })).toBe(2);
    },
  );
});
