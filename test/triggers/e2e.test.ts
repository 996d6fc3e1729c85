/**
 * Triggers end to end against the behavioural Trello mock: the lifecycle registers a webhook
 * through the API (the mock probes our receiver with HEAD), changes made through the typed client
 * arrive as signed deliveries, the receiver verifies them and the router turns them into events.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TrelloClient } from "../../generated/trello/client.js";
import { triggers } from "../../generated/trello/triggers.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { ensureWebhook, removeWebhook, type CallFn } from "../../runtime/triggers/lifecycle.js";
import { MemoryStateStore } from "../../runtime/state/memory.js";
import { pollDueDates, pollFeed } from "../../runtime/triggers/pollers.js";
import { createWebhookReceiver } from "../../runtime/triggers/receiver.js";
import { createTriggerRouter, type TriggerEvent } from "../../runtime/triggers/router.js";
import type { DueDatePollSpec, FeedPollSpec } from "../../runtime/triggers/extension.js";
import { BOARD, LIST, TRELLO } from "../mock/helpers.js";

const SECRET = "trello-app-secret-e2e-4c1d";
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  open.push(() => new Promise<void>((done) => server.close(() => done())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/trello/hook`;
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe("Trello triggers against the behavioural mock", () => {
  it(
    "registers, receives signed deliveries for every instant trigger it is configured " + "for, and unregisters",
    async () => {
      const mock: RunningMock = await startMock("trello", { webhooks: { secret: SECRET } });
      open.push(() => mock.close());
      const trello = new TrelloClient({ connection: { name: "work", fields: TRELLO }, baseUrl: mock.url });
      const call: CallFn = (id, init) => trello.core.call(id, init);

      const events: TriggerEvent[] = [];
      const names = [
        "trello_new_card",
        "trello_card_moved",
        "trello_card_archived",
        "trello_new_comment_added_to_card",
        "trello_new_label_added_to_card",
        "trello_new_checklist",
        "trello_card_updated",
      ];
      const configs = names.map((trigger) => ({ trigger, connection: "work", scope: { board: [BOARD] } }));
      const router = createTriggerRouter(triggers, configs);
      let callbackUrl = "";
      const receiver = () =>
        createWebhookReceiver({
          secret: SECRET,
          callbackUrl,
          delivery: triggers.delivery,
          onDelivery: (payload) => void events.push(...router.route(payload)),
        });
      let handler: ReturnType<typeof receiver>["nodeHandler"] = () => undefined;
      const server = createServer((req, res) => handler(req, res));
      callbackUrl = await listen(server);
      const hook = receiver();
      handler = hook.nodeHandler;

      const first = await ensureWebhook(triggers.delivery, call, {
        modelId: BOARD,
        callbackUrl,
        connectionFields: TRELLO,
        description: "stepforge e2e",
      });
      expect(first.reused).toBe(false);
      expect(hook.stats.probes).toBe(1);
      // Enabling again reuses the registration instead of tripping Trello's duplicate refusal.
      expect(
        await ensureWebhook(triggers.delivery, call, { modelId: BOARD, callbackUrl, connectionFields: TRELLO }),
      ).toEqual({ id: first.id, reused: true });

      const lists = await trello.getBoardLists({ params: { path: { id: BOARD } } });
      const other = lists.find((l) => l.id !== LIST)!;
      const card = await trello.createCard({ body: { idList: LIST, name: "Ship the release" } });
      await trello.updateCard({ params: { path: { id: card.id } }, body: { idList: other.id } });
      await trello.addCommentToCard({ params: { path: { id: card.id } }, body: { text: "Shipped?" } });
      await trello.createChecklist({ body: { idCard: card.id, name: "Release steps" } });
      await trello.updateCard({ params: { path: { id: card.id } }, body: { closed: true } });

      await until(
        () => events.some((e) => e.trigger === "trello_card_archived"),
        `the archive event (got ${JSON.stringify(events.map((e) => [e.trigger, e.type]))}, ` +
          `stats ${JSON.stringify(hook.stats)})`,
      );
      const fired = events.map((e) => e.trigger);
      expect(fired.filter((t) => t === "trello_new_card")).toHaveLength(1);
      expect(fired.filter((t) => t === "trello_card_moved")).toHaveLength(1);
      expect(fired).toContain("trello_new_comment_added_to_card");
      expect(fired).toContain("trello_new_checklist");
      expect(fired.filter((t) => t === "trello_card_updated")).toHaveLength(2); // the move and the archive
      const moved = events.find((e) => e.trigger === "trello_card_moved")!;
      expect(moved).toMatchObject({
        connection: "work",
        refs: { board: { id: BOARD }, card: { id: card.id }, list: { id: other.id } },
      });
      expect(hook.stats.rejectedSignature).toBe(0);

      expect(await removeWebhook(triggers.delivery, call, first.id)).toEqual({ removed: true });
      // Disabling again tolerates the registration being gone.
      expect(await removeWebhook(triggers.delivery, call, first.id)).toEqual({ removed: false });
      const before = events.length;
      await trello.createCard({ body: { idList: LIST, name: "After unregistering" } });
      await new Promise((r) => setTimeout(r, 100));
      expect(events.length).toBe(before);
    },
  );

  it("a receiver with another secret rejects the mock's deliveries (forgery check on the wire)", async () => {
    const mock = await startMock("trello", { webhooks: { secret: SECRET } });
    open.push(() => mock.close());
    const trello = new TrelloClient({ connection: { name: "work", fields: TRELLO }, baseUrl: mock.url });
    let callbackUrl = "";
    let hook: ReturnType<typeof createWebhookReceiver> | undefined;
    const server = createServer((req, res) => hook!.nodeHandler(req, res));
    callbackUrl = await listen(server);
    const delivered: unknown[] = [];
    hook = createWebhookReceiver({
      secret: "not-the-app-secret",
      callbackUrl,
      delivery: triggers.delivery,
      onDelivery: (p) => void delivered.push(p),
    });
    await ensureWebhook(triggers.delivery, (id, init) => trello.core.call(id, init), {
      modelId: BOARD,
      callbackUrl,
      connectionFields: TRELLO,
    });
    await trello.createCard({ body: { idList: LIST, name: "Forged?" } });
    await until(() => hook!.stats.rejectedSignature > 0, "a rejected delivery");
    expect(delivered).toEqual([]);
  });

  it("every instant trigger fires from the mock's own signed deliveries", async () => {
    const mock = await startMock("trello", { webhooks: { secret: SECRET } });
    open.push(() => mock.close());
    const trello = new TrelloClient({ connection: { name: "work", fields: TRELLO }, baseUrl: mock.url });
    const call: CallFn = (id, init) => trello.core.call(id, init);
    const instant = triggers.triggers.filter((t) => t.kind === "webhook");
    const me = await trello.getMember({ params: { path: { id: "me" } } });
    const scope = (t: (typeof instant)[number]) => (t.scope === "member" ? {} : { board: [BOARD] });
    const configs = instant.map((t) => ({ trigger: t.name, connection: "work", scope: scope(t) }));
    const router = createTriggerRouter(triggers, configs);
    const events: TriggerEvent[] = [];
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const callbackUrl = await listen(createServer((req, res) => receiver!.nodeHandler(req, res)));
    receiver = createWebhookReceiver({
      secret: SECRET,
      callbackUrl,
      delivery: triggers.delivery,
      onDelivery: (p) => void events.push(...router.route(p)),
    });
    // Board triggers watch the board; New Board watches the member, as Trello requires.
    await ensureWebhook(triggers.delivery, call, { modelId: BOARD, callbackUrl, connectionFields: TRELLO });
    await ensureWebhook(triggers.delivery, call, { modelId: me.id, callbackUrl, connectionFields: TRELLO });

    const lists = await trello.getBoardLists({ params: { path: { id: BOARD } } });
    const card = await trello.createCard({ body: { idList: LIST, name: "Everything" } });
    await trello.updateCard({
      params: { path: { id: card.id } },
      body: { idList: lists.find((l) => l.id !== LIST)!.id },
    });
    await trello.addCommentToCard({ params: { path: { id: card.id } }, body: { text: "hi" } });
    await trello.addMemberToCard({ params: { path: { id: card.id } }, body: { value: me.id } });
    const label = await trello.createLabel({ body: { idBoard: BOARD, name: "urgent", color: "red" } });
    await trello.addLabelToCard({ params: { path: { id: card.id } }, body: { value: label.id } });
    await trello.createChecklist({ body: { idCard: card.id, name: "Steps" } });
    await trello.addAttachmentToCard({
      params: { path: { id: card.id } },
      body: { url: "https://example.com/spec.pdf", name: "spec.pdf" },
    });
    await trello.createBoard({ body: { name: "Launch" } });
    await trello.updateCard({ params: { path: { id: card.id } }, body: { closed: true } });

    await until(
      () => instant.every((t) => events.some((e) => e.trigger === t.name)),
      `every instant trigger (missing ${instant
        .filter((t) => !events.some((e) => e.trigger === t.name))
        .map((t) => t.name)
        .join(", ")})`,
    );
    expect(receiver.stats.rejectedSignature).toBe(0);
    // Each delivery reaches a trigger once: no event id repeats within a trigger.
    for (const t of instant) {
      const ids = events.filter((e) => e.trigger === t.name).map((e) => e.eventId);
      expect(new Set(ids).size, t.name).toBe(ids.length);
    }
  });

  it("New Notification polls the account's notifications through the client without replaying them", async () => {
    const mock = await startMock("trello");
    open.push(() => mock.close());
    const trello = new TrelloClient({ connection: { name: "work", fields: TRELLO }, baseUrl: mock.url });
    const spec = triggers.triggers.find((t) => t.name === "trello_new_notification") as FeedPollSpec;
    const list = (operationId: string, path: Record<string, string>) =>
      trello.core.call(operationId, { params: { path } });
    const store = new MemoryStateStore();
    const config = { trigger: spec.name, connection: "work", options: {} };
    expect(await pollFeed(triggers, spec, config, list, store)).toEqual([]);
    const [cursor] = await store.keys("trigger:");
    expect((await store.get<{ lastId?: string }>(cursor!))?.value.lastId).toMatch(/^[0-9a-f]{24}$/);
    expect(await pollFeed(triggers, spec, config, list, store)).toEqual([]);
  });

  it("Card Due Date Reminder polls the board's cards through the client", async () => {
    const mock = await startMock("trello");
    open.push(() => mock.close());
    const trello = new TrelloClient({ connection: { name: "work", fields: TRELLO }, baseUrl: mock.url });
    const spec = triggers.triggers.find((t) => t.name === "trello_card_due_date_reminder") as DueDatePollSpec;
    const now = Date.now();
    const soon = await trello.createCard({
      body: { idList: LIST, name: "Due soon", due: new Date(now + 30 * 60_000).toISOString() },
    });
    await trello.createCard({
      body: { idList: LIST, name: "Due later", due: new Date(now + 5 * 3_600_000).toISOString() },
    });
    const list = (operationId: string, path: Record<string, string>) =>
      trello.core.call(operationId, { params: { path } });
    const scope = { board: [BOARD] };
    const config = { trigger: spec.name, connection: "work", scope, options: { minutesBefore: 60 } };
    const store = new MemoryStateStore();
    const fired = await pollDueDates(triggers, spec, config, list, store, { now: now });
    expect(fired.map((e) => e.refs.card?.id)).toEqual([soon.id]);
    expect(await pollDueDates(triggers, spec, config, list, store, { now: now + 60_000 })).toEqual([]);
  });
});
