/**
 * The webhook receiver under load and over time: caps on open connections and on body bytes held
 * in memory, header and body timeouts the CLI really enforces (a child process running
 * `stepforge webhook serve`, its RSS read from /proc), and dedupe by delivery id over a time window
 * in the state layer (a fake clock days later; two receivers sharing one state folder).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import { packageRoot } from "../../generator/package-root.js";
import { FileStateStore } from "../../runtime/state/file.js";
import { MemoryStateStore } from "../../runtime/state/memory.js";
import { FakeClock, StateUnavailableError, type StateStore } from "../../runtime/state/types.js";
import {
  createWebhookReceiver,
  RECEIVER_DEFAULTS,
  signPayload,
  type WebhookReceiver,
} from "../../runtime/triggers/receiver.js";
import { createWebhookServer } from "../../runtime/triggers/server.js";
import { runCli } from "../helpers/cli.js";
import { delivery } from "./fixtures.js";
import { line, slowClients, spawnNode } from "./slow-senders.js";

const SECRET = "receiver-limits-secret-5b2e";
const CALLBACK = "https://hooks.example.com/trello";
const spec = triggers.delivery;
const DAY = 24 * 3600_000;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startReceiver(...flags: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawnNode(
    [
      join(packageRoot(), "bin", "stepforge.js"),
      "webhook",
      "serve",
      "--port",
      "0",
      "--callback-url",
      CALLBACK,
      ...flags,
    ],
    { STEPFORGE_WEBHOOK_SECRET: SECRET },
  );
  const port = await line(child, "stderr", (t) => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(t)?.[1]);
  return { child, port: Number(port) };
}

/** Resident set size of a process in bytes (Linux /proc). */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

const signedPost = async (port: number, payload: unknown) => {
  const body = JSON.stringify(payload);
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    body,
    headers: { "x-trello-webhook": signPayload(SECRET, spec, body, CALLBACK) },
  });
  return { status: res.status, text: await res.text() };
};

/**
 * The stated bound (docs/webhooks in spec-authoring, and the report): RSS grows by at most this under the default caps.
 */
const RSS_GROWTH_BOUND = 128 * 1024 * 1024;

