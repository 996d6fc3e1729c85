/**
 * Test helpers: real HTTP servers on 127.0.0.1 (port 0) and descriptors built through the same zod
 * schemas the generator uses.
 */
import { expect, onTestFinished } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ServiceExtensionSchema } from "../../runtime/descriptor-schemas.js";
import {
  type ClientOptions,
  createServiceClient,
  createSharedState,
  type HttpMethod,
  type OperationDescriptor,
  type PagingSpec,
  QuotaExhaustedError,
  type ServiceClient,
  type ServiceDescriptor,
} from "../../runtime/index.js";

export interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export type Handler = (req: Seen, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (c: Buffer) => chunks.push(c));
    raw.on("end", () => {
      const req: Seen = {
        method: raw.method ?? "GET",
        url: new URL(raw.url ?? "/", "http://127.0.0.1"),
        headers: raw.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      seen.push(req);
      Promise.resolve(handler(req, res, raw)).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  return { ...(await listenOnLoopback(server)), seen };
}

/**
 * A server started inside a test and closed when that test ends, passed or failed (the teardown
 * every runtime test file used to write as its own afterEach).
 */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  onTestFinished(() => server.close());
  return server;
}

export interface Listening {
  url: string;
  port: number;
  /** Stops listening and cuts open keep-alive connections, so close never waits on a client. */
  close(): Promise<void>;
}

/** Starts `server` on a free 127.0.0.1 port. */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export interface OpInput {
  method: HttpMethod;
  path: string;
  idempotent?: boolean;
  limitClass?: "read" | "write";
  paging?: PagingSpec;
}

/** A descriptor from raw `x-stepforge` data (validated by the real schema) plus operations. */
export function makeDescriptor(extension: unknown, operations: Record<string, OpInput>): ServiceDescriptor {
  const parsed = ServiceExtensionSchema.parse(extension);
  const ops: Record<string, OperationDescriptor> = {};
  for (const [id, op] of Object.entries(operations)) {
    const safe = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].includes(op.method);
    ops[id] = {
      operationId: id,
      method: op.method,
      path: op.path,
      idempotent: op.idempotent ?? safe,
      limitClass: op.limitClass ?? (op.method === "GET" || op.method === "HEAD" ? "read" : "write"),
      ...(op.paging ? { paging: op.paging } : {}),
    };
  }
  return { ...parsed, operations: ops };
}

/** An api-key service (key + token in the query, like Trello) with the given limits and error rules. */
export function apiKeyService(
  extra: { limits?: unknown[]; errors?: Record<string, unknown> } = {},
  operations?: Record<string, OpInput>,
): ServiceDescriptor {
  return makeDescriptor(
    {
      id: "board",
      title: "Board",
      connection: {
        baseUrl: "https://api.board.example",
        fields: {
          apiKey: { description: "API key", secret: true, pattern: "^[0-9a-zA-Z_]{8,}$" },
          token: { description: "API token", secret: true },
        },
      },
      auth: {
        kind: "api-key",
        modes: {
          query: [
            { in: "query", name: "key", value: "{apiKey}" },
            { in: "query", name: "token", value: "{token}" },
          ],
          header: [
            {
              in: "header",
              name: "Authorization",
              value: 'OAuth oauth_consumer_key="{apiKey}", oauth_token="{token}"',
            },
          ],
        },
        defaultMode: "query",
        authorize: {
          url: "https://board.example/1/authorize",
          query: {
            expiration: "never",
            name: "{appName}",
            scope: "read,write",
            response_type: "token",
            key: "{apiKey}",
          },
        },
      },
      limits: extra.limits ?? [],
      errors: { messageFields: ["message", "error"], ...(extra.errors ?? {}) },
    },
    operations ?? {
      getThing: { method: "GET", path: "/1/things/{id}" },
      listThings: { method: "GET", path: "/1/things" },
      createThing: { method: "POST", path: "/1/things" },
      putThing: { method: "PUT", path: "/1/things/{id}" },
      getMember: { method: "GET", path: "/1/members/{id}" },
    },
  );
}

/**
 * A window limit of `requests` per `windowSeconds` that the service refuses with a plain 429; `scope`
 * adds what narrows it (per, applies, pathPrefix) and may set a description (the id otherwise).
 */
export function windowLimit(
  id: string,
  requests: number,
  windowSeconds: number,
  scope: Record<string, unknown> = {},
): Record<string, unknown> {
  return { id, kind: "window", requests, windowSeconds, description: id, rejection: { status: 429 }, ...scope };
}

/** What `promise` rejects with, checked to be a `type` (the test fails when it resolves). */
export async function rejectionOf<E>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** What `fn` throws, checked to be a `type` (the test fails when it returns). */
export function thrownBy<E>(fn: () => unknown, type: new (...args: never[]) => E): E {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** An OAuth client's id and secret, the connection fields every OAuth service of these tests has. */
export const OAUTH_CLIENT_FIELDS = {
  clientId: { description: "OAuth client id", secret: false },
  clientSecret: { description: "OAuth client secret", secret: true },
};

/** The access token sent as a bearer token in the Authorization header. */
export const BEARER_HEADER = { in: "header", name: "Authorization", value: "Bearer {accessToken}" };

export const KEY = "KEYMARKER0123456789abcdef";
export const TOKEN = "TOKENMARKER9876543210fedcba";

export function apiKeyConnection(name = "main", fields: Record<string, string> = {}) {
  return { name, fields: { apiKey: KEY, token: TOKEN, ...fields } };
}

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of `d` at `baseUrl` with the api-key connection and a state of its own, unless `options` say otherwise. */
export function apiKeyClient(
  d: ServiceDescriptor,
  baseUrl: string,
  options: Partial<ClientOptions> = {},
): ServiceClient {
  return createServiceClient(d, { connection: apiKeyConnection(), baseUrl, shared: createSharedState(), ...options });
}

/** What the client's next `getThing` call fails with (the quota tests expect a QuotaExhaustedError). */
export async function nextFailure(client: ServiceClient): Promise<QuotaExhaustedError> {
  return (await client
    .call("getThing", { params: { path: { id: "1" } } })
    .catch((e: unknown) => e)) as QuotaExhaustedError;
}

/** Calls `getThing` `calls` times through a fresh client of `d`, then returns what the next call fails with. */
export async function callPastQuota(d: ServiceDescriptor, baseUrl: string, calls = 3): Promise<QuotaExhaustedError> {
  const client = apiKeyClient(d, baseUrl);
  for (let i = 0; i < calls; i++) await client.call("getThing", { params: { path: { id: "1" } } });
  return nextFailure(client);
}

/**
 * A spent quota refuses the next call before it is sent: it fails with QuotaExhaustedError and the
 * server saw only the one request that told the client the quota was spent.
 */
export async function expectRefusedLocally(client: ServiceClient, server: { seen: unknown[] }): Promise<void> {
  await expect(client.call("getThing", { params: { path: { id: "1" } } })).rejects.toBeInstanceOf(QuotaExhaustedError);
  expect(server.seen).toHaveLength(1);
}
