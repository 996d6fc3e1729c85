/** Property-based fuzzing of the webhook receiver; the contract it checks is described in deliveries.ts. */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WebhookResponse } from "../../../runtime/triggers/receiver.js";
import { runs, SEED } from "../arbitraries.js";
import { build, event, freshReceiver, sign, step } from "./deliveries.js";

describe("webhook receiver, in process (property-based)", () => {
  it(
    "answers every sequence as the contract says; only correctly signed, well-formed " +
      "first deliveries are dispatched",
    async () => {
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
    },
  );

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
