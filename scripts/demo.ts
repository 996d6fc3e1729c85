/**
 * `make demo`: the generated clients of the four integrations, each calling its service's mock on
 * loopback with made-up credentials. No network, no real accounts.
 */
import { join } from "node:path";
import { packageRoot } from "../generator/package-root.js";
import { startPrism, type RunningPrism } from "../runtime/mock/prism.js";
import { createContentsnareClient } from "../generated/contentsnare/index.js";
import { createMarketoClient } from "../generated/marketo/index.js";
import { createTrelloClient } from "../generated/trello/index.js";
import { createWorldnewsClient } from "../generated/worldnews/index.js";

const root = packageRoot();
const running: RunningPrism[] = [];
const mock = async (service: string, port: number) => {
  const prism = await startPrism({ specFile: join(root, "specs", `${service}.yaml`), port });
  running.push(prism);
  return prism.url;
};
const show = (label: string, value: unknown) => console.log(`  ${label}: ${JSON.stringify(value).slice(0, 160)}`);

try {
  console.log("trello (Prism contract mock)");
  const trello = createTrelloClient({ connection: { name: "demo", fields: { apiKey: "0".repeat(32), token: "demo-token" } }, baseUrl: await mock("trello", 4310) });
  const card = await trello.createCard({ body: { idList: "5abbe4b7ddc1b351ef961414", name: "Write the quarterly report" } });
  show("createCard", { id: card.id, name: card.name });
  const boards = await trello.getMemberBoards({ params: { path: { id: "me" } } });
  show("getMemberBoards", boards.map((b) => b.name));

  console.log("worldnews");
  const news = createWorldnewsClient({ connection: { name: "demo", fields: { apiKey: "demo-key-0000" } }, baseUrl: await mock("worldnews", 4311) });
  const found = await news.searchNews({ params: { query: { text: "climate", language: "en", number: 2 } } });
  show("searchNews", found.news?.map((a) => a.title));

  console.log("contentsnare");
  const snare = createContentsnareClient({
    connection: { name: "demo", fields: { clientId: "demo", clientSecret: "demo-secret", accessToken: "demo-access", refreshToken: "demo-refresh", expiresAt: new Date(Date.now() + 3_600_000).toISOString() } },
    baseUrl: await mock("contentsnare", 4312),
  });
  const client = await snare.createClient({ body: { email: "jo@example.com", full_name: "Jo Bloggs" } });
  show("createClient", { id: client.id, email: client.email });

  console.log("marketo");
  const marketoUrl = await mock("marketo", 4313);
  const marketo = createMarketoClient({ connection: { name: "demo", fields: { endpoint: "https://123-ABC-456.mktorest.com", clientId: "demo", clientSecret: "demo-secret" } }, baseUrl: marketoUrl });
  const leads = await marketo.getLeads({ params: { query: { filterType: "email", filterValues: ["jo@example.com"] } } });
  show("getLeads", leads.result);
} finally {
  await Promise.all(running.map((p) => p.close()));
}
