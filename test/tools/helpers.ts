/**
 * Loopback servers for the tool-step tests (127.0.0.1, port 0) that record every request, and
 * connections for the four services.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { text as bodyText } from "node:stream/consumers";
import type { Connection } from "../../runtime/index.js";

export interface Received {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Reply = (req: Received, res: ServerResponse) => void;

export interface Loopback {
  url: string;
  port: number;
  received: Received[];
  /** TCP connections accepted (a request that never got that far still counts here). */
  connections: number;
  close(): Promise<void>;
}

export async function loopback(reply: Reply): Promise<Loopback> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer(async (raw, res) => {
    // A sender that goes away before its body ends is not a request: nothing is recorded or answered.
    const body = await bodyText(raw).catch(() => undefined);
    if (body === undefined) return;
    const req: Received = {
      method: raw.method ?? "GET",
      url: new URL(raw.url ?? "/", "http://127.0.0.1"),
      headers: raw.headers,
      body,
    };
    received.push(req);
    try {
      reply(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  server.on("connection", (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const handle: Loopback = {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return handle;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  res.end(body);
}

export const TRELLO_KEY = "0123456789abcdef0123456789abcdef";
export const TRELLO_TOKEN = "ATTAtesttoken0123456789abcdef0123456789abcdef0123456789abcdef";

export const connections: Record<string, Connection> = {
  trello: { name: "work", fields: { apiKey: TRELLO_KEY, token: TRELLO_TOKEN } },
  marketo: {
    name: "mkto",
    fields: {
      endpoint: "https://123-ABC-456.mktorest.com",
      clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
      clientSecret: "mkto-secret-value-xyz",
    },
  },
  worldnews: { name: "news", fields: { apiKey: "worldnews-test-key-123456" } },
  contentsnare: {
    name: "snare",
    fields: {
      clientId: "cs-client",
      clientSecret: "cs-secret-value",
      accessToken: "cs-access-token-abc",
      refreshToken: "cs-refresh-token-def",
    },
  },
};

/** Fast retries so failure paths do not wait in tests. */
export const fastRetry = { attempts: 2, baseDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 100, random: () => 0 };
