/**
 * A second service's triggers with no code of their own: test/triggers/fixtures/helpdesk.yaml
 * declares webhooks of another shape than Trello's (hex HMAC-SHA256 of the body alone in
 * X-Desk-Signature, always JSON, an {event, queue, data} envelope, references named queue, ticket
 * and agent with ids under `key`, `number` and `handle`, registrations removed by `hookId`) and a
 * polling trigger on a per-queue feed. It is generated into a temporary folder with `stepforge
 * generate --spec … --out …` and run end to end: registration through its behavioural mock, the
 * mock's signed deliveries and one signed here with node:crypto go through the receiver and the
 * router into events with refs, and the poller lists the feed through the generated client.
 */
import { createHmac } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { filesBelow } from "../../generator/files.js";
import { packageRoot } from "../../generator/package-root.js";
import { loadMock, startMock, type RunningMock } from "../../runtime/mock/index.js";
import { MemoryStateStore } from "../../runtime/state/memory.js";
import { ensureWebhook, removeWebhook, type CallFn } from "../../runtime/triggers/lifecycle.js";
import type { FeedPollSpec, TriggersExtension } from "../../runtime/triggers/extension.js";
import { pollFeed } from "../../runtime/triggers/pollers.js";
import { createWebhookReceiver, type WebhookReceiver } from "../../runtime/triggers/receiver.js";
import { createTriggerRouter, type TriggerEvent } from "../../runtime/triggers/router.js";
import { createWebhookServer } from "../../runtime/triggers/server.js";
import { runCli } from "../helpers/cli.js";
import { freePort } from "../helpers/ports.js";

const root = packageRoot();
const SPEC = join(import.meta.dirname, "fixtures", "helpdesk.yaml");
// Inside the package (test/.tmp is ignored), so the generated code imports this runtime relatively.
const out = join(root, "test", ".tmp", `helpdesk-${process.pid}`);
const SECRET = "helpdesk-app-secret-31c7";
const FIELDS = { apiToken: "hd-mock-token-0123456789" };

type Client = { core: { call: (operationId: string, init?: unknown) => Promise<unknown> } };
let triggers: TriggersExtension;
let client: Client;
let mock: RunningMock;
let receiver: WebhookReceiver;
let callbackUrl: string;
let closeServer: () => Promise<void>;
const events: TriggerEvent[] = [];

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  const generated = await runCli("generate", "--spec", SPEC, "--out", out, "--no-cache");
  expect(generated.code, generated.stderr).toBe(0);
  triggers = ((await import(join(out, "helpdesk", "triggers.ts"))) as { triggers: TriggersExtension }).triggers;
  const { HelpdeskClient } = (await import(join(out, "helpdesk", "client.ts"))) as {
    HelpdeskClient: new (o: unknown) => Client;
  };
  await loadMock(join(out, "helpdesk", "mock.ts"));
  mock = await startMock("helpdesk", { webhooks: { secret: SECRET } });
  client = new HelpdeskClient({ connection: { name: "desk", fields: FIELDS }, baseUrl: mock.url });

  const router = createTriggerRouter(triggers, [
    { trigger: "helpdesk_ticket_created", connection: "desk", scope: { queue: ["SUP"] } },
    {
      trigger: "helpdesk_ticket_solved",
      connection: "desk",
      scope: { queue: ["SUP"] },
      options: { agents: ["agent-ada"] },
    },
  ]);
  const port = await freePort();
  callbackUrl = `http://127.0.0.1:${port}/helpdesk/hook`;
  receiver = createWebhookReceiver({
    secret: SECRET,
    callbackUrl,
    delivery: triggers.delivery,
    onDelivery: (p) => void events.push(...router.route(p)),
  });
  const server = createWebhookServer(receiver);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  closeServer = () => new Promise<void>((r) => server.close(() => r()));
}, 120_000);

afterAll(async () => {
  await closeServer?.();
  await mock?.close();
  rmSync(out, { recursive: true, force: true });
});

const call: CallFn = (operationId, init) => client.core.call(operationId, init);

/** Posts a body signed as the helpdesk signs (computed here, not by the runtime) with the given headers. */
async function post(body: string, headers: Record<string, string> = {}) {
  const signature = createHmac("sha256", SECRET).update(body).digest("hex");
  const res = await fetch(callbackUrl, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-desk-signature": signature, ...headers },
  });
  return { status: res.status, text: await res.text() };
}

