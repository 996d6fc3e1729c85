/**
 * Property-based fuzzing of the Trello webhook receiver (runtime/triggers/receiver.ts).
 *
 * Sequences of requests — correctly signed deliveries (some whose consumer fails), replays, forged
 * signatures (random, one character flipped, truncated, wrong secret, wrong callback URL, missing,
 * several headers), bodies truncated after signing, oversized bodies, random bytes, correctly
 * signed malformed JSON, other methods and the HEAD probe — are run against a fresh receiver and
 * compared with a model of the documented contract:
 *
 *   non-POST → 405 (HEAD probe → 200) · too big → 413 · bad signature → 401 · not a JSON object
 *   with a non-empty action.id → 400 · id seen → 200 "duplicate ignored" · consumer throws → 500
 *   (id forgotten, the retry is processed) · otherwise 200 "ok", delivered exactly once.
 *
 * In process through `handle` (many runs), and over HTTP on 127.0.0.1 through `nodeHandler` with
 * raw sockets (truncated uploads, lying or huge Content-Length, chunked floods, garbage requests),
 * after which the server must still answer a good delivery.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import {
  createWebhookReceiver,
  signPayload,
  type WebhookRequest,
  type WebhookResponse,
} from "../../runtime/triggers/receiver.js";
import { runs, SEED } from "./arbitraries.js";

const SECRET = "fuzz-app-secret-0f1e2d3c";
const CALLBACK = "https://hooks.example.com/trello?board=fuzz";
const { delivery: spec } = triggers;
const MAX = 2048;

const sign = (body: Buffer | string, secret = SECRET, callback = CALLBACK) => signPayload(secret, spec, body, callback);

// ------------------------------------------------------------------ requests and the model

type Event =
  | { kind: "valid"; id: string; fail: boolean; text: string }
  | { kind: "forged"; id: string; how: string; text: string }
  | { kind: "truncated"; id: string; cut: number }
  | { kind: "oversized"; id: string; pad: number }
  | { kind: "bytes"; bytes: Uint8Array; signed: boolean }
  | { kind: "malformed"; text: string }
  | { kind: "method"; method: string; signed: boolean };

/** A small pool of action ids so that replays happen often. */
const actionId = fc.constantFrom(
  "6100000000000000000000a1",
  "6100000000000000000000a2",
  "6100000000000000000000a3",
  "6100000000000000000000a4",
);

function payload(id: string, fail: boolean, text: string): string {
  return JSON.stringify({
    action: {
      id,
      type: "commentCard",
      date: "2026-11-21T09:00:00.000Z",
      data: { text, board: { id: "60d5ecb74e2a1b3c4d5e6f01" } },
      ...(fail ? { fail: true } : {}),
    },
    model: { id: "60d5ecb74e2a1b3c4d5e6f01" },
  });
}

/** Signatures that are almost right, or not at all. */
function forgedSignature(body: string, how: string, salt: number): string | string[] | undefined {
  const good = sign(body);
  switch (how) {
    case "flip": {
      const i = salt % good.length;
      const c = good[i]!;
      return good.slice(0, i) + (c === "A" ? "B" : "A") + good.slice(i + 1);
    }
    case "truncate":
      return good.slice(0, salt % good.length);
    case "extra":
      return `${good}=`;
    case "case":
      return good.toLowerCase() === good ? good.toUpperCase() : good.toLowerCase();
    case "hex":
      return Buffer.from(good, "base64").toString("hex");
    case "wrong-secret":
      return sign(body, `${SECRET}x`);
    case "wrong-callback":
      return sign(body, SECRET, "https://hooks.example.com/trello");
    case "body-only":
      return signPayload(SECRET, { signature: { ...spec.signature, message: "body" } }, body, CALLBACK);
    case "missing":
      return undefined;
    case "empty":
      return "";
    case "forged-first":
      return ["forged", good];
    default:
      return Buffer.from(String(salt)).toString("base64");
  }
}
const FORGERIES = [
  "flip",
  "truncate",
  "extra",
  "case",
  "hex",
  "wrong-secret",
  "wrong-callback",
  "body-only",
  "missing",
  "empty",
  "forged-first",
  "random",
];

