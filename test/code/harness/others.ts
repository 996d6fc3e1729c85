/**
 * Harness tasks over Marketo, Content Snare, World News, one across World News and Trello, and one
 * over a service none of the four (the todo spec in test/code/fixtures, generated to test/.tmp).
 */
import { idsByName, TRELLO_BOARD, TRELLO_TODO } from "./trello.js";
import { callKeeping, type FinalState, type Seeds, type Task } from "./types.js";

const WEBINAR_LIST = 1082;
const AMY = 318581;
const RAJ = 318602;
const SIGNUPS = [
  { email: "lena.fischer@example.org", firstName: "Lena", lastName: "Fischer" },
  { email: "omar.haddad@example.org", firstName: "Omar", lastName: "Haddad" },
  { email: "sofia.rossi@example.org", firstName: "Sofia", lastName: "Rossi" },
];

export const OTHER_SEEDS: Seeds = {
  contentsnare: {
    records: {
      request: [
        { id: "req_Q2inv001", name: "Q2 invoices", status: "published", due: "2026-06-30T00:00:00.000Z" },
        { id: "req_Brand002", name: "Brand assets", status: "draft", due: "2026-05-01T00:00:00.000Z" },
        { id: "req_Contr003", name: "Contract signatures", status: "published", due: "2026-10-15T00:00:00.000Z" },
      ],
    },
  },
  todo: {
    records: {
      project: [
        { id: "prj_web", name: "Website" },
        { id: "prj_app", name: "Mobile app" },
      ],
      task: [
        { id: "tsk_1", projectId: "prj_web", title: "Fix footer links", status: "open" },
        { id: "tsk_2", projectId: "prj_web", title: "Compress hero image", status: "open" },
        { id: "tsk_3", projectId: "prj_web", title: "Add sitemap", status: "done" },
        { id: "tsk_4", projectId: "prj_web", title: "Update privacy page", status: "open" },
        { id: "tsk_5", projectId: "prj_app", title: "Dark mode", status: "open" },
      ],
    },
  },
};

type Rec = Record<string, any>;
const relationMembers = (state: FinalState, owner: number) =>
  (state.relations("marketo").listMembers?.[String(owner)] ?? []).map(Number);
/** The mock's articles a text search for "electric" in English finds. */
const electric = (state: FinalState) =>
  (state.records("worldnews", "article") as Rec[]).filter(
    (a) => a.language === "en" && /electric/i.test(`${a.title} ${a.text} ${a.summary}`),
  );
const words = (text: unknown) => (typeof text === "string" ? text.split(/\s+/).filter(Boolean).length : 0);

