/**
 * What the sandbox tests (sandbox.test.ts, inline.test.ts) run against: one service whose one
 * method answers with what it was called with, and a program around the body under test.
 */
import type { HostCall, SandboxBudgets } from "../../runtime/code/protocol.js";
import type { RunJob } from "../../runtime/code/sandbox.js";

export const echoHost: HostCall = async (request) =>
  JSON.stringify({ ok: true, data: { method: request.method, init: request.init ? JSON.parse(request.init) : null } });
export const echoShape = [{ id: "svc", methods: ["echo"] }];
export const program = (body: string): string => `"use strict";\nasync function main(services) {\n${body}\n}`;

/** A run of `body` against the echo service, with `more` in place of its parts. */
export const echoJob = (body: string, budgets: SandboxBudgets, more: Partial<RunJob> = {}): RunJob => ({
  js: program(body),
  main: "main",
  shape: echoShape,
  host: echoHost,
  budgets,
  ...more,
});