const malformedText = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    "}",
    "[]",
    "[1,2]",
    "null",
    "true",
    "0",
    '"text"',
    "{}",
    '{"action":{}}',
    '{"action":{"id":""}}',
    '{"action":{"id":42}}',
    '{"action":"6100000000000000000000a1"}',
    '{"action":{"id":null}}',
    '{"action":{"id":["x"]}}',
    '{"__proto__":{"action":{"id":"6100000000000000000000a1"}}}',
    '{"action":{"id":"a"},}',
    "\uFEFF{}",
  ),
  // A valid delivery cut short, then signed as it is.
  fc.tuple(actionId, fc.nat()).map(([id, n]) => {
    const full = payload(id, false, "cut");
    return full.slice(0, n % full.length);
  }),
  fc.string({ maxLength: 40 }).filter((s) => {
    try {
      const v = JSON.parse(s);
      return !(
        v &&
        typeof v === "object" &&
        !Array.isArray(v) &&
        typeof v.action?.id === "string" &&
        v.action.id.length > 0
      );
    } catch {
      return true;
    }
  }),
);

const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("valid" as const),
      id: actionId,
      fail: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) /* a quarter of consumers fail */,
      text: fc.string({ maxLength: 30 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("forged" as const),
      id: actionId,
      how: fc.constantFrom(...FORGERIES),
      text: fc.string({ maxLength: 10 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("truncated" as const), id: actionId, cut: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("oversized" as const),
      id: actionId,
      pad: fc.integer({ min: MAX, max: 4 * MAX }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("bytes" as const),
      bytes: fc.uint8Array({ maxLength: 64 }),
      signed: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("malformed" as const), text: malformedText }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("method" as const),
      method: fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "post"),
      signed: fc.boolean(),
    }),
  },
);

interface Built {
  request: WebhookRequest;
  /** What the model expects: status, and the delivered id if any. */
  expect: (seen: Set<string>) => { status: number; body?: string; delivered?: string };
}

function build(e: Event, salt: number): Built {
  const post = (body: Buffer, signature: string | string[] | undefined, method = "POST"): WebhookRequest => ({
    method,
    headers:
      signature === undefined
        ? { "content-type": "application/json" }
        : { "content-type": "application/json", "x-trello-webhook": signature },
    body,
  });
  switch (e.kind) {
    case "valid": {
      const body = Buffer.from(payload(e.id, e.fail, e.text));
      return {
        request: post(body, sign(body)),
        expect: (seen) =>
          seen.has(e.id)
            ? { status: 200, body: "duplicate ignored" }
            : e.fail
              ? { status: 500 }
              : { status: 200, body: "ok", delivered: e.id },
      };
    }
    case "forged": {
      const text = payload(e.id, false, e.text);
      return { request: post(Buffer.from(text), forgedSignature(text, e.how, salt)), expect: () => ({ status: 401 }) };
    }
    case "truncated": {
      const full = payload(e.id, false, "truncated");
      const body = Buffer.from(full).subarray(0, e.cut % full.length);
      return { request: post(body, sign(full)), expect: () => ({ status: 401 }) };
    }
    case "oversized": {
      const body = Buffer.from(
        JSON.stringify({ ...JSON.parse(payload(e.id, false, "big")), padding: "x".repeat(e.pad) }),
      );
      return { request: post(body, sign(body)), expect: () => ({ status: 413 }) };
    }
    case "bytes": {
      const body = Buffer.from(e.bytes);
      let wellFormed: string | undefined;
      try {
        const v = JSON.parse(body.toString("utf8"));
        if (v && typeof v === "object" && !Array.isArray(v) && typeof v.action?.id === "string" && v.action.id)
          wellFormed = v.action.id;
      } catch {
        /* not JSON */
      }
      return {
        request: post(body, e.signed ? sign(body) : body.toString("base64")),
        expect: (seen) =>
          !e.signed
            ? { status: 401 }
            : wellFormed === undefined
              ? { status: 400 }
              : seen.has(wellFormed)
                ? { status: 200 }
                : { status: 200, delivered: wellFormed },
      };
    }
    case "malformed": {
      const body = Buffer.from(e.text);
      return { request: post(body, sign(body)), expect: () => ({ status: 400 }) };
    }
    case "method": {
      const body = Buffer.from(payload("6100000000000000000000ff", false, "method"));
      const method = e.method;
      return {
        request: post(body, e.signed ? sign(body) : undefined, method),
        // Methods are compared upper-cased; the probe answers 200 without looking at anything.
        expect: (seen) => {
          if (method.toUpperCase() === "HEAD") return { status: 200 };
          if (method.toUpperCase() !== "POST") return { status: 405 };
          if (!e.signed) return { status: 401 };
          return seen.has("6100000000000000000000ff")
            ? { status: 200, body: "duplicate ignored" }
            : { status: 200, body: "ok", delivered: "6100000000000000000000ff" };
        },
      };
    }
  }
}

