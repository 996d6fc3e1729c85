import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import type { DueDatePollSpec, FeedPollSpec } from "../../runtime/triggers/extension.js";
import { FileStateStore } from "../../runtime/state/file.js";
import { MemoryStateStore } from "../../runtime/state/memory.js";
import { FakeClock } from "../../runtime/state/types.js";
import { pollDueDates, pollFeed, releasePollLease, type ListFn } from "../../runtime/triggers/pollers.js";
import type { TriggerEvent } from "../../runtime/triggers/router.js";
import { BOARD } from "./fixtures.js";

const due = triggers.triggers.find((t) => t.name === "trello_card_due_date_reminder") as DueDatePollSpec;
const feed = triggers.triggers.find((t) => t.name === "trello_new_notification") as FeedPollSpec;
const dir = mkdtempSync(join(tmpdir(), "stepforge-poll-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
const cards = (events: TriggerEvent[]) => events.map((e) => e.refs.card?.id);
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
  const config = { trigger: due.name, connection: "work", scope: { board: [BOARD] }, options: { minutesBefore: 60 } };

  it("fires once per card and due date when the reminder time comes, via the spec's list operation", async () => {
    const b = board([
      { id: "c1", name: "Report", due: new Date(T0 + 3 * HOUR).toISOString(), dueComplete: false, closed: false },
    ]);
    const store = new MemoryStateStore();
    expect(await pollDueDates(triggers, due, config, b.list, store, { now: T0 })).toEqual([]); // 3 h away, lead 1 h
    const fired = await pollDueDates(triggers, due, config, b.list, store, { now: T0 + 2 * HOUR + 1 });
    expect(fired.map((e) => [e.trigger, e.refs.card?.id, e.refs.board?.id])).toEqual([[due.name, "c1", BOARD]]);
    expect(await pollDueDates(triggers, due, config, b.list, store, { now: T0 + 2.5 * HOUR })).toEqual([]); // once only
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
    expect(cards(await pollDueDates(triggers, due, config, b.list, store, { now: T0 }))).toEqual(["c1"]);
    b.cards[0]!.due = new Date(T0 + 50 * 60_000).toISOString();
    expect(cards(await pollDueDates(triggers, due, config, b.list, store, { now: T0 + 60_000 }))).toEqual(["c1"]);
    expect(await pollDueDates(triggers, due, config, b.list, store, { now: T0 + 120_000 })).toEqual([]);
  });

  it("what has fired survives a restart (file store, owner-only)", async () => {
    const path = join(dir, "due.json");
    const b = board([{ id: "c1", due: new Date(T0 + 30 * 60_000).toISOString() }]);
    const before = new FileStateStore(path);
    expect(await pollDueDates(triggers, due, config, b.list, before, { now: T0 })).toHaveLength(1);
    expect(statSync(path).mode & 0o777).toBe(0o700);
    await releasePollLease(before, triggers, config); // a clean stop hands the trigger on at once
    const after = new FileStateStore(path);
    const asked = b.calls.length;
    expect(await pollDueDates(triggers, due, config, b.list, after, { now: T0 + 60_000 })).toEqual([]);
    expect(b.calls.length).toBe(asked + 1); // it did poll (it was not skipped), and nothing fired twice
  });
});

describe("New Notification (polling)", () => {
  const config = { trigger: feed.name, connection: "work", options: {} };
  const note = (id: string, type = "commentCard") => ({
    id,
    type,
    date: "2026-11-21T09:00:00.000Z",
    unread: true,
    card: { id: "c1", name: "Report" },
    board: { id: BOARD, name: "Roadmap" },
  });

  it("does not replay history when first enabled, then fires once per new notification, oldest first", async () => {
    let items = [note("n3"), note("n2"), note("n1")];
    const calls: Array<Record<string, string>> = [];
    const list: ListFn = async (op, path) => {
      calls.push(path);
      expect(op).toBe("getMemberNotifications");
      return items;
    };
    const store = new MemoryStateStore();
    expect(await pollFeed(triggers, feed, config, list, store)).toEqual([]);
    items = [note("n5", "addedToCard"), note("n4"), ...items];
    const fired = await pollFeed(triggers, feed, config, list, store);
    expect(fired.map((e) => [e.eventId, e.type])).toEqual([
      ["n4", "commentCard"],
      ["n5", "addedToCard"],
    ]);
    expect(await pollFeed(triggers, feed, config, list, store)).toEqual([]);
    expect(calls[0]).toEqual({ id: "me" });
  });

  it("asks only for items newer than the last one seen when the spec names a sinceParam", async () => {
    const queries: Array<Record<string, string> | undefined> = [];
    const list: ListFn = async (_op, _path, query) => {
      queries.push(query);
      return [note("s2"), note("s1")];
    };
    const store = new MemoryStateStore();
    await pollFeed(triggers, { ...feed, sinceParam: "since" }, config, list, store);
    await pollFeed(triggers, { ...feed, sinceParam: "since" }, config, list, store);
    expect(queries).toEqual([undefined, { since: "s2" }]);
    await pollFeed(triggers, feed, { ...config, connection: "other" }, list, new MemoryStateStore());
    await pollFeed(triggers, feed, { ...config, connection: "other" }, list, store);
    expect(queries.slice(2)).toEqual([undefined, undefined]);
  });

  it("its position survives a restart", async () => {
    const path = join(dir, "feed.json");
    let items = [note("a2"), note("a1")];
    const list: ListFn = async () => items;
    const first = new FileStateStore(path);
    await pollFeed(triggers, feed, config, list, first);
    await releasePollLease(first, triggers, config);
    items = [note("a3"), ...items];
    const second = new FileStateStore(path);
    expect((await pollFeed(triggers, feed, config, list, second)).map((e) => e.eventId)).toEqual(["a3"]);
    expect(await pollFeed(triggers, feed, config, list, second)).toEqual([]);
  });
});

