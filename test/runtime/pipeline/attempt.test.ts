/**
 * One attempt (runtime/client/attempt.ts): send with a per-attempt timeout, read the whole body,
 * parse it, and say whether a request that got no answer may have reached the service.
 */
import { describe, expect, it } from "vitest";
import { parseBody, sendAttempt } from "../../../runtime/client/attempt.js";
import { fakeFetch, hangingFetch, jsonResponse, refusedFetch } from "./helpers.js";

const request = { url: "http://127.0.0.1:9/x", method: "GET", headers: undefined, body: undefined };
const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;

describe("sendAttempt", () => {
  it("reads and parses the answer, never following a redirect", async () => {
    const fake = fakeFetch(() => jsonResponse(201, { id: "c1" }));
    const outcome = await sendAttempt(fake.fetch, request, undefined, 1000);
    expect(outcome).toMatchObject({ answered: true, body: { id: "c1" } });
    if (outcome.answered) expect(outcome.response.status).toBe(201);
    expect(fake.sent[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("times out a request that gets no answer: it may have been sent", async () => {
    const outcome = await sendAttempt(hangingFetch().fetch, request, undefined, 20);
    expect(outcome).toMatchObject({ answered: false, timedOut: true, sent: true });
  });

  it("says a refused connection was never sent", async () => {
    const outcome = await sendAttempt(refusedFetch().fetch, request, undefined, 1000);
    expect(outcome).toMatchObject({ answered: false, timedOut: false, sent: false });
  });

  it("ends when the caller cancels, and not as a timeout", async () => {
    const controller = new AbortController();
    const pending = sendAttempt(hangingFetch().fetch, request, controller.signal, 60_000);
    controller.abort(new Error("caller stopped"));
    expect(await pending).toMatchObject({ answered: false, timedOut: false });
    // A signal already aborted: the attempt ends at once.
    const again = await sendAttempt(hangingFetch().fetch, request, controller.signal, 60_000);
    expect(again).toMatchObject({ answered: false, timedOut: false });
  });

  it("never hands an attempt a signal that already fired (signals are reused only while unfired)", async () => {
    await sendAttempt(hangingFetch().fetch, request, undefined, 5);
    const signals: AbortSignal[] = [];
    for (let i = 0; i < 40; i++) {
      const fake = fakeFetch();
      await sendAttempt(fake.fetch, request, undefined, 1000);
      signals.push(fake.sent[0]!.signal!);
    }
    expect(signals.every((s) => !s.aborted)).toBe(true);
  });
});

describe("parseBody", () => {
  it("parses JSON by content type or by shape; keeps other text; nothing for an empty body", () => {
    expect(parseBody(bytes('{"a":1}'), "application/json; charset=utf-8")).toEqual({ a: 1 });
    expect(parseBody(bytes("  [1,2]"), "text/plain")).toEqual([1, 2]);
    expect(parseBody(bytes("not json {"), "application/json")).toBe("not json {");
    expect(parseBody(bytes("plain words"), null)).toBe("plain words");
    expect(parseBody(new ArrayBuffer(0), "application/json")).toBeUndefined();
  });
});
