/**
 * Tool steps executed against loopback servers: success and failure for each service, field-level
 * input errors, the legacy and composite steps, the API Call steps, and the result envelope that
 * never throws.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedState, type Connection } from "../../runtime/index.js";
import {
  executeTool,
  executeToolByName,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "../../runtime/tools/index.js";
import { tools as contentsnare } from "../../generated/contentsnare/tools.js";
import { tools as marketo } from "../../generated/marketo/tools.js";
import { tools as trello } from "../../generated/trello/tools.js";
import { tools as worldnews } from "../../generated/worldnews/tools.js";
import {
  connections,
  fastRetry,
  json,
  loopback,
  text,
  TRELLO_KEY,
  TRELLO_TOKEN,
  type Loopback,
  type Received,
} from "./helpers.js";

const all: ToolDefinition[] = [...contentsnare, ...marketo, ...trello, ...worldnews];
const tool = (name: string) => {
  const found = all.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

const CARD = {
  id: "6123a9f0c4b5d6e7f8091a2b",
  name: "Write launch announcement",
  idList: "60d5ecb74e2a1b3c4d5e6f71",
  closed: false,
};
const LIST = "60d5ecb74e2a1b3c4d5e6f71";

let server: Loopback;
/** Answers keyed by "METHOD /path"; anything else is a 404. */
const answers = new Map<string, (req: Received, res: Parameters<Parameters<typeof loopback>[0]>[1]) => void>();

beforeAll(async () => {
  server = await loopback((req, res) => {
    const answer = answers.get(`${req.method} ${req.url.pathname}`);
    if (answer) return answer(req, res);
    text(res, 404, "The requested resource was not found.");
  });
});
afterAll(() => server.close());

function context(service: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    connection: connections[service]!,
    baseUrl: server.url,
    retry: fastRetry,
    shared: createSharedState(),
    ...extra,
  };
}

async function run(
  name: string,
  input: unknown,
  extra: Partial<ToolContext> = {},
): Promise<{ result: ToolResult; sent: Received[] }> {
  const before = server.received.length;
  const t = tool(name);
  const result = await executeTool(t, input, context(t.service, extra));
  // Never throws, always JSON-serialisable.
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  return { result, sent: server.received.slice(before) };
}

function errorOf(result: ToolResult) {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("expected an error");
  return result.error;
}

