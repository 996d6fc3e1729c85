/**
 * Trello webhooks in the mock: HEAD probe before registering, signed deliveries on changes (verified here
 * independently).
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { isLoopbackUrl } from "../../runtime/internal/loopback.js";
import { BOARD, call, CARD, LABEL, LIST, receiver, TRELLO_AUTH } from "./helpers.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

const SECRET = "app-secret-for-tests";

function signatureOf(body: string, callbackUrl: string): string {
  return createHmac("sha1", SECRET)
    .update(body + callbackUrl, "utf8")
    .digest("base64");
}

describe("trello webhooks", () => {
  it(
    "probes the callback with HEAD, then delivers signed events for cards, comments, " + "labels, lists and checklists",
    async () => {
      const hook = await receiver();
      const m: RunningMock = await startMock("trello", { webhooks: { secret: SECRET } });
      open.push(m, hook);
      const created = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, {
        method: "POST",
        json: { callbackURL: hook.url, idModel: BOARD, description: "test" },
      });
      expect(created.status).toBe(200);
      expect(created.json).toMatchObject({ idModel: BOARD, callbackURL: hook.url, active: true });
      expect(hook.calls.map((c) => c.method)).toEqual(["HEAD"]);

      const card = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
        method: "POST",
        json: { idList: LIST, name: "Hooked" },
      });
      await call(m.url, `/1/cards/${card.json.id}/actions/comments?${TRELLO_AUTH}`, {
        method: "POST",
        json: { text: "hello" },
      });
      await call(m.url, `/1/cards/${card.json.id}/idLabels?${TRELLO_AUTH}`, { method: "POST", json: { value: LABEL } });
      await call(m.url, `/1/lists?${TRELLO_AUTH}`, { method: "POST", json: { name: "Later", idBoard: BOARD } });
      const checklist = await call(m.url, `/1/checklists?${TRELLO_AUTH}`, {
        method: "POST",
        json: { idCard: CARD, name: "Steps" },
      });
      await call(m.url, `/1/checklists/${checklist.json.id}/checkItems?${TRELLO_AUTH}`, {
        method: "POST",
        json: { name: "first" },
      });
      await hook.next(6);

      const posts = hook.calls.filter((c) => c.method === "POST");
      for (const p of posts) expect(p.headers["x-trello-webhook"]).toBe(signatureOf(p.body, hook.url));
      const events = posts.map(
        (p) =>
          JSON.parse(p.body) as {
            action: { type: string; data: Record<string, { id?: string }> };
            model: { id: string };
            webhook: { idModel: string };
          },
      );
      expect(events.map((e) => e.action.type).sort()).toEqual(
        ["addChecklistToCard", "addLabelToCard", "commentCard", "createCard", "createCheckItem", "createList"].sort(),
      );
      const comment = events.find((e) => e.action.type === "commentCard")!;
      expect(comment.action.data).toMatchObject({ text: "hello", card: { id: card.json.id } });
      expect(comment.model.id).toBe(BOARD);
      expect(comment.webhook.idModel).toBe(BOARD);
      await m.close(); // waits for deliveries in flight, so the counter is final
      expect(m.counters().webhookDeliveries).toBe(6);
    },
  );

  it("does not register a webhook whose callback does not answer the probe with 200", async () => {
    const hook = await receiver(404);
    const m = await startMock("trello", { webhooks: { secret: SECRET } });
    open.push(m, hook);
    const r = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, {
      method: "POST",
      json: { callbackURL: hook.url, idModel: BOARD },
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe(`URL (${hook.url}) did not return 200 status code, got 404`);
    expect(m.records("webhook")).toEqual([]);
    await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: LIST, name: "Unwatched" } });
    expect(hook.calls.filter((c) => c.method === "POST")).toEqual([]);
  });
});

/** A loopback server answering every request with a redirect to `location` (HEAD too, unless `headStatus`). */
async function redirector(location: string, headStatus?: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.method === "HEAD" && headStatus !== undefined) res.writeHead(headStatus).end();
    else res.writeHead(302, { location }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/moved`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("trello webhook callbacks stay on this machine", () => {
  /** Every URL this process fetched while `run` ran (the mock runs in this process). */
  async function fetchedDuring(run: () => Promise<void>): Promise<string[]> {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      await run();
      return spy.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input));
    } finally {
      spy.mockRestore();
    }
  }
  const offMachine = (urls: string[]) => urls.filter((u) => /192\.0\.2\.1|169\.254\.169\.254/.test(u));

  it("accepts only loopback callback URLs", () => {
    for (const url of [
      "http://127.0.0.1:9/h",
      "https://127.8.9.10/h",
      "http://localhost:1/",
      "http://[::1]:80/",
      "http://0x7f.1/",
      "http://2130706433/",
    ])
      expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of [
      "http://192.0.2.1/",
      "http://169.254.169.254/latest/meta-data",
      "https://hooks.example.com/x",
      "http://127.0.0.1.nip.io/",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost.example.com/",
      "file:///etc/passwd",
      "not a url",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it("refuses a non-loopback callback with webhookRejected naming the callback field, without probing it", async () => {
    const m = await startMock("trello", { webhooks: { secret: SECRET } });
    open.push(m);
    const fetched = await fetchedDuring(async () => {
      for (const callbackURL of ["http://192.0.2.1/hook", "http://169.254.169.254/latest/meta-data/"]) {
        const r = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, {
          method: "POST",
          json: { callbackURL, idModel: BOARD },
        });
        expect(r.status).toBe(400);
        expect(r.text).toContain(`URL (${callbackURL}) did not return 200 status code`);
        expect(r.text).toContain("callbackURL must be on 127.0.0.0/8, ::1 or localhost");
      }
    });
    // The two registrations reached the mock; the mock itself fetched neither callback.
    expect(fetched.filter((u) => u.startsWith(m.url))).toHaveLength(2);
    expect(offMachine(fetched)).toEqual([]);
    expect(m.records("webhook")).toEqual([]);
  });

  it("counts a probe answered with a redirect as failed, and does not follow it", async () => {
    const hook = await receiver();
    const moved = await redirector(hook.url);
    const m = await startMock("trello", { webhooks: { secret: SECRET } });
    open.push(m, hook, moved);
    const r = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, {
      method: "POST",
      json: { callbackURL: moved.url, idModel: BOARD },
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe(`URL (${moved.url}) did not return 200 status code, got 302`);
    expect(hook.calls).toEqual([]);
    expect(m.records("webhook")).toEqual([]);
  });

  it("never delivers to a non-loopback callback from a state file, nor follows a delivery's redirect", async () => {
    const hook = await receiver();
    const moved = await redirector(hook.url, 200);
    const state = {
      records: {
        webhook: [
          { id: "5f0000000000000000000001", idModel: BOARD, callbackURL: "http://192.0.2.1/hook", active: true },
        ],
      },
    };
    const m = await startMock("trello", { webhooks: { secret: SECRET, retryDelaysMs: [] }, data: { state } });
    open.push(hook, moved);
    const registered = await call(m.url, `/1/webhooks?${TRELLO_AUTH}`, {
      method: "POST",
      json: { callbackURL: moved.url, idModel: BOARD },
    });
    expect(registered.status).toBe(200);
    const fetched = await fetchedDuring(async () => {
      await call(m.url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: LIST, name: "Watched twice" } });
      await m.close(); // waits for both deliveries
    });
    expect(offMachine(fetched)).toEqual([]);
    expect(fetched).toContain(moved.url);
    expect(m.counters()).toMatchObject({ webhookDeliveries: 0, webhookFailures: 2 });
    expect(hook.calls).toEqual([]);
  });
});