describe("webhook serve under 4,000 slow connections", () => {
  it("stays under the stated memory bound, refuses clearly, closes late bodies, and serves again after", async () => {
    const { child, port } = await startReceiver("--body-timeout", "10");
    // Idle: after it has served one request (code paths loaded).
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "HEAD" })).status).toBe(200);
    const idle = rss(child.pid!);
    let peak = idle;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rss(child.pid!));
      } catch {
        /* exited */
      }
    }, 100);
    try {
      // Each connection declares a 256 KB body and sends all but its last byte, as fast as the receiver reads.
      const load = slowClients(port, 4000, 256 * 1024);
      const ready = await load.ready;
      expect(ready.settled).toBe(4000);
      peak = Math.max(peak, rss(child.pid!));
      const statuses = await load.closed; // every connection closed by the receiver (caps or the 10 s body timeout)
      peak = Math.max(peak, rss(child.pid!));
      // Over the caps: answered 503 at once; the ones it let hold bytes: 408 when the body timeout came.
      // ("none": a refused client still sending when the receiver closed got a reset before it read the
      // answer; a client process starved of CPU does that more, so they are counted as refused, not as answers.)
      expect(statuses["503"]! + (statuses.none ?? 0) + ready.connectErrors).toBeGreaterThanOrEqual(
        4000 - RECEIVER_DEFAULTS.maxConnections,
      );
      expect(statuses["503"]).toBeGreaterThan((4000 - RECEIVER_DEFAULTS.maxConnections) / 2);
      expect(statuses["408"]).toBeGreaterThan(0);
      expect(Object.keys(statuses).every((s) => ["503", "408", "none"].includes(s))).toBe(true);
      console.log(
        `receiver RSS: idle ${(idle / 2 ** 20).toFixed(0)} MB, peak ${(peak / 2 ** 20).toFixed(0)} ` +
          `MB under 4,000 slow connections; answers ${JSON.stringify(statuses)}`,
      );
      expect(peak - idle).toBeLessThan(RSS_GROWTH_BOUND);
      // And it still works.
      const ok = await signedPost(port, delivery("createCard"));
      expect(ok).toEqual({ status: 200, text: "ok" });
    } finally {
      clearInterval(sampler);
    }
  }, 90_000);

  it("enforces --headers-timeout and --body-timeout as given (408, connection closed)", async () => {
    const { port } = await startReceiver("--headers-timeout", "1", "--body-timeout", "1");
    const headers = slowClients(port, 20, 1000, "headers");
    const bodies = slowClients(port, 20, 1000);
    expect(await headers.closed).toEqual({ "408": 20 });
    expect(await bodies.closed).toEqual({ "408": 20 });
  }, 30_000);

  it("refuses bad settings with a usage error naming the flag", async () => {
    const caps = [
      "--max-connections",
      "--max-connections-per-address",
      "--max-buffered-bytes",
      "--max-buffered-bytes-per-address",
    ];
    for (const flag of [...caps, "--min-body-rate", "--headers-timeout", "--body-timeout", "--dedupe-window"]) {
      const r = await runCli("webhook", "serve", "--port", "0", "--secret", "s", "--callback-url", CALLBACK, flag, "0");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag} must be a positive number`);
    }
  });
});

describe("caps (in process)", () => {
  let receiver: WebhookReceiver;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function serve(options: { maxConnections?: number; maxBufferedBytes?: number }) {
    receiver = createWebhookReceiver({
      secret: SECRET,
      callbackUrl: CALLBACK,
      delivery: spec,
      onDelivery: () => undefined,
      maxBufferedBytes: options.maxBufferedBytes,
    });
    const server = createWebhookServer(receiver, { maxConnections: options.maxConnections });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    close = () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
    return port;
  }

  /** Opens a connection that sends headers and `bytes` of a larger body; collects what comes back. */
  function partial(port: number, bytes: number) {
    const socket = connect({ port, host: "127.0.0.1" });
    let answer = "";
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("error", () => undefined);
    const closed = new Promise<string>((r) => socket.on("close", () => r(answer)));
    const connected = new Promise<void>((r) =>
      socket.on("connect", () => {
        // A signature header of the right shape (but wrong): the receiver must read the body to refuse it.
        const signature = `x-trello-webhook: ${"A".repeat(27)}=`;
        socket.write(`POST / HTTP/1.1\r\nhost: x\r\n${signature}\r\ncontent-length: ${bytes + 10}\r\n\r\n`);
        socket.write(Buffer.alloc(bytes, 0x61), () => r());
      }),
    );
    return { socket, closed, connected };
  }

  it("answers one connection over the cap 503 with Retry-After, and serves again once others close", async () => {
    const port = await serve({ maxConnections: 3 });
    const held = [partial(port, 10), partial(port, 10), partial(port, 10)];
    await Promise.all(held.map((h) => h.connected));
    const over = partial(port, 10);
    const answer = await over.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/retry-after: 5/i);
    expect(answer).toContain("too many open connections");
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    expect((await signedPost(port, delivery("createCard"))).status).toBe(200);
  });

  it("holds at most maxBufferedBytes of bodies across requests; the one that would pass it gets 503", async () => {
    const port = await serve({ maxBufferedBytes: 100_000 });
    const a = partial(port, 60_000);
    await a.connected;
    // Wait until the receiver holds a's bytes (an event, not a sleep: poll its own count).
    while (receiver.bufferedBytes() < 60_000) await new Promise((r) => setImmediate(r));
    const b = partial(port, 60_000);
    const answer = await b.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain("too many request bytes in flight");
    expect(receiver.bufferedBytes()).toBe(60_000); // b's bytes were released, a's are still held
    a.socket.destroy();
    await a.closed;
    while (receiver.bufferedBytes() > 0) await new Promise((r) => setImmediate(r));
    expect(receiver.bufferedBytes()).toBe(0); // a client that went away frees what it held
    expect((await signedPost(port, delivery("createCard"))).status).toBe(200);
  });
});

describe("dedupe by delivery id over a time window, in the state layer", () => {
  const body = (payload: unknown) => {
    const text = JSON.stringify(payload);
    return {
      method: "POST",
      headers: { "x-trello-webhook": signPayload(SECRET, spec, text, CALLBACK) },
      body: Buffer.from(text),
    };
  };
  const make = (state: StateStore, got: unknown[], extra: { dedupeWindowMs?: number; fail?: () => boolean } = {}) =>
    createWebhookReceiver({
      secret: SECRET,
      callbackUrl: CALLBACK,
      delivery: spec,
      state,
      dedupeWindowMs: extra.dedupeWindowMs,
      onDelivery: (p) => {
        if (extra.fail?.()) throw new Error("consumer down");
        got.push(p);
      },
    });

  it(
    "drops a replay days later and after 10,001 newer deliveries; remembers for the " + "window, not for a count",
    async () => {
      const clock = new FakeClock(Date.now());
      const got: unknown[] = [];
      const r = make(new MemoryStateStore(clock), got);
      const first = delivery("createCard");
      expect((await r.handle(body(first))).body).toBe("ok");
      for (let i = 0; i < 10_001; i++) await r.handle(body(delivery("commentCard")));
      clock.advance(3 * DAY);
      expect((await r.handle(body(first))).body).toBe("duplicate ignored");
      clock.advance(3 * DAY + 23 * 3600_000); // 6 days 23 hours after: still inside the 7-day window
      expect((await r.handle(body(first))).body).toBe("duplicate ignored");
      clock.advance(2 * 3600_000); // past the window: the state forgot it (the documented bound)
      expect((await r.handle(body(first))).body).toBe("ok");
      expect(r.stats.duplicates).toBe(2);
    },
  );

  it("two receivers sharing one state folder (two workers behind one address) deliver each id once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sf-dedupe-"));
    dirs.push(dir);
    const clock = new FakeClock(Date.now());
    const got: unknown[] = [];
    const a = make(new FileStateStore(dir, { clock }), got);
    const b = make(new FileStateStore(dir, { clock }), got);
    const payloads = Array.from({ length: 20 }, () => delivery("updateCard"));
    // Each delivery arrives at both workers at once (a retry racing the original).
    const answers = await Promise.all(payloads.flatMap((p) => [a.handle(body(p)), b.handle(body(p))]));
    expect(answers.filter((x) => x.body === "ok")).toHaveLength(20);
    expect(answers.filter((x) => x.body === "duplicate ignored")).toHaveLength(20);
    expect(got).toHaveLength(20);
    clock.advance(2 * DAY);
    expect((await b.handle(body(payloads[0]))).body).toBe("duplicate ignored");
  });

  it(
    "a delivery whose consumer failed is let through once more when the service retries " + "it, in any worker",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "sf-dedupe-"));
      dirs.push(dir);
      let failing = true;
      const got: unknown[] = [];
      const a = make(new FileStateStore(dir), got, { fail: () => failing });
      const b = make(new FileStateStore(dir), got);
      const p = delivery("createCard");
      expect((await a.handle(body(p))).status).toBe(500);
      failing = false;
      // The retry lands on the other worker, twice at once: one delivers, one drops.
      const retries = await Promise.all([b.handle(body(p)), b.handle(body(p))]);
      expect(retries.map((x) => x.body).sort()).toEqual(["duplicate ignored", "ok"]);
      expect((await a.handle(body(p))).body).toBe("duplicate ignored");
      expect(got).toHaveLength(1);
    },
  );

  it("answers 503 with Retry-After when the shared state is unreachable, and delivers nothing", async () => {
    const state = new MemoryStateStore();
    state.firstSeen = () => Promise.reject(new StateUnavailableError("redis", "connection refused"));
    const got: unknown[] = [];
    const r = make(state, got);
    const answer = await r.handle(body(delivery("createCard")));
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ "retry-after": "5" });
    expect(answer.body).toContain("shared state is unreachable");
    expect(got).toHaveLength(0);
  });
});
