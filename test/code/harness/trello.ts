/**
 * Trello tasks of the harness. The board "Product Roadmap" (spec example) gets an "urgent" label,
 * cards in each list (some urgent, some past due, some about crashes) on top of its examples.
 */
import { callKeeping, type FinalState, type Json, type Seeds, type StepCaller, type Task } from "./types.js";

const BOARD = "60d5ecb74e2a1b3c4d5e6f70";
const TODO = "60d5ecb74e2a1b3c4d5e6f71";
const DOING = "60d5ecb74e2a1b3c4d5e6f72";
const DONE = "60d5ecb74e2a1b3c4d5e6f73";
const BUG = "60d5ecb74e2a1b3c4d5e6f81";
const FEATURE = "60d5ecb74e2a1b3c4d5e6f80";
const URGENT = "60d5ecb74e2a1b3c4d5e6f90";

let n = 0;
const card = (name: string, idList: string, extra: Json = {}): Json => ({
  id: `7000000000000000000000${(++n).toString(16).padStart(2, "0")}`,
  name,
  idList,
  idBoard: BOARD,
  idLabels: [],
  closed: false,
  pos: 16384 * n,
  ...extra,
});

export const TRELLO_SEED: Seeds = {
  trello: {
    records: {
      label: [{ id: URGENT, idBoard: BOARD, name: "urgent", color: "orange" }],
      card: [
        card("Fix login crash", DOING, { idLabels: [URGENT] }),
        card("Update pricing page", DOING),
        card("Patch payment webhook", DOING, { idLabels: [URGENT, BUG] }),
        card("Refresh screenshots", DOING, { idLabels: [FEATURE] }),
        card("Rotate API keys", DOING, { idLabels: [URGENT] }),
        card("Crash on export", TODO),
        card("App crash when offline", TODO),
        card("Write onboarding guide", TODO),
        card("Ship 1.9", DONE, { due: "2024-01-10T12:00:00.000Z" }),
        card("Ship 2.0", DONE, { due: "2099-01-01T12:00:00.000Z" }),
        card("Retro notes", DONE),
      ],
    },
  },
};

type Card = { id: string; name: string; idList: string; idLabels?: string[]; closed?: boolean; due?: string | null };
const cards = (state: FinalState) => state.records("trello", "card") as unknown as Card[];
const named = (state: FinalState, name: string) => cards(state).find((c) => c.name === name);
const comments = (state: FinalState) =>
  (
    state.records("trello", "action") as Array<{ type?: string; data?: { card?: { id?: string }; text?: string } }>
  ).filter((a) => a.type === "commentCard");

/** Cards by name, what each must satisfy, and the problem `<name> <problem>` when one does not. */
type CardRule = [names: string[], holds: (card: Card | undefined) => boolean, problem: string];
const cardProblems = (state: FinalState, rules: CardRule[]): string[] =>
  rules.flatMap(([names, holds, problem]) =>
    names.filter((name) => !holds(named(state, name))).map((name) => `${name} ${problem}`),
  );

type NamedItems = { items: Array<{ id: string; name: string }> };

/**
 * Asks a listing step (boards, a board's lists, labels or cards) for ids and names only; gives the id of
 * the first item with a name.
 */
export async function idsByName(agent: StepCaller, step: string, input: Json = {}): Promise<(name: string) => string> {
  const { items } = await callKeeping<NamedItems>(agent, step, ["id", "name"], input);
  return (name) => items.find((item) => item.name === name)!.id;
}

/**
 * A task on Trello alone: Trello is its one service, and code mode searches Trello once, for
 * `query`, before running `program`.
 */
function trelloTask(task: Omit<Task, "services" | "code"> & { query: string; program: string }): Task {
  const { query, program, ...rest } = task;
  return { ...rest, services: ["trello"], code: { searches: [{ query, service: "trello" }], program } };
}

/**
 * What an agent does for "every card in a list that …": asks for the list's cards (only `fields`),
 * acts on each one `wanted` picks, in turn, and answers with their names.
 */
async function eachCardOfList(
  agent: StepCaller,
  list: string,
  fields: string[],
  wanted: (card: Card) => boolean,
  act: (card: Card) => Promise<unknown>,
): Promise<string[]> {
  const { items } = await callKeeping<{ items: Card[] }>(agent, "trello_get_list_cards", fields, { id: list });
  const names: string[] = [];
  for (const card of items.filter(wanted)) {
    await act(card);
    names.push(card.name);
  }
  return names;
}