describe("a second service's webhooks, from its spec alone", () => {
  it("registers per queue through the mock, and its signed deliveries become events with the spec's refs", async () => {
    const sup = await ensureWebhook(triggers.delivery, call, { modelId: "SUP", callbackUrl, connectionFields: FIELDS });
    const ops = await ensureWebhook(triggers.delivery, call, { modelId: "OPS", callbackUrl, connectionFields: FIELDS });
    expect(sup.id).toMatch(/^wh_[a-z0-9]{10}$/);
    expect(
      await ensureWebhook(triggers.delivery, call, { modelId: "SUP", callbackUrl, connectionFields: FIELDS }),
    ).toEqual({ id: sup.id, reused: true });

    const ticket = (await call("createTicket", {
      params: { path: { queueKey: "SUP" } },
      body: { subject: "Printer on fire" },
    })) as { number: number };
    await call("createTicket", { params: { path: { queueKey: "OPS" } }, body: { subject: "Disk full" } });
    await call("updateTicket", {
      params: { path: { queueKey: "SUP", number: String(ticket.number) } },
      body: { status: "solved" },
    });
    await until(() => receiver.stats.accepted >= 3, `three deliveries (stats ${JSON.stringify(receiver.stats)})`);
    await until(() => events.length >= 2, "two events");

    // The OPS delivery was verified and accepted, but the triggers watch SUP only.
    expect(events.map((e) => e.trigger)).toEqual(["helpdesk_ticket_created", "helpdesk_ticket_solved"]);
    const [created, solved] = events;
    expect(created).toMatchObject({
      connection: "desk",
      type: "ticket.created",
      refs: {
        queue: { id: "SUP", name: "Support" },
        ticket: { id: String(ticket.number), name: "Printer on fire" },
        agent: { id: "agent-ada", name: "Ada (agent)" },
      },
      raw: { ticket: { number: ticket.number, subject: "Printer on fire", status: "open" } },
    });
    expect(created!.eventId).toMatch(/^[0-9a-f]{24}$/);
    expect(Date.parse(created!.time)).not.toBeNaN();
    expect(solved).toMatchObject({
      type: "ticket.updated",
      refs: { ticket: { id: String(ticket.number) } },
      raw: { ticket: { status: "solved" } },
    });
    expect(receiver.stats).toMatchObject({ accepted: 3, rejectedSignature: 0, rejectedEarly: 0 });

    // Removed by the spec's own parameter name (DELETE /hooks/{hookId}).
    expect(await removeWebhook(triggers.delivery, call, sup.id)).toEqual({ removed: true });
    expect(await removeWebhook(triggers.delivery, call, sup.id)).toEqual({ removed: false });
    expect(await removeWebhook(triggers.delivery, call, ops.id)).toEqual({ removed: true });
  });

  it("a delivery signed here is verified; another media type or a Trello-style signature is refused", async () => {
    const before = events.length;
    const body = JSON.stringify({
      event: { uuid: "evt-0001", name: "ticket.created", occurred_at: "2026-11-21T09:00:00.000Z" },
      queue: { key: "SUP", title: "Support" },
      data: { ticket: { number: 7, subject: "Hand-signed" }, agent: { handle: "grace", display: "Grace" } },
    });
    expect(await post(body)).toEqual({ status: 200, text: "ok" });
    expect(events.slice(before)).toEqual([
      {
        trigger: "helpdesk_ticket_created",
        connection: "desk",
        eventId: "evt-0001",
        type: "ticket.created",
        time: "2026-11-21T09:00:00.000Z",
        refs: {
          queue: { id: "SUP", name: "Support" },
          ticket: { id: "7", name: "Hand-signed" },
          agent: { id: "grace", name: "Grace" },
        },
        raw: { ticket: { number: 7, subject: "Hand-signed" }, agent: { handle: "grace", display: "Grace" } },
      },
    ]);
    expect((await post(body)).text).toBe("duplicate ignored");
    expect((await post(body.replace("evt-0001", "evt-0002"), { "content-type": "text/plain" })).status).toBe(415);
    const trelloStyle = createHmac("sha1", SECRET).update(body).digest("base64");
    expect((await post(body.replace("evt-0001", "evt-0003"), { "x-desk-signature": trelloStyle })).status).toBe(401);
    expect(receiver.stats).toMatchObject({ rejectedMediaType: 1, rejectedEarly: 2 });
    expect(events).toHaveLength(before + 1);
  });
});