export const OTHER_TASKS: Task[] = [
  {
    id: "marketo-list",
    title:
      'Add amy.nguyen@example.com and raj.patel@example.com to the list "Webinar Registrants - June 2024"; how ' +
      "many members does it have?",
    services: ["marketo"],
    async direct(agent) {
      const lists = await callKeeping<{ result: Rec[] }>(agent, "marketo_get_lists", ["id", "name"], {
        name: ["Webinar Registrants - June 2024"],
      });
      const listId = lists.result[0]!.id as number;
      const leads = await agent.call<{ result: Rec[] }>("marketo_get_leads", {
        filterType: "email",
        filterValues: ["amy.nguyen@example.com", "raj.patel@example.com"],
        fields: ["id", "email"],
      });
      await agent.call("marketo_add_leads_to_list", { listId, input: leads.result.map((l) => ({ id: l.id })) });
      const members = await callKeeping<{ result: Rec[] }>(agent, "marketo_get_list_members", ["id"], {
        listId,
      });
      return members.result.length;
    },
    searches: ["static lists", "leads by email", "add leads to list", "list members"],
    code: {
      searches: [{ query: "static lists leads by email add leads to list members", service: "marketo" }],
      program: `const lists = await services.marketo.getLists({
  params: { query: { name: ["Webinar Registrants - June 2024"] } } });
const listId = lists.result![0]!.id;
const leads = await services.marketo.getLeads({
  params: { query: { filterType: "email", filterValues: ["amy.nguyen@example.com", "raj.patel@example.com"],
    fields: ["id", "email"] } } });
await services.marketo.addLeadsToList({
  params: { path: { listId } }, body: { input: (leads.result ?? []).map((l) => ({ id: l.id })) } });
const members = await services.marketo.getListMembers({ params: { path: { listId } } });
return (members.result ?? []).length;`,
    },
    check(state, answer) {
      const members = relationMembers(state, WEBINAR_LIST);
      const problems = [AMY, RAJ].filter((id) => !members.includes(id)).map((id) => `lead ${id} is not a member`);
      if (answer !== members.length)
        problems.push(`answered ${JSON.stringify(answer)}, the list has ${members.length}`);
      return problems;
    },
  },
  {
    id: "marketo-welcome",
    title:
      'Sign up Lena Fischer, Omar Haddad and Sofia Rossi (example.org addresses) and trigger "Welcome - Send ' +
      'Email 1" for them',
    services: ["marketo"],
    async direct(agent) {
      const synced = await agent.call<{ result: Rec[] }>("marketo_sync_leads", {
        action: "createOrUpdate",
        lookupField: "email",
        input: SIGNUPS,
      });
      const campaigns = await callKeeping<{ result: Rec[] }>(agent, "marketo_get_campaigns", ["id", "name"], {
        name: ["Welcome - Send Email 1"],
      });
      await agent.call("marketo_trigger_campaign", {
        id: campaigns.result[0]!.id,
        input: { leads: synced.result.map((r) => ({ id: r.id })) },
      });
      return synced.result.map((r) => r.id);
    },
    searches: ["create or update leads", "campaigns by name", "trigger campaign"],
    code: {
      searches: [{ query: "sync leads campaigns trigger campaign", service: "marketo" }],
      program: `const synced = await services.marketo.syncLeads({
  body: { action: "createOrUpdate", lookupField: "email", input: ${JSON.stringify(SIGNUPS)} } });
const campaigns = await services.marketo.getCampaigns({ params: { query: { name: ["Welcome - Send Email 1"] } } });
const leads = (synced.result ?? []).map((r) => ({ id: r.id! }));
await services.marketo.triggerCampaign({
  params: { path: { id: campaigns.result![0]!.id } }, body: { input: { leads } } });
return leads.map((l) => l.id);`,
    },
    check(state) {
      const leads = state.records("marketo", "lead") as Rec[];
      const activities = state.records("marketo", "activity") as Rec[];
      const problems: string[] = [];
      for (const s of SIGNUPS) {
        const lead = leads.filter((l) => l.email === s.email);
        if (lead.length !== 1) problems.push(`${s.email}: ${lead.length} leads`);
        else if (
          activities.filter((a) => a.activityTypeId === 47 && a.leadId === lead[0]!.id && a.campaignId === 1004)
            .length !== 1
        )
          problems.push(`${s.email}: campaign not triggered once`);
      }
      return problems;
    },
  },
  {
    id: "contentsnare-onboard",
    title:
      'Create the client Maya Chen (maya.chen@example.net) and send her the request "Onboarding documents" from ' +
      "the Individual Tax Return template, filed in Tax Clients",
    services: ["contentsnare"],
    async direct(agent) {
      const templates = await callKeeping<{ results: Rec[] }>(agent, "contentsnare_list_request_templates", [
        "id",
        "name",
      ]);
      const template = templates.results.find((t) => t.name === "Individual Tax Return")!;
      const folders = await callKeeping<{ results: Rec[] }>(agent, "contentsnare_list_folders", ["id", "name"]);
      const folder = folders.results.find((f) => f.name === "Tax Clients")!;
      await agent.call("contentsnare_create_client", { name: "Maya Chen", email: "maya.chen@example.net" });
      const request = await agent.call<Rec>("contentsnare_create_request", {
        name: "Onboarding documents",
        client_email: "maya.chen@example.net",
        request_template_name: template.name,
        folder_name: folder.name,
      });
      return request.id;
    },
    searches: ["request templates", "folders", "create client", "create request"],
    code: {
      searches: [{ query: "request templates folders create client create request", service: "contentsnare" }],
      program: `const templates = await services.contentsnare.listRequestTemplates();
const template = templates.results.find((t) => t.name === "Individual Tax Return")!;
const folders = await services.contentsnare.listFolders();
const folder = folders.results.find((f) => f.name === "Tax Clients")!;
await services.contentsnare.createClient({ body: { full_name: "Maya Chen", email: "maya.chen@example.net" } });
const request = await services.contentsnare.createRequest({
  body: { name: "Onboarding documents", client_email: "maya.chen@example.net",
    request_template_name: template.name, folder_name: folder.name } });
return request.id;`,
    },
    check(state) {
      const clients = (state.records("contentsnare", "client") as Rec[]).filter(
        (c) => c.email === "maya.chen@example.net",
      );
      const requests = (state.records("contentsnare", "request") as Rec[]).filter(
        (r) => r.name === "Onboarding documents",
      );
      const problems: string[] = [];
      if (clients.length !== 1 || clients[0]!.full_name !== "Maya Chen")
        problems.push(`${clients.length} clients for maya.chen@example.net`);
      if (requests.length !== 1) problems.push(`${requests.length} requests "Onboarding documents"`);
      else if (
        requests[0]!.request_template_name !== "Individual Tax Return" ||
        requests[0]!.folder_name !== "Tax Clients"
      )
        problems.push(`request fields ${JSON.stringify(requests[0])}`);
      return problems;
    },
  },
  {
    id: "contentsnare-extend",
    title: "Move the deadline of every published request due before 1 August 2026 to 30 September 2026",
    services: ["contentsnare"],
    async direct(agent) {
      const listed = await callKeeping<{ results: Rec[] }>(agent, "contentsnare_list_requests", ["id", "name", "due"], {
        filter_by_statuses: ["published"],
      });
      const moved: string[] = [];
      for (const r of listed.results.filter((x) => x.due && Date.parse(x.due) < Date.parse("2026-08-01"))) {
        await agent.call("contentsnare_update_request", { id: r.id, due: "2026-09-30" });
        moved.push(r.name);
      }
      return moved;
    },
    searches: ["list requests by status", "update request"],
    code: {
      searches: [{ query: "list requests by status update request deadline", service: "contentsnare" }],
      program: `const listed = await services.contentsnare.listRequests({
  params: { query: { "filter_by[statuses][]": ["published"] } } });
const moved: string[] = [];
for (const r of listed.results) {
  if (!r.due || Date.parse(r.due) >= Date.parse("2026-08-01")) continue;
  await services.contentsnare.updateRequest({ params: { path: { id: r.id } }, body: { due: "2026-09-30" } });
  moved.push(r.name);
}
return moved;`,
    },
    check(state, _answer, initial) {
      const before = new Map((initial!.records("contentsnare", "request") as Rec[]).map((r) => [r.id, r]));
      const problems: string[] = [];
      for (const r of state.records("contentsnare", "request") as Rec[]) {
        const was = before.get(r.id);
        if (!was) continue;
        const due =
          was.status === "published" && was.due && Date.parse(was.due) < Date.parse("2026-08-01")
            ? "2026-09-30"
            : was.due?.slice(0, 10);
        if ((r.due?.slice(0, 10) ?? undefined) !== due) problems.push(`${r.name}: due ${r.due}, expected ${due}`);
      }
      return problems;
    },
  },
  {
    id: "worldnews-brief",
    title:
      "For each English article about electric vehicles: its title and how many words its page has; and the " +
      "coordinates of Brussels",
    services: ["worldnews"],
    async direct(agent) {
      const found = await callKeeping<{ news: Rec[] }>(agent, "worldnews_search_news", ["title", "url"], {
        text: "electric",
        language: "en",
      });
      const articles = [];
      for (const a of found.news) {
        const page = await agent.call<Rec>("worldnews_extract_news", { url: a.url });
        articles.push({ title: a.title, words: words(page.text) });
      }
      const brussels = await agent.call<Rec>("worldnews_get_geo_coordinates", { location: "Brussels" });
      return { articles, brussels: { latitude: brussels.latitude, longitude: brussels.longitude } };
    },
    searches: ["search news", "extract article from url", "geo coordinates"],
    code: {
      searches: [{ query: "search news extract article from url geo coordinates", service: "worldnews" }],
      program: `const found = await services.worldnews.searchNews({
  params: { query: { text: "electric", language: "en" } } });
const articles = [];
for (const a of found.news) {
  const page = await services.worldnews.extractNews({ params: { query: { url: a.url! } } });
  articles.push({ title: a.title, words: (page.text ?? "").split(/\\s+/).filter(Boolean).length });
}
const brussels = await services.worldnews.getGeoCoordinates({ params: { query: { location: "Brussels" } } });
return { articles, brussels: { latitude: brussels.latitude, longitude: brussels.longitude } };`,
    },
    check(state, answer) {
      const expected = electric(state).map((a) => ({ title: a.title, words: words(a.text) }));
      const got = answer as { articles?: unknown; brussels?: { latitude?: unknown; longitude?: unknown } } | undefined;
      const problems: string[] = [];
      if (expected.length === 0) problems.push("the mock has no article to find");
      if (JSON.stringify(got?.articles) !== JSON.stringify(expected))
        problems.push(`articles ${JSON.stringify(got?.articles)}, expected ${JSON.stringify(expected)}`);
      if (typeof got?.brussels?.latitude !== "number" || typeof got.brussels.longitude !== "number")
        problems.push("no coordinates");
      return problems;
    },
  },
  {
    id: "news-to-trello",
    title:
      "Create a card in To Do for each English article about electric vehicles: its title as the name, its URL " +
      "as the description",
    services: ["worldnews", "trello"],
    async direct(agent) {
      const found = await callKeeping<{ news: Rec[] }>(agent, "worldnews_search_news", ["title", "url"], {
        text: "electric",
        language: "en",
      });
      const todo = (await idsByName(agent, "trello_get_board_lists", { id: TRELLO_BOARD }))("To Do");
      for (const a of found.news) await agent.call("trello_create_card", { idList: todo, name: a.title, desc: a.url });
      return found.news.length;
    },
    searches: ["search news", "lists of a board", "create card"],
    code: {
      searches: [
        { query: "search news", service: "worldnews" },
        { query: "lists of a board create card", service: "trello" },
      ],
      program: `const found = await services.worldnews.searchNews({
  params: { query: { text: "electric", language: "en" } } });
const lists = await services.trello.getBoardLists({ params: { path: { id: "${TRELLO_BOARD}" } } });
const todo = lists.find((l) => l.name === "To Do")!.id;
for (const a of found.news) await services.trello.createCard({
  body: { idList: todo, name: a.title ?? "(untitled)", desc: a.url ?? "" } });
return found.news.length;`,
    },
    check(state) {
      const cards = state.records("trello", "card") as Rec[];
      return electric(state).flatMap((a) => {
        const made = cards.filter((c) => c.name === a.title && c.idList === TRELLO_TODO && c.desc === a.url);
        return made.length === 1 ? [] : [`${made.length} cards for "${a.title}"`];
      });
    },
  },
  {
    id: "todo-close",
    title:
      'Close every open task of the project "Website" with the note "closed by agent" (a service generated from ' +
      "a spec of its own)",
    services: ["todo"],
    async direct(agent) {
      const projects = await agent.call<{ items: Rec[] }>("todo_list_projects", {});
      const website = projects.items.find((p) => p.name === "Website")!;
      const tasks = await callKeeping<{ items: Rec[] }>(agent, "todo_list_tasks", ["id", "status"], {
        projectId: website.id,
      });
      const open = tasks.items.filter((t) => t.status === "open");
      for (const t of open)
        await agent.call("todo_update_task", { taskId: t.id, status: "done", note: "closed by agent" });
      return open.length;
    },
    searches: ["projects", "tasks of a project", "update task"],
    code: {
      searches: [{ query: "projects tasks update task", service: "todo" }],
      program: `const projects = await services.todo.listProjects();
const website = projects.find((p) => p.name === "Website")!;
const tasks = await services.todo.listTasks({ params: { query: { projectId: website.id } } });
const open = tasks.filter((t) => t.status === "open");
for (const t of open) await services.todo.updateTask({
  params: { path: { taskId: t.id } }, body: { status: "done", note: "closed by agent" } });
return open.length;`,
    },
    check(state) {
      const tasks = state.records("todo", "task") as Rec[];
      const problems: string[] = [];
      for (const id of ["tsk_1", "tsk_2", "tsk_4"]) {
        const t = tasks.find((x) => x.id === id);
        if (t?.status !== "done" || t.note !== "closed by agent") problems.push(`${id} is ${JSON.stringify(t)}`);
      }
      if (tasks.find((x) => x.id === "tsk_5")?.status !== "open") problems.push("the other project's task was closed");
      if (tasks.find((x) => x.id === "tsk_3")?.note) problems.push("a done task got a note");
      return problems;
    },
  },
];