function freshReceiver() {
  const delivered: string[] = [];
  const receiver = createWebhookReceiver({
    secret: SECRET,
    callbackUrl: CALLBACK,
    delivery: spec,
    maxBodyBytes: MAX,
    onDelivery: (p) => {
      const action = p.action as { id: string; fail?: boolean };
      if (action.fail) throw new Error("consumer down");
      delivered.push(action.id);
    },
  });
  return { receiver, delivered };
}

/** Runs the model alongside; returns the expected delivered ids in order. */
function step(
  seen: Set<string>,
  built: Built,
  response: WebhookResponse | { status: number; body?: string },
  expectedDelivered: string[],
): void {
  const want = built.expect(seen);
  expect(response.status).toBe(want.status);
  if (want.body !== undefined) expect(response.body).toBe(want.body);
  if (want.delivered !== undefined) {
    seen.add(want.delivered);
    expectedDelivered.push(want.delivered);
  }
}

// ------------------------------------------------------------------ in process

describe("webhook receiver, in process (property-based)", () => {
  it("answers every sequence as the contract says; only correctly signed, well-formed first deliveries are dispatched", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(event, fc.nat()), { minLength: 1, maxLength: 25 }), async (events) => {
        const { receiver, delivered } = freshReceiver();
        const seen = new Set<string>();
        const expected: string[] = [];
        for (const [e, salt] of events) {
          const built = build(e, salt);
          let response: WebhookResponse;
          try {
            response = await receiver.handle(built.request);
          } catch (error) {
            throw new Error(`handle threw for ${e.kind}: ${String(error)}`);
          }
          step(seen, built, response, expected);
        }
        expect(delivered).toEqual(expected);
        expect(receiver.stats.accepted).toBe(expected.length);
      }),
      { seed: SEED, numRuns: runs(400) },
    );
  });

  it("never delivers a body whose signature is not exactly right (single forged requests)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.base64String({ maxLength: 40 }),
          fc.array(fc.string(), { maxLength: 3 }),
        ),
        async (body, signature) => {
          const { receiver, delivered } = freshReceiver();
          const good = sign(body);
          const first = Array.isArray(signature) ? signature[0] : signature;
          fc.pre(first !== good);
          const response = await receiver.handle({
            method: "POST",
            headers: { "x-trello-webhook": signature },
            body: Buffer.from(body),
          });
          expect(response.status).toBe(401);
          expect(delivered).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: runs(1000) },
    );
  });
});

// ------------------------------------------------------------------ over HTTP

interface RawReply {
  /** HTTP status, or 0 when the connection closed without an answer. */
  status: number;
  body: string;
}

/** Sends raw bytes on a fresh connection, optionally half-closing; resolves with the parsed reply. */
function raw(port: number, chunks: Buffer[], options: { end?: boolean; timeoutMs?: number } = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const got: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(got).toString("latin1");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const split = text.indexOf("\r\n\r\n");
      const head = split < 0 ? text : text.slice(0, split);
      let body = split < 0 ? "" : text.slice(split + 4);
      if (/^transfer-encoding: *chunked/im.test(head)) body = dechunk(body);
      resolve({ status: m ? Number(m[1]) : 0, body });
      socket.destroy();
    };
    const timer = setTimeout(done, options.timeoutMs ?? 2000);
    socket.on("data", (c: Buffer) => got.push(c));
    socket.on("close", done);
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      for (const c of chunks) socket.write(c);
      if (options.end !== false) socket.end();
    });
  });
}

function dechunk(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) return out;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

function httpRequest(method: string, headers: Record<string, string>, body: Buffer): Buffer {
  const lines = [
    `${method} /trello HTTP/1.1`,
    "Host: 127.0.0.1",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ];
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), body]);
}

type Wire =
  | { kind: "event"; event: Event; salt: number }
  | { kind: "truncated-upload"; id: string; cut: number }
  | { kind: "lying-length"; id: string; extra: number }
  | { kind: "huge-length" }
  | { kind: "chunked-flood"; size: number }
  | { kind: "garbage"; bytes: Uint8Array }
  | { kind: "bad-length"; value: string };

const wire: fc.Arbitrary<Wire> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("event" as const), event, salt: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("truncated-upload" as const), id: actionId, cut: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("lying-length" as const),
      id: actionId,
      extra: fc.integer({ min: 1, max: 500 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "huge-length" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("chunked-flood" as const),
      size: fc.integer({ min: MAX + 1, max: 64 * 1024 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("garbage" as const),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("bad-length" as const),
      value: fc.constantFrom("-1", "abc", "1e3", "99999999999999999999", "0x10", "", "5, 6"),
    }),
  },
);

