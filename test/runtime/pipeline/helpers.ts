/**
 * Fake fetch for the request pipeline's unit tests: a plain function that records what each part
 * sends and answers from a handler, with no server. The loopback tests (test/runtime/*.test.ts)
 * run the same parts against real sockets.
 */
import type { OperationDescriptor, ServiceDescriptor } from "../../../runtime/index.js";
import { apiKeyService, BEARER_HEADER, makeDescriptor, OAUTH_CLIENT_FIELDS } from "../helpers.js";

export interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | undefined;
}

export type Answer = (sent: Sent, n: number) => Response | Promise<Response>;

export interface FakeFetch {
  fetch: typeof fetch;
  sent: Sent[];
}

export function fakeFetch(answer: Answer = () => jsonResponse(200, { ok: true })): FakeFetch {
  const sent: Sent[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const one: Sent = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: init?.body,
      signal: init?.signal ?? undefined,
    };
    sent.push(one);
    return answer(one, sent.length);
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A fetch that never answers until its signal aborts (then rejects as fetch does). */
export function hangingFetch(): FakeFetch {
  return fakeFetch(
    (sent) =>
      new Promise<Response>((_, reject) => {
        const fail = () => reject(sent.signal!.reason ?? new DOMException("aborted", "AbortError"));
        if (sent.signal?.aborted) fail();
        else sent.signal?.addEventListener("abort", fail);
      }),
  );
}

/** A fetch that fails before sending, as undici does when nothing listens on the port. */
export function refusedFetch(): FakeFetch {
  return fakeFetch(() => {
    throw Object.assign(new TypeError("fetch failed"), {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
  });
}

export const board = (limits: unknown[] = [], errors: Record<string, unknown> = {}): ServiceDescriptor =>
  apiKeyService({ limits, errors });

/** A client-credentials service: the token comes from /oauth/token, the bearer goes in a header. */
export function oauthService(): ServiceDescriptor {
  return makeDescriptor(
    {
      id: "leads",
      title: "Leads",
      connection: {
        baseUrl: "https://api.leads.example",
        fields: OAUTH_CLIENT_FIELDS,
      },
      auth: {
        kind: "oauth2-client-credentials",
        tokenUrl: "https://api.leads.example/oauth/token",
        tokenMethod: "POST",
        clientIdField: "clientId",
        clientSecretField: "clientSecret",
        credentialsIn: "form",
        send: BEARER_HEADER,
      },
      limits: [],
      errors: { statuses: { "401": { kind: "auth", retry: false, reauth: true, description: "token refused" } } },
    },
    { getLeads: { method: "GET", path: "/leads" }, createLead: { method: "POST", path: "/leads" } },
  );
}

export const op = (descriptor: ServiceDescriptor, id: string): OperationDescriptor => descriptor.operations[id]!;
