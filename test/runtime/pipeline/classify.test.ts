/**
 * Classification (runtime/client/classify.ts), on answers built in memory: success or the
 * descriptor's failure rule, the request id, and Retry-After for failures only.
 */
import { describe, expect, it } from "vitest";
import { classifyAnswer, parseRetryAfter, ruleForStatus } from "../../../runtime/client/classify.js";
import { board, jsonResponse } from "./helpers.js";

const envelope = { successField: "success", errorsField: "errors", codeField: "code", messageField: "message" };
const descriptor = board([], {
  envelope,
  requestIdHeaders: ["x-request-id"],
  codes: { "606": { kind: "rate_limited", retry: true, description: "rate" } },
  statuses: { "418": { kind: "validation", retry: false, description: "teapot" } },
});

describe("classifyAnswer", () => {
  it("a 2xx without the envelope's failure is a success, with the request id", () => {
    const answer = classifyAnswer(
      descriptor,
      jsonResponse(200, { success: true }, { "x-request-id": "r1", "retry-after": "5" }),
      { success: true },
    );
    expect(answer).toEqual({ failure: undefined, requestId: "r1", retryAfterMs: undefined });
  });

  it("a failure in a 2xx envelope takes the declared code's rule", () => {
    const body = { success: false, errors: [{ code: "606", message: "Max rate limit" }] };
    const answer = classifyAnswer(descriptor, jsonResponse(200, body, { "retry-after": "2" }), body);
    expect(answer.failure).toMatchObject({
      code: "606",
      message: "Max rate limit",
      rule: { kind: "rate_limited", retry: true },
    });
    expect(answer.retryAfterMs).toBe(2000);
  });

  it("an HTTP failure takes the spec's status rule, else the HTTP meaning", () => {
    const teapot = classifyAnswer(descriptor, jsonResponse(418, { message: "short and stout" }), {
      message: "short and stout",
    });
    expect(teapot.failure).toMatchObject({
      status: 418,
      message: "short and stout",
      rule: { kind: "validation", description: "teapot" },
    });
    expect(ruleForStatus(descriptor, 503)).toMatchObject({ kind: "server", retry: true });
    expect(ruleForStatus(descriptor, 409)).toMatchObject({ kind: "conflict", retry: false });
  });
});

describe("ruleForStatus without a declared rule", () => {
  // The kinds HTTP gives; 402 and 405–407 have none of their own and fall to `server`.
  it.each([
    [400, "validation", false],
    [401, "auth", false],
    [402, "server", false],
    [404, "not_found", false],
    [405, "server", false],
    [408, "timeout", true],
    [410, "validation", false],
    [429, "rate_limited", true],
    [499, "validation", false],
    [501, "server", false],
    [502, "server", true],
    [504, "server", true],
    [505, "server", false],
  ])("%i is %s (retried: %s)", (status, kind, retry) => {
    expect(ruleForStatus(descriptor, status)).toEqual({ kind, retry, reauth: false, description: `HTTP ${status}` });
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates; ignores anything else", () => {
    expect(parseRetryAfter("1.5")).toBe(1500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
