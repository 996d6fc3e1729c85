import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import type { DueDatePollSpec, FeedPollSpec } from "../../runtime/triggers/model.js";
import { FileStateStore, MemoryStateStore, pollDueDates, pollFeed, type ListFn } from "../../runtime/triggers/pollers.js";
import { BOARD } from "./fixtures.js";

const due = triggers.triggers.find((t) => t.name === "trello_card_due_date_reminder") as DueDatePollSpec;
const feed = triggers.triggers.find((t) => t.name === "trello_new_notification") as FeedPollSpec;
const dir = mkdtempSync(join(tmpdir(), "stepforge-poll-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
const T0 = Date.parse("2026-11-21T08:00:00.000Z");

/** A board whose cards the test changes between polls; records what was asked. */
function board(cards: Array<Record<string, unknown>>) {
  const calls: Array<[string, Record<string, string>]> = [];
  const list: ListFn = async (operationId, path) => {
    calls.push([operationId, path]);
    return path.id === BOARD ? cards.map((c) => ({ ...c })) : [];
  };
  return { list, calls, cards };
}

describe("Card Due Date Reminder (polling)", () => {
  const config = { trigger: due.name, connection: "work", boards: [BOARD], options: { minutesBefore: 60 } };

  it("fires once per card and due date when the reminder time comes, via the spec's list operation", async () => {
    const b = board([{ id: "c1", name: "Report", due: new Date(T0 + 3 * HOUR).toISOString(), dueComplete: false, closed: false }]);
    const store = new MemoryStateStore();
    expect(await pollDueDates(due, config, b.list, store, T0)).toEqual([]); // 3 h away, lead 1 h
    const fired = await pollDueDates(due, config, b.list, store, T0 + 2 * HOUR + 1);
    expect(fired.map((e) => [e.trigger, e.card?.id, e.board?.id])).toEqual([[due.name, "c1", BOARD]]);
    expect(await pollDueDates(due, config, b.list, store, T0 + 2.5 * HOUR)).toEqual([]); // once only
    expect(b.calls[0]).toEqual(["getBoardCards", { id: BOARD }]);
  });

  it("a changed due date fires again; completed, archived and already-past cards do not", async () => {
    const b = board([
      { id: "c1", due: new Date(T0 + 30 * 60_000).toISOString() },
      { id: "done", due: new Date(T0 + 10 * 60_000).toISOString(), dueComplete: true },
      { id: "archived", due: new Date(T0 + 10 * 60_000).toISOString(), closed: true },
      { id: "past", due: new Date(T0 - HOUR).toISOString() },
      { id: "nodue", due: null },
    ]);
    const store = new MemoryStateStore();
    expect((await pollDueDates(due, config, b.list, store, T0)).map((e) => e.card?.id)).toEqual(["c1"]);
    b.cards[0]!.due = new Date(T0 + 50 * 60_000).toISOString();
    expect((await pollDueDates(due, config, b.list, store, T0 + 60_000)).map((e) => e.card?.id)).toEqual(["c1"]);
    expect(await pollDueDates(due, config, b.list, store, T0 + 120_000)).toEqual([]);
  });

  it("what has fired survives a restart (file store, owner-only)", async () => {
    const path = join(dir, "due.json");
    const b = board([{ id: "c1", due: new Date(T0 + 30 * 60_000).toISOString() }]);
    expect(await pollDueDates(due, config, b.list, new FileStateStore(path), T0)).toHaveLength(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await pollDueDates(due, config, b.list, new FileStateStore(path), T0 + 60_000)).toEqual([]);
  });
});

describe("New Notification (polling)", () => {
  const config = { trigger: feed.name, connection: "work", boards: [], options: {} };
  const note = (id: string, type = "commentCard") => ({ id, type, date: "2026-11-21T09:00:00.000Z", unread: true, card: { id: "c1", name: "Report" }, board: { id: BOARD, name: "Roadmap" } });

  it("does not replay history when first enabled, then fires once per new notification, oldest first", async () => {
    let items = [note("n3"), note("n2"), note("n1")];
    const calls: Array<Record<string, string>> = [];
    const list: ListFn = async (op, path) => {
      calls.push(path);
      expect(op).toBe("getMemberNotifications");
      return items;
    };
    const store = new MemoryStateStore();
    expect(await pollFeed(feed, config, list, store)).toEqual([]);
    items = [note("n5", "addedToCard"), note("n4"), ...items];
    const fired = await pollFeed(feed, config, list, store);
    expect(fired.map((e) => [e.eventId, e.type])).toEqual([["n4", "commentCard"], ["n5", "addedToCard"]]);
    expect(await pollFeed(feed, config, list, store)).toEqual([]);
    expect(calls[0]).toEqual({ id: "me" });
  });

  it("asks only for items newer than the last one seen when the spec names a sinceParam", async () => {
    const queries: Array<Record<string, string> | undefined> = [];
    const list: ListFn = async (_op, _path, query) => {
      queries.push(query);
      return [note("s2"), note("s1")];
    };
    const store = new MemoryStateStore();
    await pollFeed({ ...feed, sinceParam: "since" }, config, list, store);
    await pollFeed({ ...feed, sinceParam: "since" }, config, list, store);
    expect(queries).toEqual([undefined, { since: "s2" }]);
    await pollFeed(feed, { ...config, connection: "other" }, list, new MemoryStateStore());
    await pollFeed(feed, { ...config, connection: "other" }, list, store);
    expect(queries.slice(2)).toEqual([undefined, undefined]);
  });

  it("its position survives a restart", async () => {
    const path = join(dir, "feed.json");
    let items = [note("a2"), note("a1")];
    const list: ListFn = async () => items;
    await pollFeed(feed, config, list, new FileStateStore(path));
    items = [note("a3"), ...items];
    expect((await pollFeed(feed, config, list, new FileStateStore(path))).map((e) => e.eventId)).toEqual(["a3"]);
    expect(await pollFeed(feed, config, list, new FileStateStore(path))).toEqual([]);
  });
});
