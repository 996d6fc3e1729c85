/** Raw HTTP on a socket: hostile uploads as bytes, and the replies parsed back. */

import { connect } from "node:net";
import fc from "fast-check";
import { actionId, event, type Event, MAX } from "./deliveries.js";

interface RawReply {
  /** HTTP status, or 0 when the connection closed without an answer. */
  status: number;
  body: string;
}

/** Sends raw bytes on a fresh connection, optionally half-closing; resolves with the parsed reply. */
export function raw(
  port: number,
  chunks: Buffer[],
  options: { end?: boolean; timeoutMs?: number } = {},
): Promise<RawReply> {
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

export function httpRequest(method: string, headers: Record<string, string>, body: Buffer): Buffer {
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

export const wire: fc.Arbitrary<Wire> = fc.oneof(
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
