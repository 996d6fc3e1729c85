import { describe, expect, it } from "vitest";
import {
  AuthError,
  type ClientOptions,
  ConnectionError,
  createServiceClient,
  createSharedState,
  type RuntimeEvent,
} from "../../runtime/index.js";
import {
  apiKeyClient,
  apiKeyService,
  delay,
  json,
  makeDescriptor,
  startTestServer,
  type TestServer,
  thrownBy,
  BEARER_HEADER,
  OAUTH_CLIENT_FIELDS,
} from "./helpers.js";

const SECRET = "CLIENTSECRETMARKER-42";
const ENDPOINT_PATTERN = "^https://[0-9]{3}-[A-Z]{3}-[0-9]{3}\\.mktorest\\.com$";

function ccService(renewBeforeSeconds = 0) {
  return makeDescriptor(
    {
      id: "mkto",
      title: "Mkto",
      connection: {
        baseUrl: "{endpoint}",
        fields: {
          endpoint: {
            description: "REST endpoint, https://123-ABC-456.mktorest.com",
            secret: false,
            pattern: ENDPOINT_PATTERN,
            example: "https://123-ABC-456.mktorest.com",
          },
          ...OAUTH_CLIENT_FIELDS,
        },
      },
      auth: {
        kind: "oauth2-client-credentials",
        tokenUrl: "{endpoint}/identity/oauth/token",
        tokenMethod: "GET",
        clientIdField: "clientId",
        clientSecretField: "clientSecret",
        credentialsIn: "query",
        renewBeforeSeconds,
        send: BEARER_HEADER,
      },
      errors: {
        envelope: { successField: "success", errorsField: "errors", codeField: "code", messageField: "message" },
        codes: {
          "601": { kind: "auth", reauth: true, description: "Access token invalid" },
          "602": { kind: "auth", reauth: true, description: "Access token expired" },
        },
      },
    },
    { getLeads: { method: "GET", path: "/rest/v1/leads.json" } },
  );
}

const ccConnection = (clientId = "client-a") => ({
  name: "prod",
  fields: { endpoint: "https://123-ABC-456.mktorest.com", clientId, clientSecret: SECRET },
});

/** A Marketo-like server: token endpoint plus one envelope endpoint; `reject(token)` returns a code to fail with. */
async function marketoLike(
  options: { expiresIn?: (n: number) => number; reject?: (token: string) => string | undefined } = {},
) {
  let tokens = 0;
  const server = await startTestServer(async (req, res) => {
    if (req.url.pathname === "/identity/oauth/token") {
      tokens++;
      expect(req.url.searchParams.get("grant_type")).toBe("client_credentials");
      if (req.url.searchParams.get("client_secret") !== SECRET) return json(res, 401, { error: "unauthorized" });
      await delay(20); // long enough for a storm to pile up behind it
      return json(res, 200, {
        access_token: `tok-${tokens}`,
        token_type: "bearer",
        expires_in: options.expiresIn?.(tokens) ?? 3600,
        scope: "api@example.com",
      });
    }
    const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    const code = options.reject?.(token);
    if (code)
      return json(res, 200, {
        requestId: "r1",
        success: false,
        errors: [{ code, message: code === "601" ? "Access token invalid" : "Access token expired" }],
      });
    return json(res, 200, { requestId: "r2", success: true, result: [{ id: 1, token }] });
  });
  return {
    server,
    tokenRequests: () => tokens,
    apiRequests: () => server.seen.filter((s) => s.url.pathname !== "/identity/oauth/token"),
  };
}

/**
 * A client of the client-credentials service (renewing `renewBeforeSeconds` early) against `m`'s
 * server, on ccConnection() and a state of its own unless `options` say otherwise.
 */
function ccClient(m: { server: TestServer }, options: Partial<ClientOptions> & { renewBeforeSeconds?: number } = {}) {
  const { renewBeforeSeconds = 0, ...clientOptions } = options;
  return createServiceClient(ccService(renewBeforeSeconds), {
    connection: ccConnection(),
    baseUrl: m.server.url,
    shared: createSharedState(),
    ...clientOptions,
  });
}

