/**
 * The sandbox on the server's own thread (runtime/code/inline.ts), with a host that answers from a
 * table: a builtin QuickJS does not interrupt is stopped by the watchdog of node:vm's timeout (no
 * worker to terminate), the thread goes on serving with a new module, and no run sees another's state.
 */
import { afterAll, describe, expect, it } from "vitest";
import { InlineSandbox } from "../../runtime/code/inline.js";
import { DEFAULT_BUDGETS } from "../../runtime/code/protocol.js";
import { echoJob } from "./echo-host.js";

const MIB = 1024 * 1024;
const budgets = { ...DEFAULT_BUDGETS, cpuMs: 300, wallMs: 20_000, memoryBytes: 64 * MIB };
const sandbox = new InlineSandbox({ engines: 1, memoryBytes: budgets.memoryBytes });
afterAll(() => sandbox.close());

const run = (body: string) => sandbox.run(echoJob(body, budgets));

describe("the sandbox on the server's thread", () => {
  it("stops a builtin QuickJS does not interrupt, and the next run calls out as before", {
    timeout: 60_000,
  }, async () => {
    const stuck = await run(`return new Array(2 ** 32 - 1).join("").length;`);
    expect(stuck.failure?.kind).toBe("cpu_time");
    expect(stuck.failure?.message).toMatch(/inside one builtin operation/);
    const next = await run(`const r = await services.svc.echo({ body: 7 }); return r.init.body;`);
    expect(next).toMatchObject({ value: "7", calls: 1 });
  });

  it("starts every run from a state no earlier run could touch", { timeout: 60_000 }, async () => {
    const first = await run(
      `globalThis.left = 1; Object.prototype.polluted = 2; JSON.parse = () => 3; return typeof left;`,
    );
    expect(first.value).toBe('"number"');
    const second = await run(`return [typeof globalThis.left, ({}).polluted, JSON.parse("4")];`);
    expect(second.value).toBe('["undefined",null,4]');
  });
});
