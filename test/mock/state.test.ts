/**
 * Behavioural mocks keep state: what is created can be read, listed, updated and deleted; seeds come from the spec's
 * examples.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { ContentsnareClient } from "../../generated/contentsnare/client.js";
import { MarketoClient } from "../../generated/marketo/client.js";
import { startTrelloMock } from "../../generated/trello/mock.js";
import { TrelloClient } from "../../generated/trello/client.js";
import {
  BOARD,
  call,
  CARD,
  clientOptions,
  CONTENTSNARE,
  LABEL,
  LIST,
  MARKETO,
  TRELLO,
  TRELLO_AUTH,
  WORLDNEWS,
  useMocks,
} from "./helpers.js";

const mock = useMocks();

describe("trello", () => {
  it("serves the spec's example records out of the box", async () => {
    const m = await mock("trello");
    const card = await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`);
    expect(card.status).toBe(200);
    expect(card.json).toMatchObject({ id: CARD, idList: LIST, idBoard: BOARD });
    const lists = await call(m.url, `/1/boards/${BOARD}/lists?${TRELLO_AUTH}`);
    expect(lists.json.map((l: { id: string }) => l.id)).toContain(LIST);
  });

  it("shows a card created in a list in that list's and board's cards, updates, moves and deletes it", async () => {
    const m = await startTrelloMock();
    onTestFinished(() => m.close());
    const { descriptor } = await import("../../generated/trello/descriptor.js");
    const trello = new TrelloClient(clientOptions(descriptor, m.url, TRELLO));
    const created = await trello.createCard({ body: { idList: LIST, name: "Ship the mock" } });
    expect(created).toMatchObject({ idList: LIST, idBoard: BOARD, name: "Ship the mock" });
    expect((await trello.getListCards({ params: { path: { id: LIST } } })).map((c) => c.id)).toContain(created.id);
    expect((await trello.getBoardCards({ params: { path: { id: BOARD } } })).map((c) => c.id)).toContain(created.id);

    const other = "60d5ecb74e2a1b3c4d5e6f73";
    await trello.updateCard({
      params: { path: { id: created.id } },
      body: { idList: other, name: "Shipped" },
    } as never);
    expect((await trello.getCard({ params: { path: { id: created.id } } })).name).toBe("Shipped");
    expect((await trello.getListCards({ params: { path: { id: LIST } } })).map((c) => c.id)).not.toContain(created.id);
    expect((await trello.getListCards({ params: { path: { id: other } } })).map((c) => c.id)).toContain(created.id);

    await trello.deleteCard({ params: { path: { id: created.id } } });
    await expect(trello.getCard({ params: { path: { id: created.id } } })).rejects.toMatchObject({
      kind: "not_found",
      status: 404,
    });
    expect(m.counters().creates.card).toBe(1);
    expect(m.counters().deletes.card).toBe(1);
  });

  it("shows a comment in the card's actions and a label in the card's labels", async () => {
    const m = await mock("trello");
    const comment = await call(m.url, `/1/cards/${CARD}/actions/comments?${TRELLO_AUTH}`, {
      method: "POST",
      json: { text: "Looks good" },
    });
    expect(comment.status).toBe(200);
    expect(comment.json).toMatchObject({ type: "commentCard", data: { text: "Looks good", card: { id: CARD } } });
    const actions = await call(m.url, `/1/cards/${CARD}/actions?${TRELLO_AUTH}`);
    expect(actions.json[0]).toMatchObject({ id: comment.json.id, data: { text: "Looks good" } });

    const labels = await call(m.url, `/1/cards/${CARD}/idLabels?${TRELLO_AUTH}`, {
      method: "POST",
      json: { value: LABEL },
    });
    expect(labels.json).toContain(LABEL);
    await call(m.url, `/1/cards/${CARD}/idLabels/${LABEL}?${TRELLO_AUTH}`, { method: "DELETE" });
    expect((await call(m.url, `/1/cards/${CARD}?${TRELLO_AUTH}`)).json.idLabels).not.toContain(LABEL);
  });

  it("answers an unknown list, a malformed body and an unknown route as Trello does (plain text)", async () => {
    const m = await mock("trello");
    const unknownList = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      json: { idList: "60d5ecb74e2a1b3c4d5e6fff" },
    });
    expect([unknownList.status, unknownList.text]).toEqual([400, "invalid value for idList"]);
    expect(unknownList.type).toMatch(/^text\/plain/);
    const badId = await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: "not-an-id" } });
    expect([badId.status, badId.text]).toEqual([400, "invalid value for idList"]);
    const badJson = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect([badJson.status, badJson.text]).toEqual([400, "invalid json"]);
    const route = await call(m.url, `/1/nothing?${TRELLO_AUTH}`);
    expect([route.status, route.text]).toEqual([404, "Cannot GET /1/nothing"]);
    expect(m.counters().validationFailures).toBe(2);
    expect(m.counters().creates.card).toBeUndefined();
  });
});

describe("marketo", () => {
  it("upserts leads and keeps static list membership", async () => {
    const m = await mock("marketo");
    const { descriptor } = await import("../../generated/marketo/descriptor.js");
    const marketo = new MarketoClient(clientOptions(descriptor, m.url, MARKETO));
    const synced = (await marketo.syncLeads({
      body: {
        action: "createOrUpdate",
        lookupField: "email",
        input: [
          { email: "new.lead@example.com", firstName: "New" },
          { email: "amy.nguyen@example.com", lastName: "N." },
        ],
      },
    })) as {
      result: Array<{ id: number; status: string }>;
    };
    expect(synced.result.map((r) => r.status)).toEqual(["created", "updated"]);
    const newId = synced.result[0]!.id;
    const found = (await marketo.getLeads({
      params: { query: { filterType: "email", filterValues: ["new.lead@example.com"] } },
    })) as { result: Array<{ id: number }> };
    expect(found.result.map((l) => l.id)).toEqual([newId]);

    const added = (await marketo.addLeadsToList({
      params: { path: { listId: 1082 } },
      body: { input: [{ id: newId }, { id: 1 }] },
    })) as { result: unknown[] };
    expect(added.result).toEqual([
      { id: newId, status: "added" },
      { id: 1, status: "skipped", reasons: [{ code: "1004", message: "Lead not found" }] },
    ]);
    const members = (await marketo.getListMembers({ params: { path: { listId: 1082 } } })) as {
      result: Array<{ id: number }>;
    };
    expect(members.result.map((l) => l.id)).toContain(newId);
    const check = (await marketo.checkListMembership({
      params: { path: { listId: 1082 }, query: { id: [newId, 318602] } },
    } as never)) as { result: unknown[] };
    expect(check.result).toEqual([
      { id: newId, status: "memberof" },
      { id: 318602, status: "notmemberof" },
    ]);
    await marketo.removeLeadsFromList({ params: { path: { listId: 1082 } }, body: { input: [{ id: newId }] } });
    expect(
      ((await marketo.getListMembers({ params: { path: { listId: 1082 } } })) as { result: unknown[] }).result,
    ).toEqual([]);
    expect(m.counters().creates.lead).toBe(1);
  });

  it("answers an unknown list inside HTTP 200 with success false", async () => {
    const m = await mock("marketo", { auth: { tokenLifetimeSeconds: 60 } });
    const token = (
      await call(
        m.url,
        `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
          `${MARKETO.clientSecret}`,
      )
    ).json.access_token;
    const r = await call(m.url, "/rest/v1/lists/424242/leads.json", { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ success: false, errors: [{ code: "1013" }] });
    const bad = await call(m.url, "/rest/v1/leads.json", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{oops",
    });
    expect(bad.json).toMatchObject({ success: false, errors: [{ code: "609" }] });
    const invalid = await call(m.url, "/rest/v1/leads.json", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      json: { input: [] },
    });
    expect(invalid.json).toMatchObject({ success: false, errors: [{ code: "1003" }] });
  });
});

describe("content snare and world news", () => {
  it("creates, reads, updates, lists and deletes a client", async () => {
    const m = await mock("contentsnare");
    const { descriptor } = await import("../../generated/contentsnare/descriptor.js");
    const cs = new ContentsnareClient(clientOptions(descriptor, m.url, CONTENTSNARE));
    const created = await cs.createClient({ body: { email: "pat@example.com", full_name: "Pat Lee" } });
    expect(created.id).toMatch(/^acc_/);
    await cs.updateClient({ params: { path: { id: created.id } }, body: { phone: "+61 400 000 000" } } as never);
    expect((await cs.getClient({ params: { path: { id: created.id } } })).phone).toBe("+61 400 000 000");
    const searched = await cs.listClients({ params: { query: { q: "pat lee" } } } as never);
    expect(searched.results.map((c) => c.id)).toEqual([created.id]);
    await cs.deleteClient({ params: { path: { id: created.id } } });
    await expect(cs.getClient({ params: { path: { id: created.id } } })).rejects.toMatchObject({ status: 404 });
    const missing = await call(m.url, "/partner_api/v1/clients", {
      method: "POST",
      headers: { authorization: "Bearer mock-access-token" },
      json: { full_name: "No Email" },
    });
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({ errors: [expect.stringContaining("email")] });
  });

  it("serves seeded articles and answers errors as {status, code, message}", async () => {
    const m = await mock("worldnews");
    const r = await call(m.url, "/search-news?text=electric", { headers: { "x-api-key": WORLDNEWS.apiKey } });
    expect(r.status).toBe(200);
    expect(r.json.news.length).toBeGreaterThan(0);
    for (const a of r.json.news) expect(`${a.title} ${a.text} ${a.summary}`.toLowerCase()).toContain("electric");
    const bad = await call(m.url, "/search-news?text=electric&number=lots", {
      headers: { "x-api-key": WORLDNEWS.apiKey },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ status: "failure", code: 400, message: expect.stringContaining("number") });
  });

  it("forgets everything on reset and counts again from zero", async () => {
    const m = await mock("contentsnare");
    await call(m.url, "/partner_api/v1/clients", {
      method: "POST",
      headers: { authorization: "Bearer mock-access-token" },
      json: { email: "a@example.com" },
    });
    expect(m.records("client").some((c) => c.email === "a@example.com")).toBe(true);
    m.reset();
    expect(m.records("client").some((c) => c.email === "a@example.com")).toBe(false);
    expect(m.counters().requests).toBe(0);
  });
});
