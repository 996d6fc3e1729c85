/**
 * The real services' behaviour, against the behavioural mocks over HTTP: Trello's `pos` order with
 * top/bottom, check items and notifications from state, webhook retries counting
 * consecutiveFailures, credentials checked before the callback probe; Marketo's activity log and
 * paging tokens, campaign trigger/schedule and assets from state; World News from records.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { BOARD, call, CARD, MARKETO, TRELLO_AUTH, WORLDNEWS, useMocks } from "./helpers.js";

const mock = useMocks();
const json = (body: unknown): RequestInit & { json: unknown } => ({ method: "POST", json: body });

describe("trello", () => {
  it("lists a board's lists and a list's cards by pos; top and bottom land first and last", async () => {
    const m = await mock("trello");
    const lists = await call(m.url, `/1/boards/${BOARD}/lists?${TRELLO_AUTH}`);
    expect(lists.json.map((l: { name: string }) => l.name)).toEqual(["To Do", "Doing", "Done"]);
    const todo = lists.json[0].id as string;
    const top = await call(m.url, `/1/cards?${TRELLO_AUTH}`, json({ idList: todo, name: "top", pos: "top" }));
    const bottom = await call(m.url, `/1/cards?${TRELLO_AUTH}`, json({ idList: todo, name: "bottom", pos: "bottom" }));
    const plain = await call(m.url, `/1/cards?${TRELLO_AUTH}`, json({ idList: todo, name: "plain" }));
    expect(typeof top.json.pos).toBe("number");
    const names = (await call(m.url, `/1/lists/${todo}/cards?${TRELLO_AUTH}`)).json.map(
      (c: { name: string }) => c.name,
    );
    expect(names[0]).toBe("top");
    expect(names.slice(-2)).toEqual(["bottom", "plain"]);
    // Moving to the top of another list, as a drag in the UI does.
    const done = lists.json[2].id as string;
    await call(m.url, `/1/cards/${bottom.json.id}?${TRELLO_AUTH}`, {
      method: "PUT",
      json: { idList: done, pos: "top" },
    });
    const doneCards = (await call(m.url, `/1/lists/${done}/cards?${TRELLO_AUTH}`)).json;
    expect(doneCards[0].id).toBe(bottom.json.id);
    expect(plain.json.pos).toBeGreaterThan(bottom.json.pos);
    const list = await call(m.url, `/1/lists?${TRELLO_AUTH}`, json({ idBoard: BOARD, name: "Backlog", pos: "top" }));
    expect((await call(m.url, `/1/boards/${BOARD}/lists?${TRELLO_AUTH}`)).json[0].id).toBe(list.json.id);
  });

  it("adds check items in pos order and ticks one through its card, firing updateCheckItemStateOnCard", async () => {
    const m = await mock("trello");
    const checklist = "6123aa10c4b5d6e7f8091a3c";
    const first = await call(
      m.url,
      `/1/checklists/${checklist}/checkItems?${TRELLO_AUTH}`,
      json({ name: "First of all", pos: "top" }),
    );
    const names = (await call(m.url, `/1/checklists/${checklist}?${TRELLO_AUTH}`)).json.checkItems.map(
      (i: { name: string }) => i.name,
    );
    expect(names[0]).toBe("First of all");
    const ticked = await call(m.url, `/1/cards/${CARD}/checkItem/${first.json.id}?${TRELLO_AUTH}`, {
      method: "PUT",
      json: { state: "complete", name: "Done first" },
    });
    expect(ticked.json).toMatchObject({
      id: first.json.id,
      state: "complete",
      name: "Done first",
      idChecklist: checklist,
    });
    const after = (await call(m.url, `/1/checklists/${checklist}?${TRELLO_AUTH}`)).json.checkItems.find(
      (i: { id: string }) => i.id === first.json.id,
    );
    expect(after.state).toBe("complete");
    const wrongCard = await call(m.url, `/1/cards/6123a9f0c4b5d6e7f8091a2c/checkItem/${first.json.id}?${TRELLO_AUTH}`, {
      method: "PUT",
      json: { state: "complete" },
    });
    expect(wrongCard.status).toBe(404);
  });

  it("lists notifications from state, newest first, filtered by read state, type and since", async () => {
    const m = await mock("trello");
    const all = (await call(m.url, `/1/members/me/notifications?${TRELLO_AUTH}`)).json;
    expect(all.map((n: { type: string }) => n.type)).toEqual(["commentCard", "cardDueSoon"]);
    const unread = (await call(m.url, `/1/members/me/notifications?read_filter=unread&${TRELLO_AUTH}`)).json;
    expect(unread.map((n: { unread: boolean }) => n.unread)).toEqual([true]);
    expect(
      (await call(m.url, `/1/members/me/notifications?read_filter=read&${TRELLO_AUTH}`)).json.map(
        (n: { unread: boolean }) => n.unread,
      ),
    ).toEqual([false]);
    expect(
      (await call(m.url, `/1/members/me/notifications?filter=cardDueSoon&${TRELLO_AUTH}`)).json.map(
        (n: { type: string }) => n.type,
      ),
    ).toEqual(["cardDueSoon"]);
    expect(
      (await call(m.url, `/1/members/me/notifications?since=${all[1].id}&${TRELLO_AUTH}`)).json.map(
        (n: { id: string }) => n.id,
      ),
    ).toEqual([all[0].id]);
    expect(
      (await call(m.url, `/1/members/me/notifications?before=${all[0].id}&${TRELLO_AUTH}`)).json.map(
        (n: { id: string }) => n.id,
      ),
    ).toEqual([all[1].id]);
  });

  it("retries a failed delivery and counts consecutiveFailures on the webhook until one gets through", async () => {
    let failures = 2;
    const posts: string[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.method === "POST") posts.push(new Date().toISOString());
        res.writeHead(req.method === "POST" && failures-- > 0 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const callbackURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const m = await mock("trello", { webhooks: { retryDelaysMs: [5, 5, 5] } });
    const hook = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, json({ callbackURL, idModel: BOARD }));
    expect(hook.json).toMatchObject({ consecutiveFailures: 0, firstConsecutiveFailDate: null });
    await call(m.url, `/1/cards?${TRELLO_AUTH}`, json({ idList: "60d5ecb74e2a1b3c4d5e6f72", name: "fires" }));
    while (m.counters().webhookDeliveries < 1) await new Promise((r) => setTimeout(r, 5));
    expect(posts).toHaveLength(3);
    expect(m.counters()).toMatchObject({ webhookFailures: 2, webhookRetries: 2, webhookDeliveries: 1 });
    expect((await call(m.url, `/1/webhooks/${hook.json.id}?${TRELLO_AUTH}`)).json).toMatchObject({
      consecutiveFailures: 0,
      firstConsecutiveFailDate: null,
    });

    // A callback that never answers 2xx: 1 + 3 attempts, then the webhook shows the run of failures.
    failures = 100;
    await call(m.url, `/1/cards?${TRELLO_AUTH}`, json({ idList: "60d5ecb74e2a1b3c4d5e6f72", name: "fails" }));
    while (m.counters().webhookFailures < 6) await new Promise((r) => setTimeout(r, 5));
    const failing = (await call(m.url, `/1/webhooks/${hook.json.id}?${TRELLO_AUTH}`)).json;
    expect(failing.consecutiveFailures).toBe(4);
    expect(Date.parse(failing.firstConsecutiveFailDate)).toBeGreaterThan(0);
  });

  it("checks credentials before it probes the callback", async () => {
    let probes = 0;
    const server: Server = createServer((req, res) => {
      probes++;
      req.resume();
      res.writeHead(200).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const m = await mock("trello");
    const callbackURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const refused = await call(m.url, "/1/webhooks?key=wrong&token=wrong", json({ callbackURL, idModel: BOARD }));
    expect([refused.status, refused.text]).toEqual([401, "invalid token"]);
    expect(probes).toBe(0);
    expect((await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, json({ callbackURL, idModel: BOARD }))).status).toBe(200);
    expect(probes).toBe(1);
  });
});

async function marketo(m: { url: string }): Promise<Record<string, string>> {
  const r = await call(
    m.url,
    `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
      `${MARKETO.clientSecret}`,
  );
  return { authorization: `Bearer ${r.json.access_token}` };
}

describe("marketo", () => {
  it(
    "logs activities for new and changed leads, list membership and campaign requests, " + "read since a paging token",
    async () => {
      const m = await mock("marketo");
      const headers = await marketo(m);
      const since = await call(m.url, "/rest/v1/activities/pagingtoken.json?sinceDatetime=2030-01-01T00:00:00Z", {
        headers,
      });
      expect(since.json.nextPageToken).toMatch(/^[A-Z2-7]+$/);
      const empty = await call(
        m.url,
        `/rest/v1/activities.json?nextPageToken=${since.json.nextPageToken}&activityTypeIds=12,13,24,47`,
        { headers },
      );
      expect(empty.json).toMatchObject({ success: true, moreResult: false, result: [] });

      const token = (
        await call(
          m.url,
          `/rest/v1/activities/pagingtoken.json?sinceDatetime=${new Date(Date.now() - 60_000).toISOString()}`,
          { headers },
        )
      ).json.nextPageToken;
      const synced = await call(m.url, "/rest/v1/leads.json", {
        method: "POST",
        headers,
        json: { input: [{ email: "new@example.com" }] },
      });
      const lead = synced.json.result[0].id as number;
      await call(m.url, "/rest/v1/leads.json", {
        method: "POST",
        headers,
        json: { input: [{ email: "new@example.com", firstName: "Nia" }] },
      });
      const lists = (await call(m.url, "/rest/v1/lists.json", { headers })).json.result;
      await call(m.url, `/rest/v1/lists/${lists[0].id}/leads.json`, {
        method: "POST",
        headers,
        json: { input: [{ id: lead }] },
      });
      const campaign = (await call(m.url, "/rest/v1/campaigns.json", { headers })).json.result[0];
      const triggered = await call(m.url, `/rest/v1/campaigns/${campaign.id}/trigger.json`, {
        method: "POST",
        headers,
        json: { input: { leads: [{ id: lead }] } },
      });
      expect(triggered.json).toMatchObject({ success: true, result: [{ id: campaign.id }] });

      const page = await call(
        m.url,
        `/rest/v1/activities.json?nextPageToken=${token}&activityTypeIds=12,13,24,47&leadIds=${lead}`,
        { headers },
      );
      expect(page.json.result.map((a: { activityTypeId: number }) => a.activityTypeId)).toEqual([12, 13, 24, 47]);
      expect(page.json.result[2]).toMatchObject({ leadId: lead, primaryAttributeValue: lists[0].name });
      expect(page.json.result[3]).toMatchObject({ leadId: lead, campaignId: campaign.id });
      // The token of the last page picks up what happens next.
      await call(m.url, `/rest/v1/lists/${lists[0].id}/leads.json`, {
        method: "DELETE",
        headers,
        json: { input: [{ id: lead }] },
      });
      const next = await call(
        m.url,
        `/rest/v1/activities.json?nextPageToken=${page.json.nextPageToken}&activityTypeIds=25`,
        { headers },
      );
      expect(next.json.result.map((a: { activityTypeId: number }) => a.activityTypeId)).toEqual([25]);
      const changes = await call(
        m.url,
        `/rest/v1/activities/leadchanges.json?nextPageToken=${token}&fields=firstName`,
        {
          headers,
        },
      );
      expect(changes.json.result.map((a: { activityTypeId: number }) => a.activityTypeId)).toEqual([12, 13]);
      const bad = await call(m.url, "/rest/v1/activities.json?nextPageToken=not-a-token&activityTypeIds=12", {
        headers,
      });
      expect(bad.json).toMatchObject({ success: false, errors: [{ code: "1003" }] });
    },
  );

  it("refuses a campaign that does not exist, schedules one, and approves an email draft", async () => {
    const m = await mock("marketo");
    const headers = await marketo(m);
    const missing = await call(m.url, "/rest/v1/campaigns/424242/trigger.json", {
      method: "POST",
      headers,
      json: { input: { leads: [{ id: 1 }] } },
    });
    expect(missing.json).toMatchObject({ success: false, errors: [{ code: "1013" }] });
    const campaign = (await call(m.url, "/rest/v1/campaigns.json", { headers })).json.result[0];
    const runAt = "2030-06-03T15:00:00Z";
    await call(m.url, `/rest/v1/campaigns/${campaign.id}/schedule.json`, {
      method: "POST",
      headers,
      json: { input: { runAt } },
    });
    expect(m.records("campaign").find((c) => c.id === campaign.id)).toMatchObject({ scheduledAt: runAt });
    const email = (await call(m.url, "/rest/asset/v1/email/byName.json?name=Welcome%20Email%201", { headers })).json
      .result[0];
    await call(m.url, `/rest/asset/v1/email/${email.id}/approveDraft.json`, { method: "POST", headers });
    expect(
      (await call(m.url, `/rest/asset/v1/email/byName.json?name=Welcome%20Email%201&status=approved`, { headers })).json
        .result,
    ).toHaveLength(1);
    expect(
      (await call(m.url, "/rest/asset/v1/email/byName.json?name=No%20such%20email", { headers })).json.result,
    ).toEqual([]);
    // The asset API's own page size: 20 by default, at most 200.
    await call(m.url, "/rest/asset/v1/programs.json", { headers });
    const one = await call(m.url, "/rest/asset/v1/programs.json?maxReturn=1", { headers });
    expect([one.json.success, one.json.result.length]).toEqual([true, 1]);
    expect((await call(m.url, "/rest/asset/v1/programs.json?maxReturn=500", { headers })).json).toMatchObject({
      success: false,
      errors: [{ code: "1003" }],
    });
    expect((await call(m.url, "/rest/asset/v1/program/999999/stats.json", { headers })).json).toMatchObject({
      success: false,
    });
  });
});

describe("world news", () => {
  it("answers top news, extraction and sources from its records", async () => {
    const m = await mock("worldnews");
    const headers = { "x-api-key": WORLDNEWS.apiKey };
    const top = await call(m.url, "/top-news?source-country=gb&language=en", { headers });
    expect(top.json.top_news[0].news.length).toBeGreaterThan(0);
    expect(top.json.top_news[0].news.every((a: { source_country: string }) => a.source_country === "gb")).toBe(true);
    const none = await call(m.url, "/top-news?source-country=zz&language=en", { headers });
    expect(none.json.top_news[0].news).toEqual([]);
    const article = top.json.top_news[0].news[0];
    const extracted = await call(m.url, `/extract-news?url=${encodeURIComponent(article.url)}`, { headers });
    expect(extracted.json.title).toBe(article.title);
    expect(
      (await call(m.url, `/extract-news?url=${encodeURIComponent("https://example.com/nothing")}`, { headers })).status,
    ).toBe(404);
    const sources = await call(m.url, "/search-news-sources?name=mundo", { headers });
    expect(sources.json).toEqual({ available: 1, sources: [expect.objectContaining({ name: "BBC Mundo" })] });
  });
});
