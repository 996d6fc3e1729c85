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

import fc from "fast-check";
import { expect } from "vitest";
import { triggers } from "../../../generated/trello/triggers.js";
import {
  createWebhookReceiver,
  signPayload,
  type WebhookRequest,
  type WebhookResponse,
} from "../../../runtime/triggers/receiver.js";

const SECRET = "fuzz-app-secret-0f1e2d3c";
const CALLBACK = "https://hooks.example.com/trello?board=fuzz";
const { delivery: spec } = triggers;
export const MAX = 2048;

export const sign = (body: Buffer | string, secret = SECRET, callback = CALLBACK) =>
  signPayload(secret, spec, body, callback);

// ------------------------------------------------------------------ requests and the model

export type Event =
  | { kind: "valid"; id: string; fail: boolean; text: string }
  | { kind: "forged"; id: string; how: string; text: string }
  | { kind: "truncated"; id: string; cut: number }
  | { kind: "oversized"; id: string; pad: number }
  | { kind: "bytes"; bytes: Uint8Array; signed: boolean }
  | { kind: "malformed"; text: string }
  | { kind: "method"; method: string; signed: boolean };

/** A small pool of action ids so that replays happen often. */
export const actionId = fc.constantFrom(
  "6100000000000000000000a1",
  "6100000000000000000000a2",
  "6100000000000000000000a3",
  "6100000000000000000000a4",
);

export function payload(id: string, fail: boolean, text: string): string {
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

export const event: fc.Arbitrary<Event> = fc.oneof(
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

export function build(e: Event, salt: number): Built {
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

export function freshReceiver() {
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
export function step(
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
