/**
 * Type tests for generated clients, checked by `tsc --noEmit` (test/project.test.ts runs it).
 * Each `@ts-expect-error` line must be a compile error, or tsc reports the directive as unused:
 * so this file fails the build both when a wrong call compiles and when a right one does not.
 */
import type { MarketoClient } from "../../generated/marketo/index.js";
import type { TrelloClient } from "../../generated/trello/index.js";
import type { WorldnewsClient } from "../../generated/worldnews/index.js";

declare const trello: TrelloClient;
declare const marketo: MarketoClient;
declare const news: WorldnewsClient;

export async function rightCalls(): Promise<string[]> {
  const card = await trello.getCard({ params: { path: { id: "5abbe4b7ddc1b351ef961414" } } });
  const created = await trello.createCard({
    body: { idList: "5abbe4b7ddc1b351ef961414", name: "Report", pos: "top", idLabels: [] },
  });
  const leads = await marketo.getLeads({ params: { query: { filterType: "email", filterValues: ["a@example.com"] } } });
  const found = await news.searchNews({ params: { query: { text: "solar", number: 5 } } });
  // An optional body may be left out, or given.
  await marketo.scheduleCampaign({ params: { path: { id: 1001 } } });
  await marketo.scheduleCampaign({
    params: { path: { id: 1001 } },
    body: { input: { runAt: "2024-06-03T15:00:00-05:00" } },
  });
  // Operations without required input take no argument.
  await trello.getMemberBoards({ params: { path: { id: "me" } } });
  return [card.id, created.name ?? "", String(leads.success), String(found.available)];
}

/** A paged operation's walk yields its list's items, typed. */
export async function pagedWalks(): Promise<string[]> {
  const titles: string[] = [];
  for await (const article of news.searchNewsItems({ params: { query: { text: "solar" } } }, { maxItems: 3 }))
    titles.push(article.title ?? "");
  for await (const lead of marketo.getLeadsItems({ params: { query: { filterType: "email", filterValues: ["a"] } } }))
    titles.push(lead.email ?? "");
  // @ts-expect-error an item is one article, not the page holding the list
  for await (const article of news.searchNewsItems()) titles.push(article.news);
  // @ts-expect-error an operation without paging has no walk
  trello.getCardItems;
  return titles;
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error a wrong path parameter name
  await trello.getCard({ params: { path: { cardId: "x" } } });
  // @ts-expect-error a missing required path parameter
  await trello.getCard({ params: { path: {} } });
  // @ts-expect-error no input at all where a path parameter is required
  await trello.getCard();
  // @ts-expect-error a wrong body field
  await trello.createCard({ body: { idList: "x", nmae: "typo" } });
  // @ts-expect-error a required body field missing (idList)
  await trello.createCard({ body: { name: "no list" } });
  // @ts-expect-error a body field of the wrong type
  await trello.createCard({ body: { idList: 42 } });
  // @ts-expect-error a body on an operation that takes none
  await trello.getCard({ params: { path: { id: "x" } }, body: { name: "x" } });
  // @ts-expect-error a required body left out
  await trello.createCard({});
  // @ts-expect-error parameters left out where the path needs one, beside an optional body
  await marketo.scheduleCampaign({ body: {} });
  // @ts-expect-error an operation (path) the spec does not have
  await trello.getCards();
  // @ts-expect-error a query parameter the operation does not take
  await news.searchNews({ params: { query: { txt: "solar" } } });
  // @ts-expect-error a query parameter of the wrong type
  await news.searchNews({ params: { query: { number: "five" } } });
  // @ts-expect-error a missing required query parameter (filterValues)
  await marketo.getLeads({ params: { query: { filterType: "email" } } });
  const card = await trello.getCard({ params: { path: { id: "x" } } });
  // @ts-expect-error a response field the Card record does not have
  void card.nonexistentField;
}