describe("one worker polls a trigger's boards at a time (a lease in the state layer)", () => {
  const config = { trigger: feed.name, connection: "work", options: {} };
  const note = (id: string) => ({
    id,
    type: "commentCard",
    date: "2026-11-21T09:00:00.000Z",
    card: { id: "c1" },
    board: { id: BOARD },
  });

  it(
    "two workers on one state folder: the lease holder polls, the other skips; each event " +
      "fires once; a dead holder's lease passes on",
    async () => {
      const path = mkdtempSync(join(tmpdir(), "stepforge-lease-"));
      const clock = new FakeClock(T0);
      const a = new FileStateStore(path, { clock });
      const b = new FileStateStore(path, { clock });
      let items = [note("n1")];
      const polled: string[] = [];
      const lister =
        (who: string): ListFn =>
        async () => {
          polled.push(who);
          return items;
        };
      const fired: string[] = [];
      const round = async () => {
        const [ea, eb] = await Promise.all([
          pollFeed(triggers, feed, config, lister("a"), a, { leaseMs: 60_000 }),
          pollFeed(triggers, feed, config, lister("b"), b, { leaseMs: 60_000 }),
        ]);
        fired.push(...ea.map((e) => e.eventId), ...eb.map((e) => e.eventId));
      };
      await round(); // the first poll records the position
      for (let i = 2; i <= 6; i++) {
        items = [note(`n${i}`), ...items];
        clock.advance(10_000);
        await round();
      }
      expect(fired).toEqual(["n2", "n3", "n4", "n5", "n6"]);
      expect(new Set(polled).size).toBe(1); // only one of them ever asked the service
      const holder = polled[0]!;
      // The holder dies (stops polling). Its lease lapses; the other takes over from the cursor, no replay.
      const survivor = holder === "a" ? b : a;
      items = [note("n7"), ...items];
      clock.advance(30_000);
      expect(await pollFeed(triggers, feed, config, lister("survivor"), survivor)).toEqual([]); // still leased
      clock.advance(31_000);
      const taken = await pollFeed(triggers, feed, config, lister("survivor"), survivor);
      expect(taken.map((e) => e.eventId)).toEqual(["n7"]);
      rmSync(path, { recursive: true, force: true });
    },
  );

  it("a worker that lost its lease mid-poll cannot write an older cursor over a newer one", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryStateStore(clock);
    let items = [note("m1")];
    await pollFeed(triggers, feed, config, async () => items, store, { leaseMs: 1_000 });
    items = [note("m2"), ...items];
    // The poll stalls past its lease; meanwhile another worker (same store) takes the lease and moves on.
    let resume!: () => void;
    let listing!: () => void;
    const listed = new Promise<void>((r) => (listing = r));
    const stalled = pollFeed(
      triggers,
      feed,
      config,
      async () => {
        listing();
        await new Promise<void>((r) => (resume = r));
        return items;
      },
      store,
      { leaseMs: 1_000 },
    );
    await listed;
    clock.advance(2_000);
    await releasePollLease(store, triggers, config); // forget our grant, as another process would not have it
    const taken = await pollFeed(triggers, feed, config, async () => items, store, { leaseMs: 60_000 });
    expect(taken.map((e) => e.eventId)).toEqual(["m2"]);
    resume();
    expect(await stalled).toEqual([]); // its write was refused by the fence: no duplicate m2
  });
});