describe("Trello steps", () => {
  it("trello_create_card sends a JSON body with the key and token in the query", async () => {
    answers.set("POST /1/cards", (req, res) => json(res, 200, { ...CARD, ...JSON.parse(req.body) }));
    const { result, sent } = await run("trello_create_card", {
      idList: LIST,
      name: "Write launch announcement",
      pos: "top",
      idLabels: [],
    });
    expect(result).toMatchObject({ ok: true, data: { id: CARD.id, name: "Write launch announcement", idList: LIST } });
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.body)).toEqual({
      idList: LIST,
      name: "Write launch announcement",
      pos: "top",
      idLabels: [],
    });
    expect(sent[0]!.url.searchParams.get("key")).toBe(TRELLO_KEY);
    expect(sent[0]!.url.searchParams.get("token")).toBe(TRELLO_TOKEN);
  });

  it("treats null as not given (OpenAI strict mode sends null for every optional field)", async () => {
    const { result, sent } = await run("trello_create_card", {
      idList: LIST,
      name: "A",
      desc: null,
      pos: null,
      due: null,
      idLabels: null,
      urlSource: null,
    });
    expect(result.ok).toBe(true);
    expect(JSON.parse(sent[0]!.body)).toEqual({ idList: LIST, name: "A" });
  });

  it("gives field-level errors and sends nothing for invalid input", async () => {
    const { result, sent } = await run("trello_create_card", {
      name: 42,
      pos: "middle",
      due: "next tuesday",
      connection: "other-account",
    });
    const error = errorOf(result);
    expect(error.kind).toBe("invalid_input");
    expect(error.retryable).toBe(false);
    const byPath = Object.fromEntries(error.fields.map((f) => [f.path, f.message]));
    expect(byPath.idList).toMatch(/required/);
    expect(byPath.name).toMatch(/must be string/);
    expect(byPath.pos).toBeDefined();
    expect(byPath.due).toMatch(/format/);
    expect(byPath.connection).toMatch(/not a field of this step/);
    expect(error.message).toMatch(/idList/);
    expect(sent).toHaveLength(0);
  });

  it("refuses a non-object input", async () => {
    const error = errorOf((await run("trello_get_card", "6123a9f0c4b5d6e7f8091a2b")).result);
    expect(error.kind).toBe("invalid_input");
    expect(error.fields[0]!.message).toMatch(/JSON object/);
  });

  it("trello_get_boards lists the account's own boards (id fixed to me) as { items }", async () => {
    answers.set("GET /1/members/me/boards", (_req, res) =>
      json(res, 200, [{ id: "60d5ecb74e2a1b3c4d5e6f70", name: "Launch" }]),
    );
    const { result, sent } = await run("trello_get_boards", { filter: "open" });
    expect(result).toEqual({ ok: true, data: { items: [{ id: "60d5ecb74e2a1b3c4d5e6f70", name: "Launch" }] } });
    expect(sent[0]!.url.pathname).toBe("/1/members/me/boards");
    expect(sent[0]!.url.searchParams.get("filter")).toBe("open");
    expect(Object.keys(tool("trello_get_boards").input.shape)).not.toContain("id");
  });

  it("trello_archive_card is update card with closed=true", async () => {
    answers.set(`PUT /1/cards/${CARD.id}`, (req, res) => json(res, 200, { ...CARD, ...JSON.parse(req.body) }));
    const { result, sent } = await run("trello_archive_card", { id: CARD.id });
    expect(result).toMatchObject({ ok: true, data: { closed: true } });
    expect(sent[0]!.method).toBe("PUT");
    expect(JSON.parse(sent[0]!.body)).toEqual({ closed: true });
    expect(errorOf((await run("trello_archive_card", { id: CARD.id, closed: false })).result).fields[0]!.path).toBe(
      "closed",
    );
  });

  it("trello_add_comment keeps the legacy input shape (idCard, comment, board)", async () => {
    answers.set(`POST /1/cards/${CARD.id}/actions/comments`, (req, res) =>
      json(res, 200, {
        id: "6650f1e2a3b4c5d6e7f80912",
        type: "commentCard",
        data: { text: JSON.parse(req.body).text },
      }),
    );
    const { result, sent } = await run("trello_add_comment", {
      idCard: CARD.id,
      comment: "Draft is ready",
      board: "Launch",
    });
    expect(result).toMatchObject({ ok: true, data: { type: "commentCard", data: { text: "Draft is ready" } } });
    expect(JSON.parse(sent[0]!.body)).toEqual({ text: "Draft is ready" });
    const modern = await run("trello_add_comment_to_card", { id: CARD.id, text: "Draft is ready" });
    expect(modern.result.ok).toBe(true);
    expect(modern.sent[0]!.url.pathname).toBe(sent[0]!.url.pathname);
  });

  it("trello_create_checklist_item and trello_add_checklist reach their operations", async () => {
    answers.set("POST /1/checklists", (_req, res) =>
      json(res, 200, { id: "6650f1e2a3b4c5d6e7f80913", name: "Steps", checkItems: [] }),
    );
    answers.set("POST /1/checklists/6650f1e2a3b4c5d6e7f80913/checkItems", (req, res) =>
      json(res, 200, { id: "6650f1e2a3b4c5d6e7f80914", ...JSON.parse(req.body), state: "incomplete" }),
    );
    expect((await run("trello_add_checklist", { idCard: CARD.id, name: "Steps" })).result).toMatchObject({
      ok: true,
      data: { name: "Steps" },
    });
    expect(
      (await run("trello_create_checklist_item", { id: "6650f1e2a3b4c5d6e7f80913", name: "Proofread" })).result,
    ).toMatchObject({ ok: true, data: { name: "Proofread", state: "incomplete" } });
  });

  it("service errors keep their kind, with a next step for the model", async () => {
    answers.set("GET /1/cards/aaaaaaaaaaaaaaaaaaaaaaaa", (_req, res) => text(res, 400, "invalid id"));
    answers.set("GET /1/cards/bbbbbbbbbbbbbbbbbbbbbbbb", (_req, res) => text(res, 401, "invalid token"));
    answers.set("GET /1/cards/cccccccccccccccccccccccc", (_req, res) =>
      json(res, 429, { error: "API_TOKEN_LIMIT_EXCEEDED", message: "Rate limit exceeded" }, { "retry-after": "0" }),
    );
    const bad = errorOf((await run("trello_get_card", { id: "aaaaaaaaaaaaaaaaaaaaaaaa" })).result);
    expect(bad).toMatchObject({ kind: "validation", status: 400, retryable: false });
    expect(bad.message).toMatch(/invalid id/);
    const auth = errorOf((await run("trello_get_card", { id: "bbbbbbbbbbbbbbbbbbbbbbbb" })).result);
    expect(auth).toMatchObject({ kind: "auth", retryable: false });
    expect(auth.message).toMatch(/reconnect/);
    expect(auth.message).not.toContain(TRELLO_TOKEN);
    const missing = errorOf((await run("trello_get_card", { id: "dddddddddddddddddddddddd" })).result);
    expect(missing).toMatchObject({ kind: "not_found", status: 404 });
    const limited = await run("trello_get_card", { id: "cccccccccccccccccccccccc" });
    expect(errorOf(limited.result)).toMatchObject({
      kind: "rate_limited",
      retryable: true,
      code: "API_TOKEN_LIMIT_EXCEEDED",
    });
    expect(limited.sent.length).toBeGreaterThan(1);
  });

  it("a network fault is a retryable network error, not a throw", async () => {
    const closed = await loopback(() => undefined);
    const url = closed.url;
    await closed.close();
    const error = errorOf((await run("trello_get_card", { id: CARD.id }, { baseUrl: url })).result);
    expect(error).toMatchObject({ kind: "network", retryable: true });
  });

  it("a broken connection is the caller's problem, said so", async () => {
    const broken: Connection = { name: "broken", fields: { apiKey: TRELLO_KEY } };
    const before = server.received.length;
    const error = errorOf((await run("trello_get_card", { id: CARD.id }, { connection: broken })).result);
    expect(error.kind).toBe("connection");
    expect(error.message).toMatch(/token/);
    expect(error.message).toMatch(/not of the input/);
    expect(server.received.length).toBe(before);
  });

  it("an unknown step is a result too", async () => {
    const result = await executeToolByName(all, "trello_make_coffee", {}, context("trello"));
    expect(errorOf(result)).toMatchObject({ kind: "unknown_tool" });
    expect(errorOf(result).message).toMatch(/trello_create_card/);
  });
});

