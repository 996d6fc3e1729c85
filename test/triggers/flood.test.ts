/**
 * The receiver keeps serving signed deliveries while senders that are not the service flood it
 * from several addresses on 127.0.0.0/8 (127.0.0.2, 127.0.0.3 … are loopback on Linux), reconnecting
 * whenever they are cut. The receiver runs in this process with its default caps, so its counters
 * can be read; the flood runs in a child process (test/triggers/slow-clients.mjs); the signed
 * deliveries come from 127.0.0.1. Outcomes only: status codes and the receiver's counters.
 *
 * Before per-address caps, eviction and the minimum rate, each flood below locked every delivery
 * out (503) until its connections timed out, and the reconnecting senders kept it going.
 */
import { request } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import {
  createWebhookReceiver,
  RECEIVER_DEFAULTS,
  signPayload,
  type ReceiverOptions,
  type WebhookReceiver,
} from "../../runtime/triggers/receiver.js";
import { createWebhookServer } from "../../runtime/triggers/server.js";
import { delivery } from "./fixtures.js";
import { slowClients } from "./slow-senders.js";

const SECRET = "flood-secret-8e1f";
const CALLBACK = "https://hooks.example.com/trello";
const KB = 1024;
/** Addresses the flood comes from: 127.0.0.2 … */
const senders = (n: number) => Array.from({ length: n }, (_, i) => `127.0.0.${i + 2}`);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(options: Partial<ReceiverOptions> = {}) {
  const delivered: unknown[] = [];
  const receiver = createWebhookReceiver({
    secret: SECRET,
    callbackUrl: CALLBACK,
    delivery: triggers.delivery,
    onDelivery: (p) => void delivered.push(p),
    ...options,
  });
  const server = createWebhookServer(receiver);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return { receiver, delivered, port: (server.address() as AddressInfo).port };
}

/** One signed delivery on its own connection from 127.0.0.1; its status (a reset or refusal fails the test). */
function deliver(port: number): Promise<number> {
  const body = JSON.stringify(delivery("commentCard", { text: "through the flood" }));
  const headers = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-trello-webhook": signPayload(SECRET, triggers.delivery, body, CALLBACK),
  };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path: "/", localAddress: "127.0.0.1", agent: false, headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Signed deliveries, one after another (at least five), until `enough` says the flood has gone
 * through what the test is about; waits for `ready` before each one.
 */
async function deliverThroughout(port: number, enough: () => boolean, ready = async () => {}) {
  const statuses: number[] = [];
  while (!enough() || statuses.length < 5) {
    await ready();
    statuses.push(await deliver(port));
    await pause(20);
  }
  return statuses;
}

const figures = (r: WebhookReceiver) => `receiver ${JSON.stringify(r.stats)}, load ${JSON.stringify(r.load())}`;

/** Every cap held: never more in memory or open than the receiver's settings allow. */
function expectBounded(receiver: WebhookReceiver) {
  const load = receiver.load();
  expect(load.peakBufferedBytes).toBeLessThanOrEqual(RECEIVER_DEFAULTS.maxBufferedBytes);
  expect(load.peakAddressBytes).toBeLessThanOrEqual(RECEIVER_DEFAULTS.maxBufferedBytesPerAddress);
  expect(load.peakConnections).toBeLessThanOrEqual(RECEIVER_DEFAULTS.maxConnections);
  expect(load.peakAddressConnections).toBeLessThanOrEqual(RECEIVER_DEFAULTS.maxConnectionsPerAddress);
}

