/**
 * The evaluation harness (test/code/harness): twelve multi-step tasks over the mocks of the four
 * services and of a service generated from a spec of its own, each done three ways through a real
 * MCP client: direct tools, dynamic meta-tools and code mode. Every run must leave the mocks in
 * the state the task asks for; code mode must read at most a fifth of the bytes direct tools read.
 * bench/code-mode.ts prints the same rows as a table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHarness, startHarness, table, TASKS, type Harness, type Row } from "./harness/run.js";

let harness: Harness;
let rows: Row[];

beforeAll(async () => {
  harness = await startHarness();
  rows = await runHarness(harness);
}, 300_000);
afterAll(async () => harness?.close());

describe("evaluation harness", () => {
  it("has at least ten multi-step tasks across the four services and a foreign one", () => {
    expect(TASKS.length).toBeGreaterThanOrEqual(10);
    const services = new Set(TASKS.flatMap((t) => t.services));
    for (const s of ["trello", "marketo", "contentsnare", "worldnews", "todo"]) expect(services).toContain(s);
  });

  it("every task is done right in every mode", () => {
    const wrong = rows.filter((r) => !r.correct).map((r) => `${r.task} (${r.mode}): ${r.problems.join("; ")}`);
    expect(wrong, table(rows)).toEqual([]);
  });

  it("code mode reads at most 20% of the bytes direct tools read, with fewer calls", () => {
    const total = (mode: string, f: (r: Row) => number) =>
      rows.filter((r) => r.mode === mode).reduce((n, r) => n + f(r), 0);
    expect(total("code", (r) => r.bytes) / total("direct", (r) => r.bytes), table(rows)).toBeLessThanOrEqual(0.2);
    expect(total("code", (r) => r.calls)).toBeLessThan(total("direct", (r) => r.calls));
    for (const task of TASKS) {
      const [direct, code] = ["direct", "code"].map((m) => rows.find((r) => r.task === task.id && r.mode === m)!);
      expect(code!.bytes, task.id).toBeLessThan(direct!.bytes);
    }
  });
});
