/**
 * Credentials for every securitySchemes type of a plain spec, derived by the check stage and
 * placed by the credentials source: each case a spec of its own, called through the client, and
 * the loopback server shows where the credential arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, loopback, type Loopback } from "../../tools/helpers.js";
import { clientOf, modelOf, ok, plainSpec } from "./helpers.js";

let server: Loopback;
beforeAll(async () => {
  server = await loopback((_req, res) => json(res, 200, { ok: true }));
});
afterAll(() => server.close());

const ping = { "/ping": { get: { operationId: "ping", responses: ok } } };
const withSchemes = (schemes: Record<string, unknown>, security?: unknown[]) =>
  plainSpec({
    paths: ping,
    components: { securitySchemes: schemes },
    security: security ?? Object.keys(schemes).map((s) => ({ [s]: [] })),
  });
const last = () => server.received.at(-1)!;

describe("credentials for each security scheme type", () => {
  it("apiKey in a header", async () => {
    await clientOf(withSchemes({ key: { type: "apiKey", in: "header", name: "X-Api-Key" } }), server.url, {
      apiKey: "k1",
    }).call("ping");
    expect(last().headers["x-api-key"]).toBe("k1");
  });

  it("apiKey in the query", async () => {
    await clientOf(withSchemes({ key: { type: "apiKey", in: "query", name: "api_key" } }), server.url, {
      apiKey: "k 2",
    }).call("ping");
    expect(last().url.searchParams.get("api_key")).toBe("k 2");
  });

  it("apiKey in a cookie, beside a cookie the call sets", async () => {
    const spec = withSchemes({ session: { type: "apiKey", in: "cookie", name: "SESSION" } });
    const model = modelOf(spec);
    expect(model.warnings.map((w) => w.code)).not.toContain("SF171");
    const client = clientOf(spec, server.url, { apiKey: "s3" });
    await client.call("ping");
    expect(last().headers.cookie).toBe("SESSION=s3");
    await client.call("ping", { headers: { Cookie: "theme=dark" } });
    expect(last().headers.cookie).toBe("theme=dark; SESSION=s3");
  });

  it("http basic: base64 of user:password", async () => {
    const basic = Buffer.from("ann:pw").toString("base64");
    await clientOf(withSchemes({ basic: { type: "http", scheme: "basic" } }), server.url, {
      basicCredentials: basic,
    }).call("ping");
    expect(last().headers.authorization).toBe(`Basic ${basic}`);
  });

  it("http bearer: a connection holding only an access token makes the call (issue 20)", async () => {
    const spec = withSchemes({ bearer: { type: "http", scheme: "bearer" } });
    const result = await clientOf(spec, server.url, { accessToken: "tok-1" }).call("ping");
    expect(result).toEqual({ ok: true });
    expect(last().headers.authorization).toBe("Bearer tok-1");
  });

  it("oauth2 (any flow) and openIdConnect send the token as a bearer", async () => {
    const flows = {
      authorizationCode: {
        authorizationUrl: "https://a.example.com/auth",
        tokenUrl: "https://a.example.com/token",
        scopes: {},
      },
    };
    for (const scheme of [
      { type: "oauth2", flows },
      { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://a.example.com/token", scopes: {} } } },
      { type: "openIdConnect", openIdConnectUrl: "https://a.example.com/.well-known/openid-configuration" },
    ]) {
      await clientOf(withSchemes({ auth: scheme }), server.url, { accessToken: "tok-2" }).call("ping");
      expect(last().headers.authorization).toBe("Bearer tok-2");
    }
  });

  it("AND: the schemes of one requirement are sent together", async () => {
    const spec = withSchemes(
      { key: { type: "apiKey", in: "header", name: "X-Key" }, app: { type: "apiKey", in: "query", name: "app" } },
      [{ key: [], app: [] }],
    );
    const fields = modelOf(spec).descriptor.connection.fields;
    await clientOf(spec, server.url, Object.fromEntries(Object.keys(fields).map((f) => [f, `v-${f}`]))).call("ping");
    expect(last().headers["x-key"]).toMatch(/^v-/);
    expect(last().url.searchParams.get("app")).toMatch(/^v-/);
  });

  it("OR: each requirement is a mode the connection picks", async () => {
    const spec = withSchemes({
      key: { type: "apiKey", in: "header", name: "X-Key" },
      bearer: { type: "http", scheme: "bearer" },
    });
    const auth = modelOf(spec).descriptor.auth;
    expect(auth.kind === "api-key" && Object.keys(auth.modes)).toEqual(["key", "bearer"]);
    await clientOf(spec, server.url, { apiKey: "k" }).call("ping");
    expect(last().headers).toMatchObject({ "x-key": "k" });
    expect(last().headers.authorization).toBeUndefined();
    await clientOf(spec, server.url, { accessToken: "t" }, { authMode: "bearer" }).call("ping");
    expect(last().headers.authorization).toBe("Bearer t");
    expect(last().headers["x-key"]).toBeUndefined();
  });
});