describe("signed deliveries get 200 throughout a slow-sender flood (default caps)", () => {
  it("64 bodies of 256 KB less a byte from one address, reconnecting, no longer fill the 16 MiB buffer", async () => {
    const { receiver, port, delivered } = await serve();
    const flood = slowClients(port, 64, 256 * KB, "", { addresses: senders(1), reconnect: 100 });
    await flood.ready;
    // Until the bodies it managed to hold were dropped for their rate twice over (and refilled in between).
    const statuses = await deliverThroughout(port, () => receiver.stats.slowBodies >= 16 && flood.rounds.length >= 2);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(delivered).toHaveLength(statuses.length);
    // The flood was refused at its address's cap and its stalled bodies dropped for their rate.
    expect(receiver.stats.rejectedPerAddress).toBeGreaterThan(0);
    expect(receiver.stats.slowBodies).toBeGreaterThan(0);
    const answered = flood.rounds.at(-1)!.statuses;
    expect(answered["503"]).toBeGreaterThan(0);
    expect(answered["408"]).toBeGreaterThan(0);
    expectBounded(receiver);
    console.log(
      `flood of 64 × (256 KB − 1) from 1 address: ${statuses.length} signed deliveries, all 200; ` +
        `flood answers ${JSON.stringify(answered)}; ${figures(receiver)}`,
    );
  }, 120_000);

  it("the same bodies from 24 addresses (over 16 MiB in all): the address holding the most gives way", async () => {
    const { receiver, port } = await serve();
    const flood = slowClients(port, 8, 256 * KB, "", { addresses: senders(24), reconnect: 100 });
    await flood.ready;
    const statuses = await deliverThroughout(port, () => flood.rounds.length >= 4);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(receiver.stats.evicted).toBeGreaterThan(0); // the total was reached, and shared
    expect(receiver.load().peakBufferedBytes).toBeGreaterThan(RECEIVER_DEFAULTS.maxBufferedBytes - 256 * KB);
    expectBounded(receiver);
    const setup = "flood of 24 addresses × 8 × (256 KB − 1)";
    console.log(`${setup}: ${statuses.length} signed deliveries, all 200; ${figures(receiver)}`);
  }, 120_000);

  it("512 unfinished header sections from 16 addresses fill the connection cap; deliveries still get in", async () => {
    const { receiver, port } = await serve();
    const flood = slowClients(port, 32, 0, "headers", { addresses: senders(16), reconnect: 20 });
    await flood.ready;
    const full = async () => {
      while (receiver.load().connections < RECEIVER_DEFAULTS.maxConnections) await pause(5);
    };
    // Each delivery waits until the flood holds all 512 connections again: one of its own must give way.
    const statuses = await deliverThroughout(port, () => flood.rounds.length >= 1, full);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(receiver.stats.evicted).toBeGreaterThan(0);
    expectBounded(receiver);
    console.log(
      `flood of 16 addresses × 32 unfinished headers: ${statuses.length} deliveries, all 200; ${figures(receiver)}`,
    );
  }, 120_000);
});

/** Sends the headers of a POST, then the body in `piece`-byte pieces `every` ms apart; resolves with the answer. */
function trickle(port: number, head: string, body: Buffer, piece: number, every: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    let answer = "";
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve(answer);
    });
    socket.on("connect", () => {
      socket.write(`${head}content-length: ${body.length}\r\n\r\n`);
      timer = setInterval(() => {
        if (sent >= body.length || socket.destroyed) return clearInterval(timer);
        socket.write(body.subarray(sent, (sent += piece)));
      }, every);
    });
  });
}

const signedHead = (body: Buffer) =>
  "POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" +
  `x-trello-webhook: ${signPayload(SECRET, triggers.delivery, body, CALLBACK)}\r\n`;

describe("a minimum data rate, and refusal before the body", () => {
  it("a body trickling below the minimum rate gets 408 before the body timeout; a steady one is served", async () => {
    const { receiver, port } = await serve({
      bodyTimeoutMs: 600_000,
      minBodyBytesPerSecond: 1024,
      bodyRateWindowMs: 300,
    });
    const body = Buffer.from(JSON.stringify({ ...delivery("createCard"), padding: "x".repeat(30 * KB) }));
    // 10 bytes every 100 ms (100 bytes a second) would take an hour; 4 KB every 100 ms is 40 KB a second.
    const [slow, steady] = await Promise.all([
      trickle(port, signedHead(body), body, 10, 100),
      trickle(port, signedHead(body), body, 4 * KB, 100),
    ]);
    expect(slow).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow).toContain("request body arrived slower than 1024 bytes a second");
    expect(steady).toMatch(/^HTTP\/1\.1 200 /);
    expect(receiver.stats).toMatchObject({ slowBodies: 1, timedOut: 1, accepted: 1 });
    expect(receiver.load().bufferedBytes).toBe(0);
  }, 60_000);

  it("a missing or ill-formed signature header is answered 401 before any of the body is sent", async () => {
    const { receiver, port } = await serve({ bodyTimeoutMs: 600_000 });
    // The headers promise 100 KB that never come: only an answer from the headers can end these.
    const headOnly = (extra: string) =>
      new Promise<string>((resolve) => {
        const socket = connect({ port, host: "127.0.0.1" });
        let answer = "";
        socket.on("data", (d) => (answer += d.toString()));
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(answer));
        socket.on("connect", () =>
          socket.write(`POST / HTTP/1.1\r\nhost: x\r\n${extra}content-length: 100000\r\n\r\n`),
        );
      });
    const answers = await Promise.all([
      headOnly(""),
      headOnly("x-trello-webhook: forged\r\n"),
      headOnly(`x-trello-webhook: ${"A".repeat(40)}\r\n`),
    ]);
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toContain("invalid signature");
    }
    expect(receiver.stats).toMatchObject({ rejectedEarly: 3, rejectedSignature: 3 });
    expect(receiver.load().peakBufferedBytes).toBe(0);
  }, 60_000);
});
