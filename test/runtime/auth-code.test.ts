import { describe, expect, it } from "vitest";
import {
  AuthError,
  authorizeUrl,
  createServiceClient,
  createSharedState,
  exchangeAuthorizationCode,
  MemoryConnectionStore,
  type RuntimeEvent,
} from "../../runtime/index.js";
import {
  apiKeyService,
  BEARER_HEADER,
  json,
  makeDescriptor,
  OAUTH_CLIENT_FIELDS,
  startTestServer,
  type TestServer,
} from "./helpers.js";

const SECRET = "CLIENTSECRETMARKER-42";

let server: TestServer | undefined;

function acService() {
  return makeDescriptor(
    {
      id: "snare",
      title: "Snare",
      connection: {
        baseUrl: "https://api.snare.example",
        fields: {
          ...OAUTH_CLIENT_FIELDS,
          accessToken: { description: "Access token", secret: true, required: false },
          refreshToken: { description: "Refresh token", secret: true, required: false },
          expiresAt: { description: "When the access token expires", secret: false, required: false },
        },
      },
      auth: {
        kind: "oauth2-authorization-code",
        authorizeUrl: "https://api.snare.example/oauth/authorization",
        tokenUrl: "https://api.snare.example/oauth/token",
        clientIdField: "clientId",
        clientSecretField: "clientSecret",
        accessTokenField: "accessToken",
        refreshTokenField: "refreshToken",
        expiresAtField: "expiresAt",
        credentialsIn: "json",
        scopes: ["read_clients", "write_clients"],
        renewBeforeSeconds: 300,
        send: BEARER_HEADER,
      },
      errors: { statuses: { "401": { kind: "auth", reauth: true, description: "token invalid or expired" } } },
    },
    { getMe: { method: "GET", path: "/partner_api/v1/me" } },
  );
}

async function snareLike() {
  const valid = new Set<string>();
  const refreshValid = new Set<string>(["r-0"]);
  let refreshes = 0;
  const bodies: Array<Record<string, string>> = [];
  const srv = await startTestServer((req, res) => {
    if (req.url.pathname === "/oauth/token") {
      const body = JSON.parse(req.body) as Record<string, string>;
      bodies.push(body);
      const granted =
        body.grant_type === "authorization_code"
          ? body.code === "CODE-1"
          : body.grant_type === "refresh_token" && refreshValid.has(body.refresh_token!);
      if (!granted || body.client_secret !== SECRET) {
        return json(res, 400, { error: "invalid_grant" });
      }
      refreshes++;
      refreshValid.delete(body.refresh_token!); // rotation: the old refresh token stops working
      refreshValid.add(`r-${refreshes}`);
      valid.add(`a-${refreshes}`);
      return json(res, 200, {
        access_token: `a-${refreshes}`,
        refresh_token: `r-${refreshes}`,
        expires_in: 7200,
        scope: "read_clients",
      });
    }
    const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!valid.has(token)) return json(res, 401, { errors: ["invalid token"] });
    return json(res, 200, { full_name: "Ada", token });
  });
  return { server: srv, valid, bodies, refreshes: () => refreshes };
}