describe("a second service's polling trigger, from its spec alone", () => {
  it("polls each queue's feed through the generated client; events carry the queue, ticket and agent", async () => {
    const spec = triggers.triggers.find((t) => t.name === "helpdesk_new_comment") as FeedPollSpec;
    const list = (operationId: string, path: Record<string, string>) =>
      client.core.call(operationId, { params: { path } });
    const store = new MemoryStateStore();
    const config = { trigger: spec.name, connection: "desk", scope: { queue: ["SUP", "OPS"] } };
    const sup = (await call("createTicket", {
      params: { path: { queueKey: "SUP" } },
      body: { subject: "VPN down" },
    })) as { number: number };
    const ops = (await call("createTicket", {
      params: { path: { queueKey: "OPS" } },
      body: { subject: "Backup failed" },
    })) as { number: number };
    const comment = (queueKey: string, number: number, text: string) =>
      call("addComment", { params: { path: { queueKey, number: String(number) } }, body: { body: text } }) as Promise<{
        commentId: string;
        postedAt: string;
      }>;
    await comment("SUP", sup.number, "Before enabling");
    // The first poll only records where each queue's feed stands.
    expect(await pollFeed(triggers, spec, config, list, store)).toEqual([]);
    const first = await comment("SUP", sup.number, "Restarted the gateway");
    const second = await comment("OPS", ops.number, "Rerunning tonight");
    const fired = await pollFeed(triggers, spec, config, list, store);
    expect(fired.map((e) => [e.eventId, e.type, e.time])).toEqual([
      [first.commentId, "comment", first.postedAt],
      [second.commentId, "comment", second.postedAt],
    ]);
    expect(fired.map((e) => e.refs)).toEqual([
      {
        queue: { id: "SUP" },
        ticket: { id: String(sup.number), name: "VPN down" },
        agent: { id: "agent-ada", name: "Ada (agent)" },
      },
      {
        queue: { id: "OPS" },
        ticket: { id: String(ops.number), name: "Backup failed" },
        agent: { id: "agent-ada", name: "Ada (agent)" },
      },
    ]);
    expect(await pollFeed(triggers, spec, config, list, store)).toEqual([]);
  });
});

describe("the generic code names no service", () => {
  it("runtime/, generator/ and cli/ never mention the helpdesk; the trigger code names no Trello noun", () => {
    const sources = ["runtime", "generator", "cli"].flatMap((dir) =>
      filesBelow(join(root, dir)).filter((f) => f.endsWith(".ts")),
    );
    expect(sources.filter((f) => /helpdesk|x-desk/i.test(readFileSync(f, "utf8")))).toEqual([]);
    const triggerCode = [...filesBelow(join(root, "runtime", "triggers")), join(root, "cli", "commands", "webhook.ts")];
    const nouns = triggerCode.flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/\b(trello|boards?|cards?|idList|idModel)\b/gi)].map((m) => `${f}: ${m[0]}`),
    );
    expect(nouns).toEqual([]);
  });
});

describe("the check stage names the trigger field and the fix", () => {
  it.each([
    [
      "a scope nobody declared",
      (t: any) => (t.triggers[0].scope = "queues"),
      'SF154 .*scope "queues" is not declared under scopes \\(declared: queue\\)',
    ],
    [
      "a scope reference the deliveries lack",
      (t: any) => (t.scopes.queue.ref = "team"),
      'SF154 .*scope "queue" names reference "team", which delivery.refs does not declare',
    ],
    [
      "a placeholder that is not the trigger's scope",
      (t: any) => (t.triggers[2].pathParams.queueKey = "{team}"),
      'SF155 .*"\\{team\\}" is not this trigger\'s scope; write \\{queue\\}',
    ],
    [
      "a path parameter left without a value",
      (t: any) => (t.triggers[2].pathParams = {}),
      'SF155 .*path parameter "queueKey" of listComments gets no value',
    ],
    [
      "a removal parameter the operation does not have",
      (t: any) => (t.delivery.register.removeParam = "id"),
      'SF155 .*"id" is not a path parameter of deleteHook \\(/hooks/\\{hookId\\}\\); its path parameters: hookId',
    ],
  ])("%s", async (_what, change, message) => {
    const doc = parse(readFileSync(SPEC, "utf8"));
    change(doc["x-stepforge-triggers"]);
    const file = join(root, "test", ".tmp", `helpdesk-broken-${process.pid}.yaml`);
    writeFileSync(file, stringify(doc));
    try {
      const r = await runCli(
        "generate",
        "--spec",
        file,
        "--out",
        join(root, "test", ".tmp", `helpdesk-broken-${process.pid}`),
        "--no-cache",
      );
      expect(r.code).toBe(1);
      expect(`${r.stdout}${r.stderr}`).toMatch(new RegExp(message));
    } finally {
      rmSync(file, { force: true });
    }
  });
});
