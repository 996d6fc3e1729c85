/**
 * The service's own error answers: each situation (bad request, unknown route, expired token, …)
 * rendered through the spec's error template (`x-stepforge.mock.error` and `answers`).
 */
import type { MockAnswer, MockErrorTemplate, MockService, MockSituation } from "./extension-types.js";
import { render, renderString, type Context } from "./template.js";
import { Reply } from "./types.js";

export const DEFAULT_ANSWERS: Record<MockSituation, MockAnswer> = {
  badRequest: { status: 400, message: "{detail}" },
  invalidJson: { status: 400, message: "the request body is not valid JSON" },
  noRoute: { status: 404, message: "Cannot {method} {path}" },
  notFound: { status: 404, message: "not found" },
  unauthorized: { status: 401, message: "unauthorized" },
  expiredToken: { status: 401, message: "token expired" },
  server: { status: 500, message: "internal error" },
  webhookRejected: { status: 400, message: "callback did not answer 200" },
  tokenRejected: { status: 401, message: "invalid client credentials" },
  tooLarge: { status: 413, message: "request body larger than {limit} bytes" },
};

export class Answers {
  constructor(private readonly model: MockService) {}

  /** An answer rendered with the service's (or the answer's own) error template. */
  error(answer: MockAnswer, ctx: Context, headers: Record<string, string> = {}, template?: MockErrorTemplate): Reply {
    const t = template ?? answer.template ?? this.model.error;
    const message = renderString(answer.message, ctx) ?? answer.message;
    const vars = { ...ctx, message, code: answer.code, status: answer.status };
    const status = t.status ?? answer.status ?? 400;
    const body = render(t.body, vars);
    const text = typeof body === "string" && !/json/.test(t.contentType) ? body : JSON.stringify(body);
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(t.headers ?? {})) extra[k.toLowerCase()] = renderString(v, vars) ?? "";
    return new Reply(status, Buffer.from(text), { "content-type": t.contentType, ...extra, ...headers });
  }

  /** The service's answer to a situation; `extra` fills `{field}`, `{detail}` and the like. */
  of(situation: MockSituation, ctx: Context, extra: Context = {}): Reply {
    return this.error(this.model.answers[situation] ?? DEFAULT_ANSWERS[situation], { ...ctx, ...extra });
  }

  /**
   * The mock's own failure: a 500 in the service's error body. Not the `server` answer's own
   * template, which is a gateway's page with a status of its own (Marketo's HTML 502) and would
   * contradict the 500; and nothing of the exception, which is about the mock, not the call.
   */
  internal(ctx: Context): Reply {
    const server = this.model.answers.server;
    const answer = server && !server.template ? server : DEFAULT_ANSWERS.server;
    return this.error({ ...answer, status: 500 }, ctx, {}, { ...this.model.error, status: 500 });
  }

  /** A 5xx in the service's shape (an injected fault). */
  server(status: number, ctx: Context): Reply {
    return this.error({ ...(this.model.answers.server ?? DEFAULT_ANSWERS.server), status }, ctx);
  }
}
