/** The connection file store, and webhooks (receiver and the mock's signed deliveries). */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chmod, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { descriptor as marketoDescriptor } from "../../../generated/marketo/descriptor.js";
import { descriptor as trelloDescriptor } from "../../../generated/trello/descriptor.js";
import { triggers as trelloTriggers } from "../../../generated/trello/triggers.js";
import { descriptor as worldnewsDescriptor } from "../../../generated/worldnews/descriptor.js";
import { createServiceClient, FileConnectionStore, requireConnection } from "../../../runtime/index.js";
import { ensureWebhook, removeWebhook } from "../../../runtime/triggers/lifecycle.js";
import { createWebhookReceiver, signPayload } from "../../../runtime/triggers/receiver.js";
import { createTriggerRouter } from "../../../runtime/triggers/router.js";
import {
  BOARD,
  capture,
  closers,
  contentsnareMockCredentials,
  dir,
  expectNoLeaks,
  LIST,
  M,
  marketoFields,
  mockWithProxy,
  options,
  storeFiles,
  trelloCredentials,
} from "./harness.js";

export function storeAndWebhookFlows(): void {
  it("the connection file store: 0600, no temporary files left, errors name fields but never values", async () => {
    const storeDir = join(dir, "stores2");
    const file = join(storeDir, "connections.json");
    storeFiles.push(file);
    const store = new FileConnectionStore(file);
    await store.put(trelloDescriptor, { name: "work", fields: trelloCredentials });
    await store.put(marketoDescriptor, { name: "mkto", fields: marketoFields });
    await store.put(worldnewsDescriptor, { name: "news", fields: { apiKey: M.worldnewsApiKey.value } });
    await store.put(contentsnareDescriptor, {
      name: "snare",
      fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
    });
    await store.updateFields("contentsnare", "snare", { accessToken: M.contentsnareServerAccessToken.value });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(storeDir)).toEqual(["connections.json"]);
    // It is a credential store: the secrets are in it, in plain text, for its owner only.
    expect(await readFile(file, "utf8")).toContain(M.trelloToken.value);

    // A value that fails its pattern, a field under a wrong name, a missing connection.
    await capture.run("store bad pattern", () =>
      store.put(trelloDescriptor, {
        name: "bad",
        fields: { apiKey: M.trelloRevokedToken.value, token: M.trelloToken.value },
      }),
    );
    await capture.run("store wrong field name", () =>
      store.put(worldnewsDescriptor, {
        name: "bad",
        fields: { apikey: M.worldnewsApiKey.value } as Record<string, string>,
      }),
    );
    await capture.run("store missing connection", () => requireConnection(store, trelloDescriptor, "nope"));
    await capture.run("client bad pattern", () =>
      createServiceClient(trelloDescriptor, {
        connection: { name: "bad", fields: { apiKey: M.trelloRevokedToken.value, token: M.trelloToken.value } },
      }),
    );
    await capture.run("client not https", () =>
      createServiceClient(marketoDescriptor, {
        connection: {
          name: "m",
          fields: { ...marketoFields, endpoint: `http://u:${M.userinfoPassword.value}@123-ABC-456.mktorest.com` },
        },
      }),
    );
    // A store others can read is refused; a broken file is not quoted.
    await chmod(file, 0o644);
    await capture.run("store world-readable", () => store.list());
    await chmod(file, 0o600);
    const broken = join(storeDir, "broken.json");
    await writeFile(
      broken,
      `{"version":1,"connections":{"trello":{"work":{"fields":{"token":"${M.trelloToken.value}"`,
      { mode: 0o600 },
    );
    await capture.run("store broken json", () => new FileConnectionStore(broken).list());
    await rm(broken);
    expectNoLeaks();
  });

  it(
    "webhooks: forged, oversized and malformed deliveries to the receiver; the mock's " +
      "signed deliveries end to end",
    async () => {
      const callbackUrl = "https://hooks.example.com/trello";
      const delivered: unknown[] = [];
      const receiver = createWebhookReceiver({
        secret: M.trelloWebhookSecret.value,
        callbackUrl,
        delivery: trelloTriggers.delivery,
        onDelivery: (p) => void delivered.push(p),
        maxBodyBytes: 4096,
      });
      capture.add("receiver object", receiver);
      const body = JSON.stringify({
        action: {
          id: "6100000000000000000000a1",
          type: "createCard",
          data: { board: { id: BOARD }, card: { id: "c1" } },
        },
        model: { id: BOARD },
      });
      const sign = (secret: string, text: string) => signPayload(secret, trelloTriggers.delivery, text, callbackUrl);
      const header = trelloTriggers.delivery.signature.header.toLowerCase();
      const cases: Array<[string, Record<string, string>, string]> = [
        ["no signature", {}, body],
        ["forged signature", { [header]: "forged" }, body],
        ["signed with another secret", { [header]: sign(M.trelloRevokedToken.value, body) }, body],
        ["the secret as signature", { [header]: M.trelloWebhookSecret.value }, body],
        [
          "signed for another callback",
          {
            [header]: signPayload(M.trelloWebhookSecret.value, trelloTriggers.delivery, body, "https://evil.example/"),
          },
          body,
        ],
        ["oversized", { [header]: sign(M.trelloWebhookSecret.value, "x".repeat(5000)) }, "x".repeat(5000)],
        ["malformed JSON", { [header]: sign(M.trelloWebhookSecret.value, "{not json") }, "{not json"],
        ["valid", { [header]: sign(M.trelloWebhookSecret.value, body) }, body],
        ["duplicate", { [header]: sign(M.trelloWebhookSecret.value, body) }, body],
      ];
      for (const [name, headers, text] of cases) {
        await capture.run(`receiver ${name}`, () =>
          receiver.handle({ method: "POST", headers, body: Buffer.from(text) }),
        );
      }
      expect(receiver.stats).toMatchObject({ accepted: 1, duplicates: 1, rejectedSize: 1, rejectedMalformed: 1 });
      expect(receiver.stats.rejectedSignature).toBe(5);
      capture.add("receiver stats", receiver.stats);
      capture.add("receiver deliveries", delivered);
      await capture.run("receiver without secret", () =>
        createWebhookReceiver({
          secret: "",
          callbackUrl,
          delivery: trelloTriggers.delivery,
          onDelivery: () => undefined,
        }),
      );
      await capture.run("receiver bad callback", () =>
        createWebhookReceiver({
          secret: M.trelloWebhookSecret.value,
          callbackUrl: `ftp://${M.trelloWebhookSecret.value}`,
          delivery: trelloTriggers.delivery,
          onDelivery: () => undefined,
        }),
      );

      // End to end: the Trello mock (application secret = marker) registers a webhook through the
      // token's own /1/tokens/{token}/webhooks route, then signs deliveries the receiver verifies.
      const { url } = await mockWithProxy("trello", {
        auth: { credentials: trelloCredentials },
        webhooks: { secret: M.trelloWebhookSecret.value },
      });
      const events: unknown[] = [];
      const newCards = { trigger: "trello_new_card", connection: "work", scope: { board: [BOARD] } };
      const router = createTriggerRouter(trelloTriggers, [newCards]);
      let hook!: ReturnType<typeof createWebhookReceiver>;
      const server: Server = createServer((req, res) => hook.nodeHandler(req, res));
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      closers.push(() => new Promise<void>((r) => server.close(() => r())));
      const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trello/hook`;
      hook = createWebhookReceiver({
        secret: M.trelloWebhookSecret.value,
        callbackUrl: hookUrl,
        delivery: trelloTriggers.delivery,
        onDelivery: (p) => void events.push(...router.route(p)),
      });
      const client = createServiceClient(
        trelloDescriptor,
        options("trello webhook e2e", trelloDescriptor, trelloCredentials, url),
      );
      const call = (id: string, init: object) => client.call(id, init);
      const registration = await capture.run("ensureWebhook", () =>
        ensureWebhook(trelloTriggers.delivery, call, {
          modelId: BOARD,
          callbackUrl: hookUrl,
          connectionFields: trelloCredentials,
        }),
      );
      expect(registration.ok).toBe(true);
      await capture.run("ensureWebhook again", () =>
        ensureWebhook(trelloTriggers.delivery, call, {
          modelId: BOARD,
          callbackUrl: hookUrl,
          connectionFields: trelloCredentials,
        }),
      );
      await capture.run("ensureWebhook without token", () =>
        ensureWebhook(trelloTriggers.delivery, call, {
          modelId: BOARD,
          callbackUrl: hookUrl,
          connectionFields: { apiKey: M.trelloApiKey.value },
        }),
      );
      await client.call("createCard", { body: { idList: LIST, name: "Hooked" } });
      for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(events.length).toBeGreaterThan(0);
      capture.add("trigger events", events);
      capture.add("receiver e2e stats", hook.stats);
      if (registration.ok)
        await capture.run("removeWebhook", () => removeWebhook(trelloTriggers.delivery, call, registration.value.id));
      await capture.run("removeWebhook gone", () =>
        removeWebhook(trelloTriggers.delivery, call, "6200000000000000000000ff"),
      );
      expectNoLeaks();
    },
  );
}