describe("API Call steps", () => {
  it("trello_api_call sends method, path, query and body with the connection's credentials", async () => {
    answers.set("PUT /1/lists/60d5ecb74e2a1b3c4d5e6f71", (req, res) =>
      json(res, 200, { id: LIST, ...JSON.parse(req.body) }),
    );
    const { result, sent } = await run("trello_api_call", {
      method: "PUT",
      endpoint: `/1/lists/${LIST}`,
      query_parameters: { fields: "name,closed" },
      body: { name: "Done" },
    });
    expect(result).toEqual({ ok: true, data: { id: LIST, name: "Done" } });
    expect(sent[0]!.method).toBe("PUT");
    expect(sent[0]!.url.searchParams.get("fields")).toBe("name,closed");
    expect(sent[0]!.url.searchParams.get("token")).toBe(TRELLO_TOKEN);
    expect(JSON.parse(sent[0]!.body)).toEqual({ name: "Done" });
  });

  it("refuses credentials in the query, a body on GET and methods the service's step does not take", async () => {
    const before = server.received.length;
    const creds = errorOf(
      (
        await run("trello_api_call", {
          method: "GET",
          endpoint: "/1/members/me",
          query_parameters: { token: "x", key: "y" },
        })
      ).result,
    );
    expect(creds.fields.map((f) => f.path)).toEqual(["query_parameters.token", "query_parameters.key"]);
    const getBody = errorOf(
      (await run("trello_api_call", { method: "GET", endpoint: "/1/members/me", body: { a: 1 } })).result,
    );
    expect(getBody.fields[0]!.path).toBe("body");
    const patch = errorOf((await run("trello_api_call", { method: "PATCH", endpoint: "/1/members/me" })).result);
    expect(patch.fields[0]).toMatchObject({ path: "method" });
    expect(patch.fields[0]!.message).toMatch(/"GET", "POST", "PUT", "DELETE"/);
    const news = errorOf((await run("worldnews_api_call", { method: "DELETE", endpoint: "/search-news" })).result);
    expect(news.fields[0]!.path).toBe("method");
    expect(server.received.length).toBe(before);
  });

  it("marketo_api_call turns success:false in an HTTP 200 into a step error", async () => {
    answers.set("GET /identity/oauth/token", (_req, res) =>
      json(res, 200, {
        access_token: "mkto-access-1",
        token_type: "bearer",
        expires_in: 3599,
        scope: "api@example.com",
      }),
    );
    answers.set("GET /rest/v1/leads.json", (req, res) => {
      if (req.url.searchParams.get("filterValues") === "nobody@example.com")
        return json(res, 200, {
          requestId: "e42b#14272d07d78",
          success: false,
          errors: [{ code: "1003", message: "Invalid filterValues" }],
        });
      json(res, 200, {
        requestId: "a1b2#c3",
        success: true,
        result: [{ id: 318581, email: req.url.searchParams.get("filterValues") }],
      });
    });
    const ok = await run("marketo_api_call", {
      method: "GET",
      endpoint: "/rest/v1/leads.json",
      query_parameters: { filterType: "email", filterValues: "ada@example.com" },
    });
    expect(ok.result).toMatchObject({
      ok: true,
      data: { success: true, result: [{ id: 318581, email: "ada@example.com" }] },
    });
    expect(ok.sent.at(-1)!.headers.authorization).toBe("Bearer mkto-access-1");
    const failed = await run("marketo_api_call", {
      method: "GET",
      endpoint: "/rest/v1/leads.json",
      query_parameters: { filterType: "email", filterValues: "nobody@example.com" },
    });
    const error = errorOf(failed.result);
    expect(error.code).toBe("1003");
    expect(error.message).toMatch(/Invalid filterValues/);
  });

  it("worldnews_api_call takes params", async () => {
    answers.set("GET /top-news", (req, res) =>
      json(res, 200, {
        top_news: [],
        language: req.url.searchParams.get("language"),
        country: req.url.searchParams.get("source-country"),
      }),
    );
    const { result, sent } = await run("worldnews_api_call", {
      method: "GET",
      endpoint: "/top-news",
      params: { "source-country": "us", language: "en" },
    });
    expect(result).toMatchObject({ ok: true, data: { language: "en", country: "us" } });
    expect(sent[0]!.headers["x-api-key"]).toBe(connections.worldnews!.fields.apiKey);
  });
});