describe("webhook receiver over HTTP on 127.0.0.1 (property-based)", () => {
  let server: Server;
  let port: number;
  let current = freshReceiver();
  const errors: unknown[] = [];

  beforeAll(async () => {
    // One server; each run swaps in a fresh receiver behind it.
    // Unparsable requests get node's own 400 (its default clientError handling). A throw inside the
    // receiver's stream handlers would surface as an uncaught error and fail the run.
    server = createServer((req, res) => {
      try {
        current.receiver.nodeHandler(req, res);
      } catch (error) {
        errors.push(error);
        throw error;
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("never crashes on hostile uploads, answers as the contract says, and still serves a good delivery afterwards", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(wire, { minLength: 1, maxLength: 6 }), async (requests) => {
        current = freshReceiver();
        const seen = new Set<string>();
        const expected: string[] = [];
        for (const w of requests) {
          switch (w.kind) {
            case "event": {
              const built = build(w.event, w.salt);
              const { method, headers, body } = built.request;
              const h: Record<string, string> = { "content-length": String(body.length), connection: "close" };
              for (const [k, v] of Object.entries(headers))
                if (v !== undefined) h[k] = Array.isArray(v) ? v.join(", ") : v;
              // Several signature headers arrive joined; a lone forged-first list is then one forged value.
              const reply = await raw(port, [httpRequest(method.toUpperCase(), h, body)]);
              const want = built.expect(seen);
              if (want.status === 413) expect([413, 0]).toContain(reply.status);
              else
                step(
                  seen,
                  built,
                  reply.status === 0
                    ? reply
                    : { status: reply.status, body: method.toUpperCase() === "HEAD" ? "" : reply.body },
                  expected,
                );
              break;
            }
            case "truncated-upload": {
              // Content-Length says more than is sent, then the client hangs up: no delivery, no answer needed.
              const body = Buffer.from(payload(w.id, false, "upload"));
              const cut = body.subarray(0, w.cut % body.length);
              const reply = await raw(port, [
                httpRequest("POST", { "content-length": String(body.length), "x-trello-webhook": sign(body) }, cut),
              ]);
              expect([0, 400]).toContain(reply.status);
              break;
            }
            case "lying-length": {
              // Content-Length shorter than the body: only that much is read, so the signature fails
              // (401); node may first answer the leftover bytes, an unparsable next request, with 400.
              const body = Buffer.from(payload(w.id, false, "lying"));
              const reply = await raw(port, [
                httpRequest(
                  "POST",
                  {
                    "content-length": String(Math.max(0, body.length - w.extra)),
                    "x-trello-webhook": sign(body),
                    connection: "close",
                  },
                  body,
                ),
              ]);
              expect([400, 401]).toContain(reply.status);
              break;
            }
            case "huge-length": {
              const reply = await raw(port, [
                httpRequest(
                  "POST",
                  { "content-length": String(10 * 1024 * 1024), "x-trello-webhook": "x" },
                  Buffer.from("{"),
                ),
              ]);
              expect(reply.status).toBe(413);
              break;
            }
            case "chunked-flood": {
              const chunk = Buffer.from("x".repeat(1024));
              // A signature header of the right shape, so the receiver reads the body (an ill-formed
              // one is refused unread).
              const head = { "transfer-encoding": "chunked", "x-trello-webhook": `${"A".repeat(27)}=` };
              const parts: Buffer[] = [httpRequest("POST", head, Buffer.alloc(0))];
              for (let sent = 0; sent < w.size; sent += chunk.length)
                parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"));
              parts.push(Buffer.from("0\r\n\r\n"));
              const reply = await raw(port, parts);
              // 413, or the connection is cut while the client is still sending.
              expect([413, 0]).toContain(reply.status);
              break;
            }
            case "garbage": {
              const reply = await raw(port, [Buffer.from(w.bytes)]);
              expect([0, 400, 401, 405, 413, 505]).toContain(reply.status);
              break;
            }
            case "bad-length": {
              const body = Buffer.from(payload("6100000000000000000000b1", false, "len"));
              const reply = await raw(port, [
                httpRequest("POST", { "content-length": w.value, "x-trello-webhook": sign(body) }, body),
              ]);
              // Node's parser refuses these before the receiver sees them.
              expect(reply.status).toBe(400);
              break;
            }
          }
        }
        // The server still answers, and delivers a good one.
        const good = Buffer.from(payload("6100000000000000000000c9", false, "still alive"));
        const reply = await raw(port, [
          httpRequest(
            "POST",
            { "content-length": String(good.length), "x-trello-webhook": sign(good), connection: "close" },
            good,
          ),
        ]);
        expect(reply.status).toBe(200);
        expect(current.delivered).toEqual([...expected, "6100000000000000000000c9"]);
        expect(errors).toEqual([]);
      }),
      { seed: SEED, numRuns: runs(100) },
    );
  });
});