export const TRELLO_TASKS: Task[] = [
  trelloTask({
    id: "trello-urgent",
    title: 'Move every card labelled "urgent" from Doing to Done and comment "Moved to Done (urgent)" on each',
    async direct(agent) {
      const board = (await idsByName(agent, "trello_get_boards"))("Product Roadmap");
      const listId = await idsByName(agent, "trello_get_board_lists", { id: board });
      const urgent = (await idsByName(agent, "trello_get_board_labels", { id: board }))("urgent");
      const [doing, done] = [listId("Doing"), listId("Done")];
      return eachCardOfList(
        agent,
        doing,
        ["id", "name", "idLabels"],
        (c) => c.idLabels?.includes(urgent) === true,
        async (c) => {
          await agent.call("trello_update_card", { id: c.id, idList: done });
          await agent.call("trello_add_comment_to_card", { id: c.id, text: "Moved to Done (urgent)" });
        },
      );
    },
    searches: ["boards lists labels", "cards in a list", "update card move", "comment on card"],
    query: "board lists labels cards of a list update card comment",
    program: `const boards = await services.trello.getMemberBoards({
  params: { path: { id: "me" }, query: { fields: "id,name" } } });
const board = boards.find((b) => b.name === "Product Roadmap")!;
const lists = await services.trello.getBoardLists({ params: { path: { id: board.id } } });
const labels = await services.trello.getBoardLabels({ params: { path: { id: board.id } } });
const urgent = labels.find((l) => l.name === "urgent")!.id;
const doing = lists.find((l) => l.name === "Doing")!.id;
const done = lists.find((l) => l.name === "Done")!.id;
const moved: string[] = [];
for (const card of await services.trello.getListCards({ params: { path: { id: doing } } })) {
  if (!card.idLabels?.includes(urgent)) continue;
  await services.trello.updateCard({ params: { path: { id: card.id } }, body: { idList: done } });
  await services.trello.addCommentToCard({
    params: { path: { id: card.id } }, body: { text: "Moved to Done (urgent)" } });
  moved.push(card.name ?? card.id);
}
return moved;`,
    check(state) {
      const urgent = ["Fix login crash", "Patch payment webhook", "Rotate API keys"];
      const moveComments = comments(state).filter((a) => a.data?.text === "Moved to Done (urgent)");
      const onCard = (c: Card | undefined) => moveComments.filter((a) => a.data?.card?.id === c?.id).length;
      const problems = cardProblems(state, [
        [urgent, (c) => c?.idList === DONE, "is not in Done"],
        [urgent, (c) => onCard(c) === 1, "has not exactly one comment"],
        [["Update pricing page", "Refresh screenshots"], (c) => c?.idList === DOING, "moved"],
      ]);
      return moveComments.length === urgent.length ? problems : [...problems, "comments on other cards"];
    },
  }),
  trelloTask({
    id: "trello-archive",
    title: "Archive every card in Done whose due date has passed",
    async direct(agent) {
      const done = (await idsByName(agent, "trello_get_board_lists", { id: BOARD }))("Done");
      return eachCardOfList(
        agent,
        done,
        ["id", "name", "due"],
        (c) => !!c.due && Date.parse(c.due) < Date.now(),
        (c) => agent.call("trello_archive_card", { id: c.id }),
      );
    },
    searches: ["lists of a board", "cards in a list", "archive card"],
    query: "lists of a board cards in a list archive card",
    program: `const lists = await services.trello.getBoardLists({ params: { path: { id: "${BOARD}" } } });
const done = lists.find((l) => l.name === "Done")!.id;
const archived: string[] = [];
for (const card of await services.trello.getListCards({ params: { path: { id: done } } })) {
  if (!card.due || Date.parse(card.due) >= Date.now()) continue;
  await services.trello.updateCard({ params: { path: { id: card.id } }, body: { closed: true } });
  archived.push(card.name ?? card.id);
}
return archived;`,
    check: (state) =>
      cardProblems(state, [
        [["Ship 1.9"], (c) => c?.closed === true, "is not archived"],
        [["Ship 2.0", "Retro notes"], (c) => !c?.closed, "was archived"],
      ]),
  }),
  trelloTask({
    id: "trello-checklist",
    title: 'Add a checklist "Release" with the items Tag, Build and Announce to the card "Rotate API keys"',
    async direct(agent) {
      const target = (await idsByName(agent, "trello_get_board_cards", { id: BOARD }))("Rotate API keys");
      const checklist = await agent.call<{ id: string }>("trello_add_checklist", { idCard: target, name: "Release" });
      for (const item of ["Tag", "Build", "Announce"])
        await agent.call("trello_create_checklist_item", { id: checklist.id, name: item });
      return checklist.id;
    },
    searches: ["cards of a board", "add checklist item"],
    query: "cards of a board add checklist item",
    program: `const cards = await services.trello.getBoardCards({ params: { path: { id: "${BOARD}" } } });
const target = cards.find((c) => c.name === "Rotate API keys")!;
const checklist = await services.trello.createChecklist({ body: { idCard: target.id, name: "Release" } });
for (const name of ["Tag", "Build", "Announce"]) {
  await services.trello.createChecklistItem({ params: { path: { id: checklist.id } }, body: { name } });
}
return checklist.id;`,
    check(state) {
      const target = named(state, "Rotate API keys");
      const lists = (
        state.records("trello", "checklist") as Array<{
          idCard?: string;
          name?: string;
          checkItems?: Array<{ name?: string }>;
        }>
      ).filter((c) => c.idCard === target?.id);
      if (lists.length !== 1 || lists[0]!.name !== "Release")
        return [`expected one checklist "Release" on the card, found ${lists.length}`];
      const items = (lists[0]!.checkItems ?? []).map((i) => i.name).join(",");
      return items === "Tag,Build,Announce" ? [] : [`items are ${items}`];
    },
  }),
  trelloTask({
    id: "trello-label-crash",
    title: "Add the Bug label to every card in To Do whose name mentions a crash",
    async direct(agent) {
      const bug = (await idsByName(agent, "trello_get_board_labels", { id: BOARD }))("Bug");
      const todo = (await idsByName(agent, "trello_get_board_lists", { id: BOARD }))("To Do");
      return eachCardOfList(
        agent,
        todo,
        ["id", "name", "idLabels"],
        (c) => /crash/i.test(c.name) && !c.idLabels?.includes(bug),
        (c) => agent.call("trello_add_label_to_card", { id: c.id, value: bug }),
      );
    },
    searches: ["labels of a board", "cards in a list", "add label to card"],
    query: "labels of a board cards in a list add label to card",
    program: `const labels = await services.trello.getBoardLabels({ params: { path: { id: "${BOARD}" } } });
const bug = labels.find((l) => l.name === "Bug")!.id;
const lists = await services.trello.getBoardLists({ params: { path: { id: "${BOARD}" } } });
const todo = lists.find((l) => l.name === "To Do")!.id;
const labelled: string[] = [];
for (const card of await services.trello.getListCards({ params: { path: { id: todo } } })) {
  if (!/crash/i.test(card.name ?? "") || card.idLabels?.includes(bug)) continue;
  await services.trello.addLabelToCard({ params: { path: { id: card.id } }, body: { value: bug } });
  labelled.push(card.name ?? card.id);
}
return labelled;`,
    check: (state) =>
      cardProblems(state, [
        [["Crash on export", "App crash when offline"], (c) => c?.idLabels?.includes(BUG) === true, "has no Bug label"],
        [["Write onboarding guide"], (c) => !c?.idLabels?.includes(BUG), "got the label"],
      ]),
  }),
  trelloTask({
    id: "trello-report",
    title: "How many open cards does each list of the Product Roadmap board hold, and which list is fullest?",
    async direct(agent) {
      const lists = await callKeeping<NamedItems>(agent, "trello_get_board_lists", ["id", "name"], { id: BOARD });
      const all = await callKeeping<{ items: Card[] }>(agent, "trello_get_board_cards", ["idList"], {
        id: BOARD,
        filter: "open",
      });
      const counts = Object.fromEntries(
        lists.items.map((l) => [l.name, all.items.filter((c) => c.idList === l.id).length]),
      );
      return { counts, fullest: Object.entries(counts).sort((a, b) => b[1] - a[1])[0]![0] };
    },
    searches: ["lists of a board", "cards of a board"],
    query: "lists of a board cards of a board",
    program: `const lists = await services.trello.getBoardLists({ params: { path: { id: "${BOARD}" } } });
const cards = await services.trello.getBoardCards({ params: { path: { id: "${BOARD}" }, query: { filter: "open" } } });
const counts: Record<string, number> = {};
for (const list of lists) counts[list.name ?? list.id] = cards.filter((c) => c.idList === list.id).length;
const fullest = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]![0];
return { counts, fullest };`,
    check(state, answer) {
      const lists = state.records("trello", "list") as Array<{
        id: string;
        name: string;
        idBoard: string;
        closed?: boolean;
      }>;
      const open = cards(state).filter((c) => !c.closed);
      const counts = Object.fromEntries(
        lists
          .filter((l) => l.idBoard === BOARD && !l.closed)
          .map((l) => [l.name, open.filter((c) => c.idList === l.id).length]),
      );
      const fullest = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]![0];
      const got = answer as { counts?: Record<string, number>; fullest?: unknown } | undefined;
      const same =
        Object.keys(counts).length === Object.keys(got?.counts ?? {}).length &&
        Object.entries(counts).every(([k, v]) => got?.counts?.[k] === v);
      return same && got?.fullest === fullest
        ? []
        : [`answer ${JSON.stringify(answer)}, expected ${JSON.stringify({ counts, fullest })}`];
    },
  }),
];

export { BOARD as TRELLO_BOARD, TODO as TRELLO_TODO };
