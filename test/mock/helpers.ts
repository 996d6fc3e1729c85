/** Shared bits of the behavioural-mock tests: default credentials from the specs, and raw HTTP calls. */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { createSharedState, type ClientOptions, type ServiceDescriptor } from "../../runtime/index.js";
import { startMock, type MockDefinition, type MockOptions, type RunningMock } from "../../runtime/mock/index.js";
import "./register.js";

export const TRELLO = {
  apiKey: "0123456789abcdef0123456789abcdef",
  token: "ATTAmocktoken0123456789abcdef0123456789abcdef",
};
export const TRELLO_AUTH = `key=${TRELLO.apiKey}&token=${TRELLO.token}`;
export const MARKETO = {
  endpoint: "https://123-ABC-456.mktorest.com",
  clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
  clientSecret: "mock-client-secret-0123456789abcdef",
};
export const WORLDNEWS = { apiKey: "mock-worldnews-api-key-0123456789" };
export const CONTENTSNARE = {
  clientId: "mock-client-id",
  clientSecret: "mock-client-secret",
  accessToken: "mock-access-token",
  refreshToken: "mock-refresh-token",
};

export const BOARD = "60d5ecb74e2a1b3c4d5e6f70";
export const LIST = "60d5ecb74e2a1b3c4d5e6f72";
export const CARD = "6123a9f0c4b5d6e7f8091a2b";
export const LABEL = "60d5ecb74e2a1b3c4d5e6f81";

export interface Answer {
  status: number;
  type: string;
  text: string;
  json: any;
  headers: Headers;
}

export async function call(base: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const r = await fetch(base + path, { ...init, headers, body: body ?? null });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, type: r.headers.get("content-type") ?? "", text, json, headers: r.headers };
}

/** Client options for a generated client against a mock: own limit state, no client-side throttling, no retries. */
export function clientOptions(
  descriptor: ServiceDescriptor,
  url: string,
  fields: Record<string, string>,
  extra: Partial<ClientOptions> = {},
): ClientOptions {
  return {
    connection: { name: `mock-${descriptor.id}`, fields },
    baseUrl: url,
    shared: createSharedState(),
    limits: Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }])),
    retry: { attempts: 0 },
    ...extra,
  };
}

/** A hand-moved clock. */
export function manualClock(start = Date.UTC(2026, 0, 15, 12)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A loopback receiver of webhook calls. */
export async function receiver(headStatus = 200): Promise<{
  url: string;
  calls: Array<{ method: string; headers: IncomingMessage["headers"]; body: string }>;
  next: (n: number) => Promise<void>;
  close: () => Promise<void>;
}> {
  const calls: Array<{ method: string; headers: IncomingMessage["headers"]; body: string }> = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      calls.push({ method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(req.method === "HEAD" ? headStatus : 200).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?source=test`;
  return {
    url,
    calls,
    next: async (n) => {
      while (calls.filter((c) => c.method === "POST").length < n) await new Promise<void>((r) => waiters.push(r));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A `mock(service or definition, options)` starter whose mocks are all closed after each test. */
export function useMocks(): (service: string | MockDefinition, options?: MockOptions) => Promise<RunningMock> {
  const open: RunningMock[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
  });
  return async (service, options = {}) => {
    const m = await startMock(service, options);
    open.push(m);
    return m;
  };
}

/** The Authorization header of a token the Marketo mock at `url` grants for the default credentials. */
export async function marketoAuth(url: string): Promise<Record<string, string>> {
  const r = await call(
    url,
    `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
      `${MARKETO.clientSecret}`,
  );
  return { authorization: `Bearer ${r.json.access_token}` };
}
