/**
 * The sandbox attack suite (attacks.ts) through a real MCP client against code mode: every attack
 * is contained (its typed failure, or it runs and reaches nothing), no answer carries a credential
 * of the server's accounts, and afterwards the same server still runs code and calls services.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockAccounts } from "../../runtime/mcp/index.js";
import {
  ATTACK_BUDGETS,
  ATTACKED_SERVICES,
  ATTACKS,
  contained,
  describeOutcome,
  executeOutcome,
  KEEPS_SERVING,
  secretValues,
  type Attack,
} from "./attacks.js";
import { mockAccounts, serve, type Served } from "./helpers.js";

let mocks: MockAccounts;
let served: Served;
let secrets: string[];

beforeAll(async () => {
  mocks = await mockAccounts(ATTACKED_SERVICES);
  secrets = secretValues(mocks.accounts);
  served = await serve("code", mocks.accounts, { code: { budgets: ATTACK_BUDGETS } });
}, 120_000);
afterAll(async () => {
  await served?.close();
  await mocks?.close();
});

describe("sandbox attacks", () => {
  it("has secrets to look for", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(2);
  });

  attacksOn(() => served, ATTACKS);
});

/**
 * The sandbox on the server's thread (`sandbox: "inline"`) differs from the workers in how a run is
 * stopped and what a failure leaves behind: the attacks on the budgets and on the engine run there too.
 */
describe("sandbox attacks on the server's thread", () => {
  let inline: Served;
  beforeAll(async () => {
    inline = await serve("code", mocks.accounts, { code: { budgets: ATTACK_BUDGETS, sandbox: "inline" } });
  }, 120_000);
  afterAll(() => inline?.close());
  const stops = new Set(["cpu_time", "memory", "stack", "stalled", "output"]);
  const picked = ATTACKS.filter(
    (a) => [a.expect].flat().some((k) => stops.has(k)) || /WebAssembly|constructor/.test(a.name),
  );
  attacksOn(() => inline, picked);
});

/** A test per attack against the server `served` gives (started in a beforeAll), then one that it still serves. */
function attacksOn(served: () => Served, attacks: Attack[]): void {
  for (const attack of attacks) {
    it(attack.name, { timeout: 60_000 }, async () => {
      const outcome = await executeOutcome(served().client, attack.code);
      expect(contained(attack, outcome), describeOutcome(outcome)).toBe(true);
      for (const secret of secrets) expect(outcome.text).not.toContain(secret);
    });
  }
  it("the server keeps serving: code runs and calls the services after every attack", async () => {
    const outcome = await executeOutcome(served().client, KEEPS_SERVING);
    expect(outcome.isError).toBe(false);
    expect(outcome.body.result).toEqual({ boards: 2, latitude: "number" });
  });
}