describe("oauth2 client credentials", () => {
  it("renews an expired token once for a storm of 200 parallel calls", async () => {
    const m = await marketoLike({ expiresIn: (n) => (n === 1 ? 1 : 3600) });
    const client = ccClient(m);
    await client.call("getLeads");
    expect(m.tokenRequests()).toBe(1);
    await delay(1100); // tok-1 has expired
    const results = await Promise.all(Array.from({ length: 200 }, () => client.call("getLeads")));
    expect(results).toHaveLength(200);
    expect(m.tokenRequests()).toBe(2);
    const used = m
      .apiRequests()
      .slice(1)
      .map((s) => s.headers.authorization);
    expect(new Set(used)).toEqual(new Set(["Bearer tok-2"]));
  });

  it("renews once when 200 parallel calls are told 602 for the same token, and repeats each call", async () => {
    let expired = false;
    const m = await marketoLike({ reject: (t) => (expired && t === "tok-1" ? "602" : undefined) });
    const client = ccClient(m);
    await client.call("getLeads");
    expired = true;
    const results = (await Promise.all(Array.from({ length: 200 }, () => client.call("getLeads")))) as Array<{
      result: Array<{ token: string }>;
    }>;
    expect(results.every((r) => r.result[0]!.token === "tok-2")).toBe(true);
    expect(m.tokenRequests()).toBe(2);
    expect(m.apiRequests()).toHaveLength(1 + 200 + 200);
  });

  it("renews and repeats only once on 601, then fails with an AuthError", async () => {
    const m = await marketoLike({ reject: () => "601" });
    const client = ccClient(m);
    const error = await client.call("getLeads").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe("601");
    expect(m.tokenRequests()).toBe(2);
    expect(m.apiRequests()).toHaveLength(2);
  });

  it("caches the token per client id: a registry's clients share it, another client id gets its own", async () => {
    const m = await marketoLike();
    const shared = createSharedState();
    const a1 = ccClient(m, { connection: ccConnection("client-a"), shared });
    const a2 = ccClient(m, { connection: { ...ccConnection("client-a"), name: "other" }, shared });
    const b = ccClient(m, { connection: ccConnection("client-b"), shared });
    await Promise.all([a1.call("getLeads"), a2.call("getLeads"), a1.call("getLeads")]);
    expect(m.tokenRequests()).toBe(1);
    await b.call("getLeads");
    expect(m.tokenRequests()).toBe(2);
  });

  it(
    "uses a token handed out with less life than renewBeforeSeconds until it expires, " +
      "instead of renewing per call",
    async () => {
      const m = await marketoLike({ expiresIn: () => 100 });
      // 100 s tokens and a 300 s margin: renewed once, then used (Marketo hands back the same token until it expires).
      const client = ccClient(m, { renewBeforeSeconds: 300 });
      for (let i = 0; i < 5; i++) await client.call("getLeads");
      expect(m.tokenRequests()).toBe(1);
    },
  );

  it("refuses an endpoint that is not the service's before anything is sent", async () => {
    const { server } = await marketoLike();
    for (const endpoint of [server.url, "https://evil.example.com", "https://123-ABC-456.mktorest.com.evil.example"]) {
      const connection = { ...ccConnection(), fields: { ...ccConnection().fields, endpoint } };
      const error = thrownBy(
        () => createServiceClient(ccService(), { connection, shared: createSharedState() }),
        ConnectionError,
      );
      expect(error.field).toBe("endpoint");
      expect(String(error)).toContain('field "endpoint"');
      expect(String(error)).toContain("https://123-ABC-456.mktorest.com");
      expect(JSON.stringify(error)).not.toContain(SECRET);
    }
    expect(server.seen).toHaveLength(0);
  });

  it("reports a refused client secret as an AuthError without the secret", async () => {
    const m = await marketoLike();
    const client = ccClient(m, {
      connection: { ...ccConnection(), fields: { ...ccConnection().fields, clientSecret: "WRONGSECRETMARKER" } },
    });
    const error = (await client.call("getLeads").catch((e: unknown) => e)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.status).toBe(401);
    for (const text of [String(error), JSON.stringify(error), error.stack ?? ""])
      expect(text).not.toContain("WRONGSECRETMARKER");
    expect(m.apiRequests()).toHaveLength(0);
    expect(m.tokenRequests()).toBe(1); // a refused secret is not worth asking again
  });

  it("retries a token endpoint that answers 503 or drops the connection, within the call's retry budget", async () => {
    let tokenRequests = 0;
    const server = await startTestServer(async (req, res) => {
      if (req.url.pathname === "/identity/oauth/token") {
        tokenRequests++;
        if (tokenRequests === 1) return json(res, 503, { error: "unavailable" });
        if (tokenRequests === 2) {
          res.socket?.destroy();
          return;
        }
        return json(res, 200, { access_token: "tok-ok", token_type: "bearer", expires_in: 3600 });
      }
      return json(res, 200, { requestId: "r", success: true, result: [{ id: 1 }] });
    });
    const events: RuntimeEvent[] = [];
    const client = ccClient(
      { server },
      {
        retry: { baseDelayMs: 1, random: () => 0.5 },
        hooks: { onEvent: (e) => events.push(e) },
      },
    );
    expect(await client.call("getLeads")).toMatchObject({ success: true });
    expect(tokenRequests).toBe(3);
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { reason: string }).reason)).toEqual([
      "token server",
      "token network",
    ]);

    // With no retries allowed, the first failure is the answer.
    tokenRequests = 0;
    const strict = ccClient({ server }, { connection: ccConnection("client-b"), retry: { attempts: 0 } });
    await expect(strict.call("getLeads")).rejects.toMatchObject({ kind: "server", retries: 0 });
  });

  it("many calls waiting on one client-wide abort signal trigger no listener-leak warning", async () => {
    const server = await startTestServer(async (_req, res) =>
      json(res, 200, { requestId: "r", success: true, result: [] }),
    );
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      // A tight window makes most of the 40 calls wait in the limiter at the same time.
      const window = {
        id: "perToken",
        kind: "window",
        requests: 5,
        windowSeconds: 0.1,
        per: "connection",
        description: "5 per 0.1 s",
        rejection: { status: 429 },
      };
      const client = apiKeyClient(apiKeyService({ limits: [window] }), server.url, { signal: controller.signal });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => client.call("getThing", { params: { path: { id: String(i) } } })),
      );
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });
});
