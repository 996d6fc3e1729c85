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

  it("without a declared rule a status takes the HTTP meaning; any other 4xx is validation", () => {
    const expected =
      "400 validation, 401 auth, 402 permission, 403 permission, 404 not_found, 405 validation, 406 validation, " +
      "407 auth, 408 timeout retried, " +
      "410 validation, 429 rate_limited retried, 499 validation, 501 server, 502 server retried, 504 server retried, " +
      "505 server";
    const statuses = expected.split(", ").map((entry) => Number(entry.split(" ")[0]));
    const rules = statuses.map((status) => [status, ruleForStatus(board([]), status)] as const);
    expect(rules.map(([status, rule]) => `${status} ${rule.kind}${rule.retry ? " retried" : ""}`).join(", ")).toBe(
      expected,
    );
    for (const [, rule] of rules) expect(rule).toEqual({ kind: rule.kind, retry: rule.retry, reauth: false });
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates; ignores anything else", () => {
    expect(parseRetryAfter("1.5")).toBe(1500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
