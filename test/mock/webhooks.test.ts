/** Trello webhooks in the mock: HEAD probe before registering, signed deliveries on changes (verified here independently). */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { BOARD, call, CARD, LABEL, LIST, receiver, TRELLO_AUTH } from "./helpers.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

const SECRET = "app-secret-for-tests";

function signatureOf(body: string, callbackUrl: string): string {
  return createHmac("sha1", SECRET).update(body + callbackUrl, "utf8").digest("base64");
}

describe("trello webhooks", () => {
  it("probes the callback with HEAD, then delivers signed events for cards, comments, labels, lists and checklists", async () => {
    const hook = await receiver();
    const m: RunningMock = await startMock("trello", { webhookSecret: SECRET });
    open.push(m, hook);
    const created = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, { method: "POST", json: { callbackURL: hook.url, idModel: BOARD, description: "test" } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ idModel: BOARD, callbackURL: hook.url, active: true });
    expect(hook.calls.map((c) => c.method)).toEqual(["HEAD"]);

    const card = await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: LIST, name: "Hooked" } });
    await call(m.url, `/1/cards/${card.json.id}/actions/comments?${TRELLO_AUTH}`, { method: "POST", json: { text: "hello" } });
    await call(m.url, `/1/cards/${card.json.id}/idLabels?${TRELLO_AUTH}`, { method: "POST", json: { value: LABEL } });
    await call(m.url, `/1/lists?${TRELLO_AUTH}`, { method: "POST", json: { name: "Later", idBoard: BOARD } });
    const checklist = await call(m.url, `/1/checklists?${TRELLO_AUTH}`, { method: "POST", json: { idCard: CARD, name: "Steps" } });
    await call(m.url, `/1/checklists/${checklist.json.id}/checkItems?${TRELLO_AUTH}`, { method: "POST", json: { name: "first" } });
    await hook.next(6);

    const posts = hook.calls.filter((c) => c.method === "POST");
    for (const p of posts) expect(p.headers["x-trello-webhook"]).toBe(signatureOf(p.body, hook.url));
    const events = posts.map((p) => JSON.parse(p.body) as { action: { type: string; data: Record<string, { id?: string }> }; model: { id: string }; webhook: { idModel: string } });
    expect(events.map((e) => e.action.type).sort()).toEqual(["addChecklistToCard", "addLabelToCard", "commentCard", "createCard", "createCheckItem", "createList"].sort());
    const comment = events.find((e) => e.action.type === "commentCard")!;
    expect(comment.action.data).toMatchObject({ text: "hello", card: { id: card.json.id } });
    expect(comment.model.id).toBe(BOARD);
    expect(comment.webhook.idModel).toBe(BOARD);
    await m.close(); // waits for deliveries in flight, so the counter is final
    expect(m.counters().webhookDeliveries).toBe(6);
  });

  it("does not register a webhook whose callback does not answer the probe with 200", async () => {
    const hook = await receiver(404);
    const m = await startMock("trello", { webhookSecret: SECRET });
    open.push(m, hook);
    const r = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, { method: "POST", json: { callbackURL: hook.url, idModel: BOARD } });
    expect(r.status).toBe(400);
    expect(r.text).toBe(`URL (${hook.url}) did not return 200 status code, got 404`);
    expect(m.records("webhook")).toEqual([]);
    await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: LIST, name: "Unwatched" } });
    expect(hook.calls.filter((c) => c.method === "POST")).toEqual([]);
  });
});
