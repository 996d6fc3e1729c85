/**
 * Auth as each real service does it: key+token, API key, expiring client-credentials tokens in HTTP 200, bearer tokens
 * with refresh.
 */
import { describe, expect, it } from "vitest";
import { MarketoClient } from "../../generated/marketo/client.js";
import { descriptor as marketoDescriptor } from "../../generated/marketo/descriptor.js";
import {
  call,
  CARD,
  clientOptions,
  CONTENTSNARE,
  manualClock,
  MARKETO,
  TRELLO,
  TRELLO_AUTH,
  WORLDNEWS,
  useMocks,
} from "./helpers.js";

const mock = useMocks();

describe("trello key + token", () => {
  it("accepts the query pair and the OAuth header, and refuses anything else with 401 text", async () => {
    const m = await mock("trello");
    expect((await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`)).status).toBe(200);
    const header = `OAuth oauth_consumer_key="${TRELLO.apiKey}", oauth_token="${TRELLO.token}"`;
    expect((await call(m.url, `/1/cards/${CARD}`, { headers: { authorization: header } })).status).toBe(200);
    for (const path of [
      `/1/cards/${CARD}`,
      `/1/cards/${CARD}?key=${TRELLO.apiKey}`,
      `/1/cards/${CARD}?key=${TRELLO.apiKey}&token=wrong`,
    ]) {
      const r = await call(m.url, path);
      expect([r.status, r.text]).toEqual([401, "invalid token"]);
    }
    expect(m.counters().authFailures).toBe(3);
  });
});

describe("world news api key", () => {
  it("takes x-api-key or api-key and answers 401 JSON otherwise", async () => {
    const m = await mock("worldnews");
    expect(
      (await call(m.url, "/search-news?text=electric", { headers: { "x-api-key": WORLDNEWS.apiKey } })).status,
    ).toBe(200);
    expect((await call(m.url, `/search-news?text=electric&api-key=${WORLDNEWS.apiKey}`)).status).toBe(200);
    const r = await call(m.url, "/search-news?text=electric", { headers: { "x-api-key": "nope" } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ status: "failure", code: 401, message: "Invalid API key." });
  });
});

describe("marketo client credentials", () => {
  const tokenPath =
    `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
    `${MARKETO.clientSecret}`;

  it("issues tokens that expire, then answers 602 (and 601 for unknown tokens) inside HTTP 200", async () => {
    const clock = manualClock();
    const m = await mock("marketo", { clock: clock.now, auth: { tokenLifetimeSeconds: 30 } });
    const issued = await call(m.url, tokenPath);
    expect(issued.json).toMatchObject({ token_type: "bearer", expires_in: 30 });
    clock.advance(10_000);
    const again = await call(m.url, tokenPath);
    expect(again.json).toMatchObject({ access_token: issued.json.access_token, expires_in: 20 });
    const auth = { authorization: `Bearer ${issued.json.access_token}` };
    expect((await call(m.url, "/rest/v1/lists.json", { headers: auth })).json.success).toBe(true);
    clock.advance(20_000);
    const expired = await call(m.url, "/rest/v1/lists.json", { headers: auth });
    expect(expired.status).toBe(200);
    expect(expired.json).toMatchObject({ success: false, errors: [{ code: "602", message: "Access token expired" }] });
    const unknown = await call(m.url, "/rest/v1/lists.json", { headers: { authorization: "Bearer forged" } });
    expect(unknown.json).toMatchObject({ success: false, errors: [{ code: "601" }] });
    const fresh = await call(m.url, tokenPath);
    expect(fresh.json.access_token).not.toBe(issued.json.access_token);
    expect(m.counters().tokensIssued).toBe(2);
  });

  it("refuses bad client credentials with HTTP 401 at the identity endpoint", async () => {
    const m = await mock("marketo");
    const r = await call(
      m.url,
      `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=wrong`,
    );
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: "unauthorized", error_description: "Bad client credentials" });
  });

  it("lets the generated client fetch a token and renew it after 602", async () => {
    const clock = manualClock();
    const m = await mock("marketo", { clock: clock.now, auth: { tokenLifetimeSeconds: 3600 } });
    const marketo = new MarketoClient(clientOptions(marketoDescriptor, m.url, MARKETO));
    await marketo.getLists({});
    clock.advance(3_600_000);
    await marketo.getLists({});
    expect(m.counters().tokensIssued).toBe(2);
    expect(m.counters().byOperation.getLists).toBe(3);
  });
});

describe("content snare bearer with refresh", () => {
  it("accepts the connection's token until it expires, then refreshes it with a rotating refresh token", async () => {
    const clock = manualClock();
    const m = await mock("contentsnare", { clock: clock.now, auth: { tokenLifetimeSeconds: 60 } });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    expect((await call(m.url, "/partner_api/v1/clients", { headers: bearer(CONTENTSNARE.accessToken) })).status).toBe(
      200,
    );
    clock.advance(61_000);
    const expired = await call(m.url, "/partner_api/v1/clients", { headers: bearer(CONTENTSNARE.accessToken) });
    expect([expired.status, expired.json]).toEqual([401, { errors: ["The access token expired"] }]);

    const refresh = (token: string) =>
      call(m.url, "/oauth/token", {
        method: "POST",
        json: {
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: CONTENTSNARE.clientId,
          client_secret: CONTENTSNARE.clientSecret,
        },
      });
    const renewed = await refresh(CONTENTSNARE.refreshToken);
    expect(renewed.status).toBe(200);
    expect(renewed.json).toMatchObject({ token_type: "Bearer", expires_in: 60 });
    expect(renewed.json.refresh_token).not.toBe(CONTENTSNARE.refreshToken);
    expect((await call(m.url, "/partner_api/v1/clients", { headers: bearer(renewed.json.access_token) })).status).toBe(
      200,
    );
    const reused = await refresh(CONTENTSNARE.refreshToken);
    expect(reused.status).toBe(400);
    expect(reused.json).toMatchObject({ error: "invalid_grant" });
  });
});
