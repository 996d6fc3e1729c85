import { describe, expect, it, vi } from "vitest";
import {
  createServiceClient,
  createSharedState,
  redactUrl,
  type RuntimeEvent,
  StepforgeError,
} from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, json, KEY, startTestServer, type TestServer, TOKEN } from "./helpers.js";

let server: TestServer | undefined;

function expectSecretFree(error: unknown, events: RuntimeEvent[]) {
  expect(error).toBeInstanceOf(StepforgeError);
  const e = error as StepforgeError;
  for (const text of [e.message, String(e), JSON.stringify(e), e.stack ?? "", JSON.stringify(events)]) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(encodeURIComponent(KEY));
  }
}

describe("secret-free errors and events", () => {
  it("redacts secrets the service echoes back in a plain-text error body", async () => {
    server = await startTestServer((req, res) => {
      res.writeHead(401, { "content-type": "text/plain" });
      res.end(`invalid token ${req.url.searchParams.get("token")} for key ${req.url.searchParams.get("key")}`);
    });
    const events: RuntimeEvent[] = [];
    const client = createServiceClient(apiKeyService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      hooks: { onEvent: (e) => events.push(e) },
    });
    const error = await client.call("getThing", { params: { path: { id: "1" } } }).catch((e: unknown) => e);
    expect((error as StepforgeError).kind).toBe("auth");
    expect((error as StepforgeError).message).toContain("invalid token [redacted]");
    expect(events.map((e) => e.type)).toEqual(["request", "response"]);
    expect((events[0] as { url: string }).url).toContain("key=[redacted]");
    expectSecretFree(error, events);
  });

  it("keeps secrets out of network errors, retries and timeouts", async () => {
    server = await startTestServer((_req, res) => {
      res.socket!.destroy();
    });
    const events: RuntimeEvent[] = [];
    const client = createServiceClient(apiKeyService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      retry: { attempts: 2, baseDelayMs: 5 },
      hooks: { onEvent: (e) => events.push(e) },
    });
    const error = await client.call("getThing", { params: { path: { id: "1" } } }).catch((e: unknown) => e);
    expect((error as StepforgeError).kind).toBe("network");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expectSecretFree(error, events);
  });

  it("prints nothing by default", async () => {
    server = await startTestServer((_req, res) => json(res, 500, { message: "boom" }));
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => undefined),
    );
    const client = createServiceClient(apiKeyService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    await client.call("getThing", { params: { path: { id: "1" } } }).catch(() => undefined);
    for (const spy of spies) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
  });

  it("a throwing hook does not break a call", async () => {
    server = await startTestServer((_req, res) => json(res, 200, { ok: true }));
    const client = createServiceClient(apiKeyService(), {
      connection: apiKeyConnection(),
      baseUrl: server.url,
      shared: createSharedState(),
      hooks: {
        onRequest: () => {
          throw new Error("hook failed");
        },
      },
    });
    await expect(client.call("getThing", { params: { path: { id: "1" } } })).resolves.toEqual({ ok: true });
  });
});

describe("redactUrl", () => {
  it("masks credential query keys, user info and known secrets", () => {
    const url =
      "https://user:pw@x.example/p?key=K123&token=T123&api-key=A1&client_secret=S1&access_token=X1&q=hello&custom=C1";
    expect(redactUrl(url, ["hello"], ["custom"])).toBe(
      "https://x.example/p?key=[redacted]&token=[redacted]&api-key=[redacted]&client_secret=[redacted]" +
        "&access_token=[redacted]&q=[redacted]&custom=[redacted]",
    );
  });
});
