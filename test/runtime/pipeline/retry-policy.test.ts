/**
 * The retry policy (runtime/client/retry.ts) as pure decisions: retry after a delay or give up,
 * renew a refused token once, and the unknown-outcome rule for writes that are not idempotent.
 */
import { describe, expect, it } from "vitest";
import {
  afterFailure,
  afterNoAnswer,
  resolveRetry,
  shouldRenew,
  unknownAfterFailure,
  unknownWithoutAnswer,
  withinBudget,
} from "../../../runtime/client/retry.js";
import { adHocOperation } from "../../../runtime/client/request.js";
import type { ErrorRule } from "../../../runtime/index.js";

const retry = resolveRetry({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5, attempts: 2, maxTotalWaitMs: 500 });
const read = adHocOperation("get", "GET", "/x");
const write = adHocOperation("create", "POST", "/x");
const rule = (kind: ErrorRule["kind"], extra: Partial<ErrorRule> = {}): ErrorRule => ({
  kind,
  retry: true,
  reauth: false,
  description: kind,
  ...extra,
});
const failed = (r: ErrorRule, status: number, extra = {}) => ({
  rule: r,
  status,
  retryAfterMs: undefined,
  windowWaitMs: undefined,
  quotaSpent: false,
  ...extra,
});

describe("no answer", () => {
  it("retries a read, and a write that never left, after a backoff", () => {
    expect(afterNoAnswer(read, true, true, 0, retry)).toEqual({
      action: "retry",
      delayMs: 50,
      reason: "timeout",
      fromService: false,
    });
    expect(afterNoAnswer(write, false, false, 1, retry)).toEqual({
      action: "retry",
      delayMs: 100,
      reason: "network",
      fromService: false,
    });
  });

  it("gives up on a write that was sent: it may have been carried out", () => {
    expect(afterNoAnswer(write, true, true, 0, retry)).toEqual({ action: "give_up" });
    expect(unknownWithoutAnswer(write, true)).toBe(true);
    expect(unknownWithoutAnswer(write, false)).toBe(false);
    expect(unknownWithoutAnswer(read, true)).toBe(false);
  });
});

describe("a failed answer", () => {
  it("waits the service's Retry-After, else the window's, else a backoff", () => {
    const limited = rule("rate_limited");
    expect(afterFailure(read, failed(limited, 429, { retryAfterMs: 700, windowWaitMs: 300 }), 0, retry)).toEqual({
      action: "retry",
      delayMs: 700,
      reason: "status 429",
      fromService: true,
    });
    expect(afterFailure(read, failed(limited, 200, { code: "606", windowWaitMs: 300 }), 0, retry)).toMatchObject({
      delayMs: 300,
      reason: "code 606",
      fromService: false,
    });
    expect(afterFailure(read, failed(limited, 429), 2, retry)).toMatchObject({ delayMs: 200 });
  });

  it("gives up when the rule says so, a quota is spent, or resending a write could do it twice", () => {
    expect(afterFailure(read, failed(rule("validation", { retry: false }), 400), 0, retry)).toEqual({
      action: "give_up",
    });
    expect(afterFailure(read, failed(rule("rate_limited"), 429, { quotaSpent: true }), 0, retry)).toEqual({
      action: "give_up",
    });
    expect(afterFailure(write, failed(rule("server"), 502), 0, retry)).toEqual({ action: "give_up" });
    // A 503 and a 429 say the service did nothing: a write may go again.
    expect(afterFailure(write, failed(rule("server"), 503), 0, retry)).toMatchObject({ action: "retry" });
    expect(afterFailure(write, failed(rule("server", { resendSafe: true }), 502), 0, retry)).toMatchObject({
      action: "retry",
    });
  });

  it("leaves a write's outcome unknown after a 5xx that does not say the service did nothing", () => {
    expect(unknownAfterFailure(write, rule("server"), 502)).toBe(true);
    expect(unknownAfterFailure(write, rule("server"), 503)).toBe(false);
    expect(unknownAfterFailure(read, rule("server"), 502)).toBe(false);
    expect(unknownAfterFailure(write, rule("validation"), 400)).toBe(false);
  });

  it("renews a refused token once, only when the attempt carried one", () => {
    const refused = rule("auth", { retry: false, reauth: true });
    expect(shouldRenew(refused, true, false)).toBe(true);
    expect(shouldRenew(refused, true, true)).toBe(false);
    expect(shouldRenew(refused, false, false)).toBe(false);
    expect(shouldRenew(rule("auth", { reauth: false }), true, false)).toBe(false);
  });
});

describe("the budget", () => {
  it("allows a pause while retries and total wait are left", () => {
    expect(withinBudget(0, 0, 500, retry)).toBe(true);
    expect(withinBudget(0, 100, 401, retry)).toBe(false);
    expect(withinBudget(2, 0, 1, retry)).toBe(false);
  });
});