describe("oauth2 authorization code", () => {
  const connection = (fields: Record<string, string>) => ({
    name: "acme",
    fields: { clientId: "cid", clientSecret: SECRET, ...fields },
  });

  it("refreshes before expiry and hands the rotated refresh token to onTokens and the store", async () => {
    const s = await snareLike();
    server = s.server;
    const conn = connection({
      accessToken: "a-0",
      refreshToken: "r-0",
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    s.valid.add("a-0");
    const store = new MemoryConnectionStore([{ service: "snare", connection: conn }]);
    const handed: Array<[string, Record<string, string>]> = [];
    const client = createServiceClient(acService(), {
      connection: conn,
      baseUrl: server.url,
      shared: createSharedState(),
      store,
      onTokens: (name, fields) => {
        handed.push([name, fields]);
      },
    });
    const me = (await client.call("getMe")) as { token: string };
    expect(me.token).toBe("a-1"); // refreshed first: a-0 was inside the 300 s renewal margin
    expect(s.bodies).toEqual([
      { grant_type: "refresh_token", refresh_token: "r-0", client_id: "cid", client_secret: SECRET },
    ]);
    expect(handed).toHaveLength(1);
    expect(handed[0]![0]).toBe("acme");
    expect(handed[0]![1]).toMatchObject({ accessToken: "a-1", refreshToken: "r-1" });
    expect(Date.parse(handed[0]![1].expiresAt!)).toBeGreaterThan(Date.now() + 7000_000);
    expect((await store.get("snare", "acme"))!.fields).toMatchObject({
      accessToken: "a-1",
      refreshToken: "r-1",
      clientSecret: SECRET,
    });
  });

  it("refreshes on 401, repeats the call, and uses the rotated refresh token next time", async () => {
    const s = await snareLike();
    server = s.server;
    const events: RuntimeEvent[] = [];
    const client = createServiceClient(acService(), {
      connection: connection({
        accessToken: "stale",
        refreshToken: "r-0",
        expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      }),
      baseUrl: server.url,
      shared: createSharedState(),
      hooks: { onEvent: (e) => events.push(e) },
    });
    expect(((await client.call("getMe")) as { token: string }).token).toBe("a-1");
    s.valid.delete("a-1"); // revoked server-side
    expect(((await client.call("getMe")) as { token: string }).token).toBe("a-2");
    expect(s.bodies.map((b) => b.refresh_token)).toEqual(["r-0", "r-1"]);
    expect(events.filter((e) => e.type === "token" && e.action === "rotated")).toHaveLength(2);
    // Tokens as whole words: a call id is random hex and a counter ("8f8b612a-1"), so a bare
    // /a-1/ would match one that happens to end in "a".
    expect(JSON.stringify(events)).not.toMatch(/(?<![\w-])(a-1|a-2|r-0|r-1|stale)(?![\w-])|CLIENTSECRET/);
  });

  it("fails with an AuthError naming the fix when the refresh token is refused", async () => {
    const s = await snareLike();
    server = s.server;
    const client = createServiceClient(acService(), {
      connection: connection({ refreshToken: "REVOKEDREFRESHMARKER" }),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    const error = (await client.call("getMe").catch((e: unknown) => e)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain("reconnect");
    expect(JSON.stringify(error) + String(error) + error.stack).not.toContain("REVOKEDREFRESHMARKER");
  });

  it("a connection without tokens fails its calls with an AuthError naming the fix, sending nothing", async () => {
    const s = await snareLike();
    server = s.server;
    const client = createServiceClient(acService(), {
      connection: connection({}),
      baseUrl: server.url,
      shared: createSharedState(),
    });
    const error = (await client.call("getMe").catch((e: unknown) => e)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain('no "refreshToken"; connect the account again');
    expect(server.seen).toHaveLength(0);
  });

  it("exchanges an authorization code for the first tokens", async () => {
    const s = await snareLike();
    server = s.server;
    const fields = await exchangeAuthorizationCode(acService(), {
      connection: connection({}),
      code: "CODE-1",
      redirectUri: "https://app.example/cb",
      tokenUrl: `${server.url}/oauth/token`,
    });
    expect(fields).toMatchObject({ accessToken: "a-1", refreshToken: "r-1" });
    expect(s.bodies[0]).toEqual({
      grant_type: "authorization_code",
      code: "CODE-1",
      redirect_uri: "https://app.example/cb",
      client_id: "cid",
      client_secret: SECRET,
    });
  });
});

describe("authorizeUrl", () => {
  it("builds the api-key authorize address from the descriptor", () => {
    const url = authorizeUrl(apiKeyService(), { apiKey: "0123abcd", appName: "My App" });
    expect(url).toBe(
      "https://board.example/1/authorize?expiration=never&name=My+App&scope=read%2Cwrite" +
        "&response_type=token&key=0123abcd",
    );
  });

  it("names a missing value", () => {
    expect(() => authorizeUrl(apiKeyService(), { apiKey: "0123abcd" })).toThrow(/"appName"/);
  });

  it("builds the authorization-code address with client id, redirect, scopes and state", () => {
    const url = new URL(
      authorizeUrl(acService(), { clientId: "cid", redirectUri: "https://app.example/cb", state: "xyz" }),
    );
    expect(url.origin + url.pathname).toBe("https://api.snare.example/oauth/authorization");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: "cid",
      redirect_uri: "https://app.example/cb",
      response_type: "code",
      scope: "read_clients write_clients",
      state: "xyz",
    });
  });
});
