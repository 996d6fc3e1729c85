/**
 * Honest outcomes for writes: a create that is not idempotent and whose answer was lost after it
 * was sent (too slow, dropped, a 502) may have been applied. The step says so (outcome "unknown"),
 * does not call it retryable, and names the read step, filled with what was sent, that shows
 * whether it was applied; following that advice finds the record instead of making a second one.
 */
import { afterAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { executeTool, type ToolDefinition, type ToolResult } from "../../runtime/tools/index.js";
import { tools as contentsnareTools } from "../../generated/contentsnare/tools.js";
import { tools as marketoTools } from "../../generated/marketo/tools.js";
import { tools as trelloTools } from "../../generated/trello/tools.js";
import { LIST, MARKETO, TRELLO } from "../mock/helpers.js";

const open: RunningMock[] = [];
afterAll(async () => Promise.all(open.splice(0).map((m) => m.close())));

const step = (tools: readonly ToolDefinition[], name: string) => tools.find((t) => t.name === name)!;
const createCard = step(trelloTools, "trello_create_card");

/**
 * A mock of `service` with `faults`, and a step context for it: 1 s per attempt (room for a busy
 * machine to apply a write before its answer is cut), `attempts` retries.
 */
async function mockWith(
  service: string,
  fields: Record<string, string>,
  attempts: number,
  faults: Parameters<typeof startMock>[1],
) {
  const mock = await startMock(service, faults);
  open.push(mock);
  const context = {
    connection: { name: service[0]!, fields: { ...fields } },
    baseUrl: mock.url,
    shared: createSharedState(),
    retry: { attempts, baseDelayMs: 1, timeoutMs: 1_000 },
  };
  return { mock, context };
}

const trelloWith = (faults: Parameters<typeof startMock>[1]) => mockWith("trello", TRELLO, 2, faults);

/** Runs the check a result names, as an agent would, and returns the records that match. */
async function followCheck(
  result: ToolResult,
  tools: readonly ToolDefinition[],
  context: Parameters<typeof executeTool>[2],
): Promise<unknown[]> {
  if (result.ok || !result.error.check) throw new Error("no check to follow");
  const { check } = result.error;
  const read = await executeTool(step(tools, check.step), check.input, context);
  if (!read.ok) throw new Error(`check failed: ${read.error.message}`);
  const data = read.data as Record<string, unknown>;
  const records = (Array.isArray(data.items) ? data.items : Array.isArray(data.result) ? data.result : [data]) as Array<
    Record<string, unknown>
  >;
  return records.filter((r) =>
    Object.entries(check.match).every(([field, want]) => (Array.isArray(want) ? want : [want]).includes(r[field])),
  );
}

describe("a write whose answer was lost", () => {
  it(
    "a create that timed out after the service applied it: outcome unknown, not " +
      "retryable, and the check finds the card",
    async () => {
      const { mock, context } = await trelloWith({
        faults: { seed: 1, slowBody: { rate: 1, delayMs: 100, chunkBytes: 4 }, operations: ["createCard"] },
      });
      const before = mock.records("card").length;
      const result = await executeTool(createCard, { idList: LIST, name: "lost answer card" }, context);
      expect(result).toMatchObject({
        ok: false,
        error: {
          kind: "timeout",
          retryable: false,
          outcome: "unknown",
          check: { step: "trello_get_list_cards", input: { id: LIST }, match: { name: "lost answer card" } },
        },
      });
      if (result.ok) return;
      expect(result.error.message).toMatch(
        joinedPattern([
          /may or may not have been applied\. Do not call trello_create_card again yet: /,
          /first call trello_get_list_cards with \{"id":"[0-9a-f]{24}"\} /,
          /and look for a record with name = "lost answer card"/,
        ]),
      );
      // The runtime did not resend it, and the check shows the one card it made.
      expect(mock.records("card").length).toBe(before + 1);
      expect(await followCheck(result, trelloTools, context)).toHaveLength(1);
    },
  );

  it("a create whose connection was dropped: outcome unknown; a create that never left: retryable", async () => {
    const { context } = await trelloWith({ faults: { seed: 2, drop: { rate: 1 }, operations: ["createCard"] } });
    const dropped = await executeTool(createCard, { idList: LIST, name: "dropped card" }, context);
    expect(dropped).toMatchObject({
      ok: false,
      error: { kind: "network", retryable: false, outcome: "unknown", check: { step: "trello_get_list_cards" } },
    });

    // Nothing listens on the address: the request was never sent, so repeating it is safe.
    const closed = await startMock("trello");
    const url = closed.url;
    await closed.close();
    const refused = await executeTool(
      createCard,
      { idList: LIST, name: "never sent" },
      { ...context, baseUrl: url, retry: { attempts: 0 } },
    );
    expect(refused).toMatchObject({ ok: false, error: { kind: "network", retryable: true } });
    if (!refused.ok) expect(refused.error.outcome).toBeUndefined();
  });

  it("a create answered 502: outcome unknown; an idempotent read that timed out stays retryable", async () => {
    const { context } = await trelloWith({
      faults: { seed: 3, error: { rate: 1, statuses: [502] }, operations: ["createCard", "getListCards"] },
    });
    const failed = await executeTool(createCard, { idList: LIST, name: "502 card" }, context);
    expect(failed).toMatchObject({ ok: false, error: { kind: "server", retryable: false, outcome: "unknown" } });
    const read = await executeTool(step(trelloTools, "trello_get_list_cards"), { id: LIST }, context);
    expect(read).toMatchObject({ ok: false, error: { kind: "server", retryable: true } });
    if (!read.ok) expect(read.error.outcome).toBeUndefined();
  });

  it("Marketo: a lost createOnly sync names marketo_get_leads with the e-mails sent", async () => {
    const { context } = await mockWith("marketo", MARKETO, 1, {
      faults: { seed: 4, slowBody: { rate: 1, delayMs: 100, chunkBytes: 4 }, operations: ["syncLeads"] },
    });
    const result = await executeTool(
      step(marketoTools, "marketo_sync_leads"),
      { action: "createOnly", input: [{ email: "lost.one@example.com" }, { email: "lost.two@example.com" }] },
      context,
    );
    expect(result).toMatchObject({
      ok: false,
      error: {
        outcome: "unknown",
        retryable: false,
        check: {
          step: "marketo_get_leads",
          input: { filterType: "email", filterValues: ["lost.one@example.com", "lost.two@example.com"] },
          match: { email: ["lost.one@example.com", "lost.two@example.com"] },
        },
      },
    });
    expect(await followCheck(result, marketoTools, context)).toHaveLength(2);
  });

  it(
    "every non-idempotent write that creates something declares a check naming a " + "read-only step of its service",
    () => {
      for (const tools of [trelloTools, marketoTools, contentsnareTools]) {
        for (const t of tools) {
          if (!t.check) continue;
          const read = step(tools, t.check.step);
          expect(read, t.name).toBeDefined();
          expect(read.annotations.readOnlyHint, `${t.name} → ${t.check.step}`).toBe(true);
          expect(t.annotations.idempotentHint, t.name).toBe(false);
        }
      }
      // Every declared check fits both steps: its input fields are the read step's, its paths start at the write's
      // fields.
      for (const tools of [trelloTools, marketoTools, contentsnareTools]) {
        for (const t of tools) {
          if (!t.check) continue;
          const read = step(tools, t.check.step);
          const head = (path: string) => path.split(/[.[]/)[0]!;
          for (const [field, from] of Object.entries(t.check.input)) {
            expect(Object.keys(read.input.shape), `${t.name} check input ${field}`).toContain(field);
            if (typeof from === "string")
              expect(Object.keys(t.input.shape), `${t.name} check input ${field} ← ${from}`).toContain(head(from));
          }
          for (const from of Object.values(t.check.match))
            expect(Object.keys(t.input.shape), `${t.name} check match ← ${from}`).toContain(head(from));
        }
      }
      for (const name of [
        "trello_create_card",
        "trello_add_comment_to_card",
        "trello_create_board",
        "trello_create_list",
        "trello_create_label",
        "trello_add_checklist",
        "trello_create_checklist_item",
      ]) {
        expect(step(trelloTools, name).check, name).toBeDefined();
      }
    },
  );
});