describe("Marketo, World News and Content Snare steps", () => {
  it("marketo_get_leads sends list parameters comma-separated", async () => {
    const { result, sent } = await run("marketo_get_leads", {
      filterType: "email",
      filterValues: ["ada@example.com", "alan@example.com"],
      fields: ["email", "firstName"],
    });
    expect(result.ok).toBe(true);
    const leadCall = sent.find((r) => r.url.pathname === "/rest/v1/leads.json")!;
    expect(leadCall.url.searchParams.get("filterValues")).toBe("ada@example.com,alan@example.com");
    expect(leadCall.url.searchParams.get("fields")).toBe("email,firstName");
  });

  it("marketo envelope errors (606) become retryable rate-limit errors", async () => {
    answers.set("GET /rest/v1/campaigns/1001.json", (_req, res) =>
      json(res, 200, {
        requestId: "x#1",
        success: false,
        errors: [{ code: "606", message: "Max rate limit '100' exceeded with in '20' secs" }],
      }),
    );
    const { result } = await run("marketo_get_campaign", { id: 1001 });
    expect(errorOf(result)).toMatchObject({ kind: "rate_limited", retryable: true, code: "606" });
  });

  it("worldnews_search_news maps snake_case fields to the kebab-case query", async () => {
    answers.set("GET /search-news", (_req, res) => json(res, 200, { offset: 0, number: 1, available: 1, news: [] }));
    const { result, sent } = await run("worldnews_search_news", {
      text: "electric cars",
      language: "en",
      source_countries: "us,gb",
      earliest_publish_date: "2024-06-01 00:00:00",
      number: 5,
    });
    expect(result).toMatchObject({ ok: true, data: { available: 1 } });
    const q = sent[0]!.url.searchParams;
    expect(q.get("source-countries")).toBe("us,gb");
    expect(q.get("earliest-publish-date")).toBe("2024-06-01 00:00:00");
    expect(q.get("number")).toBe("5");
  });

  it("worldnews_extract_news reports a service failure", async () => {
    answers.set("GET /extract-news", (_req, res) =>
      json(res, 402, { status: "failure", code: 402, message: "Your daily points limit of 50 has been reached." }),
    );
    const error = errorOf(
      (await run("worldnews_extract_news", { url: "https://www.example.com/news/article-1" })).result,
    );
    expect(error.status).toBe(402);
    expect(error.message).toMatch(/points limit/);
  });

  it("contentsnare_create_client takes name and email and sends full_name", async () => {
    answers.set("POST /partner_api/v1/clients", (req, res) =>
      json(res, 201, { id: "acc_12345", ...JSON.parse(req.body) }),
    );
    const { result, sent } = await run("contentsnare_create_client", {
      name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "+44 20 7946 0000",
    });
    expect(result).toMatchObject({ ok: true, data: { id: "acc_12345", full_name: "Ada Lovelace" } });
    expect(JSON.parse(sent[0]!.body)).toEqual({
      full_name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "+44 20 7946 0000",
    });
    expect(sent[0]!.headers.authorization).toBe("Bearer cs-access-token-abc");
    const error = errorOf((await run("contentsnare_create_client", { email: "not-an-email" })).result);
    expect(error.fields.map((f) => f.path).sort()).toEqual(["email", "name"]);
  });

  it("contentsnare_create_request passes a service validation error through with the field", async () => {
    answers.set("POST /partner_api/v1/requests", (_req, res) =>
      json(res, 422, { error: "request_template_id is invalid", message: "request_template_id is invalid" }),
    );
    const error = errorOf(
      (
        await run("contentsnare_create_request", {
          name: "Onboarding",
          client_email: "ada@example.com",
          request_template_id: "tpl_missing",
          due: "2024-07-01",
        })
      ).result,
    );
    expect(error.kind).toBe("validation");
    expect(error.fields.map((f) => f.path)).toContain("request_template_id");
  });
});
