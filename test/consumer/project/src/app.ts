// A program another project writes against the installed stepforge package (copied into a
// temporary project by test/consumer/consumer.test.ts, compiled there under NodeNext and bundler
// resolution, then run). It prints one JSON document that the test checks.
import { AuthError, type StepforgeError } from "stepforge/runtime";
import { executeToolByName } from "stepforge/runtime/tools";
import { TrelloClient, tools as trelloTools, type CreateCardInput } from "stepforge/trello";
import { startTrelloMock } from "stepforge/trello/mock";
import { WorldnewsClient } from "stepforge/worldnews";
import { startWorldnewsMock } from "stepforge/worldnews/mock";

// Never called: these lines only have to compile (or fail to, where marked).
export function typeChecks(trello: TrelloClient): void {
  // @ts-expect-error: createCard's body has no field "title" (it is "name").
  void trello.createCard({ body: { idList: "x", title: "wrong field" } });
  // @ts-expect-error: getCard needs its path parameter.
  void trello.getCard({ params: { path: {} } });
  const input: CreateCardInput = { body: { idList: "5abbe4b7ddc1b351ef961414", name: "typed" } };
  void trello.createCard(input);
}

const trelloMock = await startTrelloMock();
const newsMock = await startWorldnewsMock();
try {
  // Typed calls with the Trello mock's credentials (x-stepforge.mock.credentials in specs/trello.yaml).
  const fields = { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" };
  const trello = new TrelloClient({ connection: { name: "consumer", fields }, baseUrl: trelloMock.url });
  const [board] = await trello.getMemberBoards({ params: { path: { id: "me" } } });
  const [todo, done] = await trello.getBoardLists({ params: { path: { id: board!.id } } });
  const card = await trello.createCard({ body: { idList: todo!.id, name: "Installed from a tarball" } });

  // A tool step, as an agent platform runs it.
  const context = { connection: { name: "consumer", fields }, baseUrl: trelloMock.url };
  const moved = await executeToolByName(trelloTools, "trello_update_card", { id: card.id, idList: done!.id }, context);
  const refused = await executeToolByName(trelloTools, "trello_create_card", { name: 42 }, context);

  // A typed error from a wrong token, caught by class from another entry of the same package.
  let authError: string | undefined;
  try {
    await new TrelloClient({
      connection: { name: "bad", fields: { ...fields, token: "wrong" } },
      baseUrl: trelloMock.url,
    }).getMemberBoards({ params: { path: { id: "me" } } });
  } catch (error) {
    if (error instanceof AuthError) authError = (error as StepforgeError).kind;
  }

  // Paging: offset pages of World News search, two items a page; the mock holds four matching
  // articles, so the walk takes two full pages and stops by itself before maxPages.
  const news = new WorldnewsClient({
    connection: { name: "consumer", fields: { apiKey: "mock-worldnews-api-key-0123456789" } },
    baseUrl: newsMock.url,
  });
  let pages = 0;
  let items = 0;
  for await (const page of news.core.pages(
    "searchNews",
    { params: { query: { text: "the", number: 2 } } },
    { maxPages: 5 },
  )) {
    pages += 1;
    items += page.items.length;
  }

  console.log(
    JSON.stringify({
      board: board!.id,
      card: { id: card.id, name: card.name },
      tool: moved.ok ? { ok: true, idList: (moved.data as { idList?: string }).idList, done: done!.id } : moved,
      refused: refused.ok ? refused : { kind: refused.error.kind, fields: refused.error.fields },
      authError,
      pages,
      items,
    }),
  );
} finally {
  await Promise.all([trelloMock.close(), newsMock.close()]);
}
