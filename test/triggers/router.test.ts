import { describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import { createWebhookReceiver, signPayload } from "../../runtime/triggers/receiver.js";
import { TriggersExtensionSchema } from "../../runtime/triggers/extension.js";
import {
  createTriggerRouter,
  TriggerConfigError,
  validateConfig,
  type TriggerEvent,
} from "../../runtime/triggers/router.js";
import { BOARD, card, CARD, delivery, LIST_A, LIST_B, OTHER_BOARD } from "./fixtures.js";

const webhookTriggers = triggers.triggers.filter((t) => t.kind === "webhook");
const config = (trigger: string, options: Record<string, unknown> = {}, boards = [BOARD]) => ({
  trigger,
  connection: "work",
  scope: boards.length ? { board: boards } : {},
  options,
});

/** One delivery per webhook trigger, as Trello sends it. */
const CASES: Record<string, ReturnType<typeof delivery>> = {
  trello_new_card: delivery("createCard", { list: { id: LIST_A, name: "To do" }, card }),
  trello_card_updated: delivery("updateCard", {
    list: { id: LIST_A },
    card: { ...card, name: "Renamed" },
    old: { name: "Write the report" },
  }),
  trello_card_moved: delivery("updateCard", {
    listBefore: { id: LIST_A, name: "To do" },
    listAfter: { id: LIST_B, name: "Done" },
    card: { ...card, idList: LIST_B },
    old: { idList: LIST_A },
  }),
  trello_card_archived: delivery("updateCard", {
    list: { id: LIST_A },
    card: { ...card, closed: true },
    old: { closed: false },
  }),
  trello_new_comment_added_to_card: delivery("commentCard", { list: { id: LIST_A }, card, text: "Looks good" }),
  trello_new_member_on_card: delivery(
    "addMemberToCard",
    { card, idMember: "5a0000000000000000000002" },
    { member: { id: "5a0000000000000000000002", fullName: "Grace Hopper" } },
  ),
  trello_new_label_created: delivery("createLabel", {
    label: { id: "6000000000000000000000l1", name: "urgent", color: "red" },
  }),
  trello_new_label_added_to_card: delivery("addLabelToCard", {
    card,
    label: { id: "6000000000000000000000l1", name: "urgent", color: "red" },
    value: "red",
    text: "urgent",
  }),
  trello_new_checklist: delivery("addChecklistToCard", {
    card,
    checklist: { id: "6000000000000000000000c1", name: "Steps" },
  }),
  trello_new_board: delivery("createBoard", {}),
  trello_new_attachment: delivery("addAttachmentToCard", {
    card,
    attachment: { id: "6000000000000000000000a1", name: "spec.pdf", url: "https://example.com/spec.pdf" },
  }),
  trello_new_board_activity: delivery("updateList", {
    list: { id: LIST_A, name: "Doing" },
    old: { name: "In progress" },
  }),
  trello_custom_webhook_events: delivery("createCheckItem", {
    card,
    checkItem: { id: "6000000000000000000000i1", name: "Draft" },
  }),
};

describe("trigger routing", () => {
  it("covers every webhook trigger the spec declares", () => {
    expect(Object.keys(CASES).sort()).toEqual(webhookTriggers.map((t) => t.name).sort());
  });

  it.each(Object.entries(CASES))("%s fires once on its own event with a normalised event", (name, payload) => {
    const router = createTriggerRouter(triggers, [config(name, {}, name === "trello_new_board" ? [] : [BOARD])]);
    const [event, ...more] = router.route(payload);
    expect(more).toEqual([]);
    expect(event).toMatchObject<Partial<TriggerEvent>>({
      trigger: name,
      connection: "work",
      eventId: payload.action.id,
      type: payload.action.type,
      time: payload.action.date,
    });
    expect(event!.refs.board).toEqual({ id: BOARD, name: "Roadmap" });
    expect(event!.raw).toEqual(payload.action);
    if ("card" in payload.action.data) expect(event!.refs.card?.id).toBe(CARD);
  });

  it("each instant trigger ignores the other triggers' events", () => {
    const configs = webhookTriggers.map((t) => config(t.name, {}, t.scope === "member" ? [] : [BOARD]));
    const router = createTriggerRouter(triggers, configs);
    const fired = (name: string) =>
      router
        .route(CASES[name])
        .map((e) => e.trigger)
        .filter((t) => t !== "trello_new_board_activity" && t !== "trello_custom_webhook_events");
    expect(fired("trello_new_card")).toEqual(["trello_new_card"]);
    // A move is an update too (Card Updated covers "any property, moves included"), but not an archive.
    expect(fired("trello_card_moved").sort()).toEqual(["trello_card_moved", "trello_card_updated"]);
    expect(fired("trello_card_archived").sort()).toEqual(["trello_card_archived", "trello_card_updated"]);
    expect(fired("trello_new_comment_added_to_card")).toEqual(["trello_new_comment_added_to_card"]);
    expect(fired("trello_new_label_created")).toEqual(["trello_new_label_created"]);
  });

  it("fires only for the boards a trigger is configured for", () => {
    const router = createTriggerRouter(triggers, [config("trello_new_card")]);
    expect(router.route(delivery("createCard", { card, list: { id: LIST_A } }, {}, OTHER_BOARD))).toEqual([]);
    expect(router.route(delivery("createCard", { card, list: { id: LIST_A } }))).toHaveLength(1);
  });

  it("applies option filters: lists for moves, activity types, custom filter combinations", () => {
    const moved = createTriggerRouter(triggers, [config("trello_card_moved", { lists: [LIST_B] })]);
    expect(moved.route(CASES.trello_card_moved)).toHaveLength(1);
    expect(moved.route(delivery("updateCard", { listBefore: { id: "x" }, listAfter: { id: "y" }, card }))).toEqual([]);

    const activity = createTriggerRouter(triggers, [
      config("trello_new_board_activity", { activityTypes: ["commentCard"] }),
    ]);
    expect(activity.route(CASES.trello_new_comment_added_to_card)).toHaveLength(1);
    expect(activity.route(CASES.trello_new_card)).toEqual([]);

    const custom = createTriggerRouter(triggers, [
      config("trello_custom_webhook_events", {
        eventTypes: ["createCard", "updateCard"],
        lists: [LIST_A],
        cards: [CARD],
      }),
    ]);
    expect(custom.route(CASES.trello_new_card)).toHaveLength(1);
    expect(custom.route(CASES.trello_new_comment_added_to_card)).toEqual([]); // wrong type
    expect(custom.route(delivery("createCard", { list: { id: LIST_B }, card }))).toEqual([]); // wrong list
    const otherCard = { ...card, id: "other" };
    expect(custom.route(delivery("createCard", { list: { id: LIST_A }, card: otherCard }))).toEqual([]); // wrong card
  });

  it("a repeated move delivery fires Card Moved once (the double-fire others report)", async () => {
    const events: TriggerEvent[] = [];
    const router = createTriggerRouter(triggers, [config("trello_card_moved")]);
    const receiver = createWebhookReceiver({
      secret: "s3cret-value",
      callbackUrl: "https://h.example.com/t",
      delivery: triggers.delivery,
      onDelivery: (p) => void events.push(...router.route(p)),
    });
    const body = JSON.stringify(CASES.trello_card_moved);
    const sig = signPayload("s3cret-value", triggers.delivery, body, "https://h.example.com/t");
    for (let i = 0; i < 3; i++)
      await receiver.handle({ method: "POST", headers: { "x-trello-webhook": sig }, body: Buffer.from(body) });
    expect(events).toHaveLength(1);
  });

  it("configuration errors name the field and the fix", () => {
    const check = (config: Record<string, unknown>) => () => validateConfig(triggers, { connection: "w", ...config });
    const boards = { board: [BOARD] };
    const unknown = /unknown trigger "trello_new_cards"; use one of trello_new_card/;
    expect(check({ trigger: "trello_new_cards", scope: boards })).toThrow(unknown);
    const empty = /scope\.board: give a list of at least one value; it holds: Board ids/;
    expect(check({ trigger: "trello_new_card", scope: { board: [] } })).toThrow(empty);
    expect(check({ trigger: "trello_new_card" })).toThrow(/scope\.board: give a list of at least one value/);
    // The configuration of before the scopes says where its boards go now.
    expect(check({ trigger: "trello_new_card", boards: [BOARD] })).toThrow(/"boards".*give its values as scope\.board/);
    const list = /scoped by "board": give its values as scope\.board/;
    expect(check({ trigger: "trello_new_card", scope: { list: [BOARD] } })).toThrow(list);
    const typo = { activityTypes: ["createCrad"] };
    expect(check({ trigger: "trello_new_board_activity", scope: boards, options: typo })).toThrow(TriggerConfigError);
    expect(check({ trigger: "trello_card_moved", scope: boards, options: { colour: 1 } })).toThrow(/options/);
    expect(() => createTriggerRouter(triggers, [config("trello_new_notification", {}, [])])).toThrow(/polling trigger/);
  });

  it("a scope's declared default stands in for values a configuration leaves out", () => {
    const board = { ...triggers.scopes.board!, default: [BOARD] };
    const withDefault = { ...triggers, scopes: { ...triggers.scopes, board } };
    const router = createTriggerRouter(withDefault, [{ trigger: "trello_new_card", connection: "work" }]);
    expect(router.route(delivery("createCard", { card, list: { id: LIST_A } }))).toHaveLength(1);
    expect(router.route(delivery("createCard", { card, list: { id: LIST_A } }, {}, OTHER_BOARD))).toEqual([]);
  });

  it(
    "fills an option the configuration leaves out with its declared default, and refuses " +
      "a default of the wrong type",
    () => {
      const reminder = { trigger: "trello_card_due_date_reminder", connection: "w", scope: { board: [BOARD] } };
      const due = validateConfig(triggers, reminder);
      expect(due.options).toEqual({ minutesBefore: 60 });
      const five = validateConfig(triggers, { ...reminder, options: { minutesBefore: 5 } });
      expect(five.options).toEqual({ minutesBefore: 5 });
      const option = (o: Record<string, unknown>) =>
        TriggersExtensionSchema.shape.triggers.element.safeParse({
          ...triggers.triggers.find((t) => t.name === "trello_card_moved"),
          options: { lists: { description: "d", ...o } },
        });
      const listed = option({ type: "string-list", default: ["6000000000000000000000b1"] });
      expect(listed.success).toBe(true);
      const moved = { ...triggers, triggers: [listed.data!] };
      expect(validateConfig(moved, config("trello_card_moved")).options).toEqual({
        lists: ["6000000000000000000000b1"],
      });
      expect(option({ type: "string-list", default: 5 }).error?.issues[0]).toMatchObject({
        path: ["options", "lists", "default"],
        message: expect.stringMatching(/a list of strings for a list option/),
      });
      expect(option({ type: "enum-list", values: ["a", "b"], default: ["c"] }).error?.issues[0]?.message).toMatch(
        /must be one of its `values`/,
      );
    },
  );
});
