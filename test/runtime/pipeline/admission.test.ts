/**
 * Admission (runtime/client/admission.ts): the plan of limits a call counts against, the wait for
 * room under them, and the caller's bound on that wait, on the in-process limiter.
 */
import { describe, expect, it } from "vitest";
import { createClientContext } from "../../../runtime/client/client.js";
import type { CallState, ClientContext } from "../../../runtime/client/context.js";
import { adHocOperation } from "../../../runtime/client/request.js";
import { createSharedState } from "../../../runtime/state/shared.js";
import { quotaCounting, useQuotaCounting } from "../../../runtime/limits/limits.js";
import type { PipelineEvent } from "../../../runtime/hooks.js";
import {
  AbortedError,
  QuotaExhaustedError,
  RateLimitedError,
  type OperationDescriptor,
} from "../../../runtime/index.js";
import { apiKeyConnection } from "../helpers.js";
import { board, fakeFetch, op } from "./helpers.js";

const window = (id: string, requests: number, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "window",
  requests,
  windowSeconds: 10,
  description: id,
  rejection: { status: 429 },
  ...extra,
});

// The context is built here without a client, so the quota part a client would register is given here.
useQuotaCounting(quotaCounting);

function setup(limits: unknown[]) {
  const events: PipelineEvent[] = [];
  const descriptor = board(limits);
  const ctx = createClientContext(descriptor, {
    connection: apiKeyConnection(),
    baseUrl: "http://127.0.0.1:9",
    fetch: fakeFetch().fetch,
    shared: createSharedState(),
    observers: [{ onEvent: (e) => events.push(e) }],
  });
  return { ctx, descriptor, events };
}

function callOf(operation: OperationDescriptor, extra: Partial<CallState> = {}): CallState {
  const base = { retries: 0, attempts: 0, waitedMs: 0, reauthed: false, lastStatus: undefined, startedAt: Date.now() };
  return { op: operation, callId: "c-1", signal: undefined, maxLimitWaitMs: undefined, ...base, ...extra };
}

async function admitted(ctx: ClientContext, call: CallState) {
  const ticket = await ctx.admission.admit(ctx, call, ctx.admission.plan(call.op, { id: "1" }));
  ticket.release({ sent: true });
}

describe("the plan", () => {
  it("is worked out once per operation, and per path value only when a limit looks at paths", () => {
    const { ctx, descriptor } = setup([window("all", 100)]);
    const getThing = op(descriptor, "getThing");
    expect(ctx.admission.plan(getThing, { id: "1" })).toBe(ctx.admission.plan(getThing, { id: "2" }));
    const { ctx: byPath, descriptor: d2 } = setup([window("members", 100, { pathPrefix: "/1/members/" })]);
    const getMember = op(d2, "getMember");
    expect(byPath.admission.plan(getMember, { id: "a" })).toBe(byPath.admission.plan(getMember, { id: "a" }));
    expect(byPath.admission.plan(getMember, { id: "a" })).not.toBe(byPath.admission.plan(getMember, { id: "b" }));
    expect(byPath.admission.plan(getMember, { id: "a" })).toHaveLength(1);
    expect(byPath.admission.plan(op(d2, "getThing"), { id: "a" })).toHaveLength(0);
  });

  it("keeps a value that is missing apart from the text 'undefined'", () => {
    const { ctx, descriptor } = setup([window("p", 100, { per: "path:id" })]);
    const getThing = op(descriptor, "getThing");
    expect(ctx.admission.plan(getThing, { id: undefined })).not.toBe(ctx.admission.plan(getThing, { id: "undefined" }));
  });

  it("plans an ad-hoc request afresh each time: its path is not the declared one", () => {
    const { ctx } = setup([window("members", 100, { pathPrefix: "/1/members/" })]);
    const members = adHocOperation("apiCall", "GET", "/1/members/me");
    const other = adHocOperation("apiCall", "GET", "/1/boards/b");
    expect(ctx.admission.plan(members, undefined)).toHaveLength(1);
    expect(ctx.admission.plan(other, undefined)).toHaveLength(0);
  });
});

describe("admit", () => {
  it("hands out tickets while there is room; the window then holds the next call", async () => {
    const { ctx, descriptor, events } = setup([window("all", 2)]);
    const getThing = op(descriptor, "getThing");
    await admitted(ctx, callOf(getThing));
    await admitted(ctx, callOf(getThing));
    const bounded = callOf(getThing, { maxLimitWaitMs: 1000 });
    const error = await ctx.admission
      .admit(ctx, bounded, ctx.admission.plan(getThing, { id: "1" }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryable: true, operation: "getThing" });
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(9000);
    expect((error as Error).message).toMatch(
      /client-side limit "all" would hold this call about 10 s, longer than the 1000 ms allowed; nothing was sent/,
    );
    expect(events).toEqual([
      expect.objectContaining({ type: "throttle", limit: "all", callId: "c-1", operation: "getThing" }),
    ]);
  });

  it("fails at once with a quota error when a daily quota is spent", async () => {
    const quota = {
      id: "day",
      kind: "daily-quota",
      requests: 1,
      resetTimeZone: "UTC",
      description: "day",
      rejection: { status: 429 },
    };
    const { ctx, descriptor } = setup([quota]);
    const getThing = op(descriptor, "getThing");
    await admitted(ctx, callOf(getThing));
    const error = await ctx.admission
      .admit(ctx, callOf(getThing), ctx.admission.plan(getThing, { id: "1" }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({ retryable: false, status: 429 });
    expect((error as QuotaExhaustedError).resetsAt).toMatch(/T00:00:00\.000Z$/);
  });

  it("stops waiting when the call is cancelled", async () => {
    const { ctx, descriptor } = setup([window("all", 1)]);
    const getThing = op(descriptor, "getThing");
    await admitted(ctx, callOf(getThing));
    const controller = new AbortController();
    const waiting = ctx.admission.admit(
      ctx,
      callOf(getThing, { signal: controller.signal }),
      ctx.admission.plan(getThing, { id: "1" }),
    );
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
  });
});
