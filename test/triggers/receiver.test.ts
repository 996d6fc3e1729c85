import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import { createWebhookReceiver, ReceiverConfigError, signPayload } from "../../runtime/triggers/receiver.js";
import { delivery } from "./fixtures.js";

const SECRET = "app-secret-marker-7f3a9c";
const CALLBACK = "https://hooks.example.com/trello?board=roadmap";
const { delivery: spec } = triggers;

function receiver(received: unknown[] = [], maxBodyBytes?: number) {
  return createWebhookReceiver({
    secret: SECRET,
    callbackUrl: CALLBACK,
    delivery: spec,
    onDelivery: (p) => void received.push(p),
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
  });
}

function post(body: string, signature?: string) {
  return {
    method: "POST",
    headers: signature === undefined ? {} : { "x-trello-webhook": signature },
    body: Buffer.from(body),
  };
}

const signed = (body: string) => post(body, signPayload(SECRET, spec, body, CALLBACK));

describe("webhook receiver", () => {
  it("refuses to start without a secret: verification is never skipped", () => {
    expect(() =>
      createWebhookReceiver({ secret: "", callbackUrl: CALLBACK, delivery: spec, onDelivery: () => undefined }),
    ).toThrow(ReceiverConfigError);
    expect(() =>
      createWebhookReceiver({
        secret: undefined as never,
        callbackUrl: CALLBACK,
        delivery: spec,
        onDelivery: () => undefined,
      }),
    ).toThrow(/secret is required/);
  });

  it("answers Trello's HEAD probe with 200", async () => {
    expect((await receiver().handle({ method: "HEAD", headers: {}, body: Buffer.alloc(0) })).status).toBe(200);
  });

  it("accepts a delivery signed as Trello signs it (HMAC-SHA1 of body + callback URL)", async () => {
    const got: unknown[] = [];
    const body = JSON.stringify(delivery("createCard"));
    const r = receiver(got);
    expect(await r.handle(signed(body))).toEqual({ status: 200, body: "ok" });
    expect(got).toHaveLength(1);
  });

  it("rejects missing, wrong and mis-targeted signatures with 401 before parsing or delivering", async () => {
    const got: unknown[] = [];
    const r = receiver(got);
    const body = JSON.stringify(delivery("createCard"));
    expect((await r.handle(post(body))).status).toBe(401);
    expect((await r.handle(post(body, "not-a-signature"))).status).toBe(401);
    // Signed with the wrong secret, or for another callback URL, or over another body.
    expect((await r.handle(post(body, signPayload("other-secret", spec, body, CALLBACK)))).status).toBe(401);
    expect(
      (await r.handle(post(body, signPayload(SECRET, spec, body, "https://hooks.example.com/trello")))).status,
    ).toBe(401);
    expect(
      (await r.handle(post(body.replace("createCard", "deleteCard"), signPayload(SECRET, spec, body, CALLBACK))))
        .status,
    ).toBe(401);
    // A forged body that is not even JSON is still a signature failure, not a parse failure.
    expect((await r.handle(post("{{{", "AAAA"))).status).toBe(401);
    expect(got).toHaveLength(0);
    expect(r.stats.rejectedSignature).toBe(6);
  });

  it("answers malformed JSON (correctly signed) with 400 and delivers nothing", async () => {
    const got: unknown[] = [];
    const r = receiver(got);
    expect((await r.handle(signed('{"action": {"id": '))).status).toBe(400);
    expect((await r.handle(signed("[1,2]"))).status).toBe(400);
    expect((await r.handle(signed('{"action": {"type": "createCard"}}'))).body).toContain("missing action.id");
    expect(got).toHaveLength(0);
  });

  it("ignores a replayed delivery (same action id)", async () => {
    const got: unknown[] = [];
    const r = receiver(got);
    const body = JSON.stringify(delivery("updateCard"));
    expect((await r.handle(signed(body))).body).toBe("ok");
    expect((await r.handle(signed(body))).body).toBe("duplicate ignored");
    expect(got).toHaveLength(1);
    expect(r.stats.duplicates).toBe(1);
  });

  it("refuses oversized bodies with 413", async () => {
    const r = receiver([], 1024);
    const big = JSON.stringify({ ...delivery("createCard"), padding: "x".repeat(2000) });
    expect((await r.handle(signed(big))).status).toBe(413);
  });

  it("a failing consumer answers 500 so the service retries, and the retry is processed", async () => {
    let fail = true;
    const got: unknown[] = [];
    const r = createWebhookReceiver({
      secret: SECRET,
      callbackUrl: CALLBACK,
      delivery: spec,
      onDelivery: (p) => {
        if (fail) throw new Error("db down");
        got.push(p);
      },
    });
    const body = JSON.stringify(delivery("createCard"));
    expect((await r.handle(signed(body))).status).toBe(500);
    fail = false;
    expect((await r.handle(signed(body))).status).toBe(200);
    expect(got).toHaveLength(1);
  });

  describe("over HTTP", () => {
    let server: Server | undefined;
    afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

    it("keeps serving good deliveries through a flood of forged, oversized and malformed requests", async () => {
      const got: unknown[] = [];
      const r = receiver(got, 4096);
      server = createServer(r.nodeHandler);
      await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const bad: Promise<number>[] = [];
      for (let i = 0; i < 300; i++) {
        const kind = i % 3;
        const body =
          kind === 0 ? JSON.stringify(delivery("createCard")) : kind === 1 ? "x".repeat(10_000) : "{not json";
        const headers: Record<string, string> =
          kind === 2
            ? { "x-trello-webhook": signPayload(SECRET, spec, body, CALLBACK) }
            : { "x-trello-webhook": "forged" };
        bad.push(
          fetch(url, { method: "POST", body, headers }).then(
            (res) => res.status,
            () => -1,
          ),
        );
      }
      const statuses = await Promise.all(bad);
      expect(new Set(statuses.filter((s) => s !== -1))).toEqual(new Set([401, 413, 400]));
      const good = JSON.stringify(delivery("commentCard", { text: "still alive" }));
      const res = await fetch(url, {
        method: "POST",
        body: good,
        headers: { "x-trello-webhook": signPayload(SECRET, spec, good, CALLBACK) },
      });
      expect(res.status).toBe(200);
      expect(got).toHaveLength(1);
      expect(r.stats.rejectedSignature).toBe(100);
    });
  });
});
