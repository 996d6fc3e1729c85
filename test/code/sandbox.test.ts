/**
 * The sandbox on its own (runtime/code/sandbox.ts), with a host that answers from a table: its
 * memory is capped by the WebAssembly memory's maximum (QuickJS's own limit counts allocations,
 * not bytes, in this build), and a worker that ran out is replaced while the next run goes on.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_BUDGETS, type HostCall } from "../../runtime/code/protocol.js";
import { Sandbox } from "../../runtime/code/sandbox.js";
import { echoHost as host, echoJob } from "./echo-host.js";

const MIB = 1024 * 1024;
const budgets = { ...DEFAULT_BUDGETS, cpuMs: 5_000, wallMs: 20_000, memoryBytes: 32 * MIB };
const sandbox = new Sandbox({ workers: 1, memoryBytes: budgets.memoryBytes });
afterAll(() => sandbox.close());

describe("the sandbox's memory", () => {
  it("stops large allocations at the budget: the memory never grows past it", { timeout: 60_000 }, async () => {
    const outcome = await sandbox.run(
      echoJob(`const keep = []; for (;;) keep.push(new Uint8Array(4 << 20));`, budgets),
    );
    expect(outcome.failure?.kind).toBe("memory");
    expect(outcome.heapBytes).toBeLessThanOrEqual(16 * MIB + budgets.memoryBytes);
  });

  it("runs the next program, calls included, after a run that ran out", { timeout: 60_000 }, async () => {
    const outcome = await sandbox.run(
      echoJob(
        `const r = await services.svc.echo({ params: { path: { id: "1" } } }); return r.init.params.path.id;`,
        budgets,
      ),
    );
    expect(outcome).toMatchObject({ value: '"1"', calls: 1 });
  });
});

describe("calls leaving the sandbox", () => {
  it("sends calls when the code waits, all that were started, and none it left behind", {
    timeout: 60_000,
  }, async () => {
    const seen: string[] = [];
    const recording: HostCall = (request, signal) => {
      seen.push(request.init ?? "");
      return host(request, signal);
    };
    const both = await sandbox.run(
      echoJob(
        `const [a, b] = await Promise.all([services.svc.echo({ body: 1 }), services.svc.echo({ body: 2 })]);\n` +
          `return a.init.body + b.init.body;`,
        budgets,
        { host: recording },
      ),
    );
    expect(both).toMatchObject({ value: "3", calls: 2 });
    expect(seen).toEqual(['{"body":1}', '{"body":2}']);
    // Started and never awaited before the code returned: not sent (it used to be sent and then
    // cancelled, so a write could be applied without being listed among the run's writes).
    seen.length = 0;
    const left = await sandbox.run(echoJob(`services.svc.echo({ body: 3 }); return 0;`, budgets, { host: recording }));
    expect(left).toMatchObject({ value: "0" });
    expect(seen).toEqual([]);
  });
});

describe("a run started before its check is over", () => {
  type Slots = Array<{ worker: import("node:worker_threads").Worker }>;
  const worker = () => (sandbox as unknown as { slots: Slots }).slots[0]!.worker;
  /** The worker's next report that its code waits for calls. */
  const idle = () =>
    new Promise<void>((resolve) => {
      const seen = (message: { type: string }) => {
        if (message.type !== "idle") return;
        worker().off("message", seen);
        // After the sandbox's own listener has handled the same message.
        setImmediate(resolve);
      };
      worker().on("message", seen);
    });

  it("holds its calls until the check passes, and sends none when it fails", { timeout: 60_000 }, async () => {
    await sandbox.run(echoJob("return 0;", budgets));
    const seen: string[] = [];
    const recording: HostCall = (request, signal) => {
      seen.push(request.init ?? "");
      return host(request, signal);
    };
    const code = `return (await services.svc.echo({ body: 7 })).init.body;`;
    let pass!: (passed: boolean) => void;
    const waiting = idle();
    const passing = sandbox.run(
      echoJob(code, budgets, { host: recording, checked: new Promise<boolean>((resolve) => (pass = resolve)) }),
    );
    await waiting;
    expect(seen).toEqual([]);
    pass(true);
    expect(await passing).toMatchObject({ value: "7", calls: 1 });
    expect(seen).toEqual(['{"body":7}']);

    seen.length = 0;
    const before = worker();
    let fail!: (passed: boolean) => void;
    const waitingAgain = idle();
    const failing = sandbox.run(
      echoJob(code, budgets, { host: recording, checked: new Promise<boolean>((resolve) => (fail = resolve)) }),
    );
    await waitingAgain;
    fail(false);
    expect((await failing).failure?.kind).toBe("discarded");
    expect(seen).toEqual([]);
    // Cancelled while QuickJS waited: the worker goes on (not replaced) and runs the next code.
    expect(worker()).toBe(before);
    expect(await sandbox.run(echoJob(code, budgets, { host: recording }))).toMatchObject({ value: "7" });
  });

  it("runs without waiting for its check, and is stopped in a loop when the check fails", {
    timeout: 60_000,
  }, async () => {
    const outcome = await sandbox.run(echoJob("return 42;", budgets, { checked: new Promise<boolean>(() => {}) }));
    expect(outcome).toMatchObject({ value: "42" });
    // A loop never lets the worker read the cancel: it is stopped at once, not at its CPU budget.
    const looping = await sandbox.run(echoJob("for (;;) {}", budgets, { checked: Promise.resolve(false) }));
    expect(looping.failure?.kind).toBe("discarded");
  });
});

