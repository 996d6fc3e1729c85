/**
 * The MCP server over Streamable HTTP (the SDK's transport, stateless: every POST to `/mcp` gets
 * a fresh SDK server over the same catalogue, accounts and cursors).
 *
 * Who may call:
 * - on a loopback address (the default, 127.0.0.1) anyone on this machine, but only with a
 *   loopback `Host` (and `Origin`, when sent), so a web page cannot reach it through DNS
 *   rebinding; a bearer token, when set, is required as well;
 * - on any other address only with the bearer token (`Authorization: Bearer …`); starting without
 *   one is refused.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { isLoopbackHost } from "../internal/loopback.js";

export interface McpHttpOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** Required beyond loopback. */
  token?: string | undefined;
  /** Largest request body accepted (default 4 MiB). */
  maxBodyBytes?: number | undefined;
}

export interface RunningMcpHttp {
  url: string;
  port: number;
  close(): Promise<void>;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJson(
  req: IncomingMessage,
  limit: number,
): Promise<{ ok: true; body: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return { ok: false, status: 413, message: `request body over ${limit} bytes` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { ok: false, status: 400, message: "the request body is not valid JSON" };
  }
}

export async function serveMcpHttp(makeServer: () => Server, options: McpHttpOptions): Promise<RunningMcpHttp> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopbackHost(host);
  if (!loopback && !options.token)
    throw new Error(`listening on ${host} (beyond loopback) needs a bearer token: set STEPFORGE_MCP_TOKEN`);
  const limit = options.maxBodyBytes ?? 4 * 2 ** 20;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return reply(res, 404, "not found; the MCP endpoint is /mcp");
    if (loopback) {
      const hostname = hostnameOf(req.headers.host);
      if (!hostname || !isLoopbackHost(hostname)) return reply(res, 403, "forbidden host");
      const origin = req.headers.origin;
      if (origin && !isLoopbackHost(hostnameOf(origin.replace(/^[a-z]+:\/\//i, "")) ?? ""))
        return reply(res, 403, "forbidden origin");
    }
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) {
      return reply(res, 401, "a bearer token is required (Authorization: Bearer <token>)", {
        "www-authenticate": 'Bearer realm="stepforge-mcp"',
      });
    }
    if (req.method !== "POST")
      return reply(res, 405, "this server is stateless: POST JSON-RPC messages to /mcp", { allow: "POST" });
    const parsed = await readJson(req, limit);
    if (!parsed.ok) return reply(res, parsed.status, parsed.message);
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed.body);
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, "internal error");
      else res.end();
    });
  });
  http.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/mcp`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections?.();
        http.close(() => resolve());
      }),
  };
}
