/** Property-based fuzzing of the webhook receiver; the contract it checks is described in deliveries.ts. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs, SEED } from "../arbitraries.js";
import { build, freshReceiver, payload, sign, step } from "./deliveries.js";
import { httpRequest, raw, wire } from "./wire.js";

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

  it(
    "never crashes on hostile uploads, answers as the contract says, and still serves a " + "good delivery afterwards",
    async () => {
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
    },
  );
});