describe("runs one after another on one worker", () => {
  it("start from a state no earlier run could touch", { timeout: 60_000 }, async () => {
    // A global, a polluted prototype, a replaced intrinsic, and a call it never awaited.
    const first = await sandbox.run(
      echoJob(
        `globalThis.left = 1; Object.prototype.polluted = 1; JSON.parse = () => 0;\n` +
          `services.svc.echo({ body: 1 }).then(() => { globalThis.late = 1; });\nreturn 1;`,
        budgets,
      ),
    );
    expect(first).toMatchObject({ value: "1" });
    const second = await sandbox.run(
      echoJob(
        `const r = await services.svc.echo({ body: 2 });\n` +
          `return [typeof left, typeof late, ({}).polluted, JSON.parse("3"), r.init.body];`,
        budgets,
      ),
    );
    expect(second).toMatchObject({ value: '["undefined","undefined",null,3,2]' });
  });

  it("go on on a new worker when one ended between runs", { timeout: 60_000 }, async () => {
    const workers = (sandbox as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> }).slots;
    await Promise.all(workers.map((slot) => slot.worker.terminate()));
    const outcome = await sandbox.run(echoJob(`return (await services.svc.echo({ body: 5 })).init.body;`, budgets));
    expect(outcome).toMatchObject({ value: "5", calls: 1 });
  });

  it("get their services and budgets once per worker, and new ones when they change", {
    timeout: 60_000,
  }, async () => {
    const slot = () =>
      (sandbox as unknown as { slots: Array<{ setups: number; dead: boolean }> }).slots.find((s) => !s.dead)!;
    await sandbox.run(echoJob(`return 1;`, budgets));
    const before = slot().setups;
    await sandbox.run(echoJob(`return 2;`, budgets));
    expect(slot().setups).toBe(before);
    const other = [{ id: "other", methods: ["echo", "again"] }];
    const renamed = await sandbox.run(
      echoJob(`return Object.keys(services).join() + ":" + Object.keys(services.other).join();`, budgets, {
        shape: other,
      }),
    );
    expect(renamed).toMatchObject({ value: '"other:echo,again"' });
    expect(slot().setups).toBe(before + 1);
    const fewer = await sandbox.run(
      echoJob(`await services.svc.echo({}); await services.svc.echo({}); return 1;`, { ...budgets, calls: 1 }),
    );
    expect(fewer.failure?.kind).toBe("calls");
  });
});
