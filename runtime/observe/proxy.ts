/**
 * The validation proxy: a client's base address points here, every request goes on to the real
 * service unchanged, and both directions are checked against the spec (conformance.ts). What
 * differs is gathered into a drift report (drift-report.ts); with `record`, every exchange goes
 * into a HAR 1.2 recording (har.ts). Credentials pass through to the service but are learned and
 * redacted from everything written down (secrets.ts).
 *
 * The answer the client gets is the service's, byte for byte (minus hop-by-hop headers): the proxy
 * watches, it never corrects. When the service cannot be reached the client gets a 502 naming the
 * upstream, and the report counts it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ConformanceDefinition, ConformanceChecker, type Difference } from "./conformance.js";
import { DriftReport, type DriftReportJson } from "./drift-report.js";
import { type Har, HarRecorder } from "./har.js";
import { Redactor } from "./secrets.js";

export interface ProxyOptions {
  definition: ConformanceDefinition;
  /** The real service's address (http or https); a path in it is put before every request's path. */
  upstream: string;
  /** 0 (default): a free port. */
  port?: number | undefined;
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** A leading path removed from each request before it is forwarded (`/1`). */
  stripPrefix?: string | undefined;
  /** Keep a HAR recording of every exchange. */
  record?: boolean | undefined;
  /** How the spec is named in the report. */
  specLabel?: string | undefined;
  /** Largest request body read (default 10 MiB; larger ones get a 413). */
  maxBodyBytes?: number | undefined;
  /** Longest wait for the upstream's answer (default 60 s). */
  timeoutMs?: number | undefined;
  /** Told of each exchange (after it is answered). */
  onExchange?:
    | ((info: {
        method: string;
        path: string;
        operationId?: string | undefined;
        status?: number | undefined;
        differences: number;
      }) => void)
    | undefined;
}

export interface RunningProxy {
  url: string;
  port: number;
  report(): DriftReportJson;
  markdown(): string;
  /** The recording (undefined without `record`). */
  har(): Har | undefined;
  /** Exchanges seen so far. */
  readonly exchanges: number;
  close(): Promise<void>;
}

/** Headers that describe one connection, not the message: never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "content-length",
]);

function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        req.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(size > max ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  const text = body.toString("utf8");
  if (/[/+]json\b/i.test(contentType ?? "") || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType ?? "")) return Object.fromEntries(new URLSearchParams(text));
  return text;
}

export async function startValidationProxy(options: ProxyOptions): Promise<RunningProxy> {
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
    if (upstream.protocol !== "http:" && upstream.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw new Error(`upstream must be an http(s) address such as https://api.trello.com, got "${options.upstream}"`);
  }
  if (upstream.username || upstream.password)
    throw new Error("upstream must not carry user:password@; put credentials on the requests");
  const base = upstream.href.replace(/\/+$/, "");
  const strip = options.stripPrefix?.replace(/\/+$/, "");
  if (strip !== undefined && strip !== "" && !strip.startsWith("/"))
    throw new Error(`stripPrefix must start with "/", got "${options.stripPrefix}"`);
  const maxBody = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const checker = new ConformanceChecker(options.definition);
  const redactor = new Redactor(options.definition.descriptor);
  const service = options.definition.descriptor.id;
  const report = new DriftReport({ service, spec: options.specLabel, upstream: redactor.url(base) });
  const recorder = options.record ? new HarRecorder(redactor) : undefined;
  let exchanges = 0;
  /**
   * A schema the checker cannot compile (a keyword Ajv refuses) must not break the traffic: the
   * exchange goes through unchecked and the report counts it.
   */
  const guarded = (check: () => Difference[], operationId: string): Difference[] => {
    try {
      return check();
    } catch (error) {
      report.uncheckable(operationId, redactor.text((error as Error).message));
      return [];
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAt = Date.now();
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", "http://proxy.invalid");
    const body = await readBody(req, maxBody);
    if (body === undefined) {
      res.writeHead(413, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ error: `stepforge proxy: request body larger than ${maxBody} bytes` }));
      return;
    }
    const contentType = req.headers["content-type"];
    redactor.learnRequest(url, req.headers);
    if (body.length) redactor.learnBody(body.toString("utf8"), contentType);
    const route = checker.route(method, url.pathname);
    const differences: Difference[] = [];
    if (route) {
      const seen = { path: route.params, query: url.searchParams, headers: req.headers, contentType };
      const check = () =>
        checker.checkRequest(route.op, { ...seen, body: parseBody(body, contentType), hasBody: body.length > 0 });
      differences.push(...guarded(check, route.op.operationId));
    }

    let path = url.pathname;
    if (strip && (path === strip || path.startsWith(`${strip}/`))) path = path.slice(strip.length) || "/";
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      // The client's answer must be bytes the proxy can read and check: no compression.
      if (name === "accept-encoding") continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const sent = performance.now();
    let answer: Response;
    let answerBody: Buffer;
    try {
      answer = await fetch(`${base}${path}${url.search}`, {
        method,
        headers,
        body: body.length && method !== "GET" && method !== "HEAD" ? new Uint8Array(body) : undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      answerBody = Buffer.from(await answer.arrayBuffer());
    } catch (error) {
      const reason = redactor.text(
        (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message,
      );
      report.exchange(route?.op, { method, path: redactor.text(url.pathname) }, undefined, differences, (v) =>
        redactor.example(v),
      );
      exchanges++;
      options.onExchange?.({
        method,
        path: url.pathname,
        operationId: route?.op.operationId,
        differences: differences.length,
      });
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: `stepforge proxy: the upstream ${redactor.url(base)} did not answer (${reason})` }),
        );
      }
      return;
    }
    const timeMs = performance.now() - sent;
    const answerType = answer.headers.get("content-type") ?? undefined;
    if (answerBody.length) redactor.learnBody(answerBody.toString("utf8"), answerType);
    if (route) {
      const answered = { status: answer.status, contentType: answerType, body: answerBody };
      differences.push(...guarded(() => checker.checkResponse(route.op, answered), route.op.operationId));
    }
    report.exchange(route?.op, { method, path: redactor.text(url.pathname) }, answer.status, differences, (v) =>
      redactor.example(v),
    );
    exchanges++;
    recorder?.add({
      startedAt,
      timeMs,
      operationId: route?.op.operationId,
      // An upstream with a path of its own, or a stripped prefix: the HAR URL's path is not the spec's.
      ...(new URL(`${base}${path}`).pathname !== url.pathname ? { path: url.pathname } : {}),
      request: { method, url: `${base}${path}${url.search}`, headers: req.headers, body },
      response: { status: answer.status, statusText: answer.statusText, headers: answer.headers, body: answerBody },
    });
    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (HOP_BY_HOP.has(name) || name === "content-encoding") return;
      out[name] = name === "set-cookie" ? answer.headers.getSetCookie() : value;
    });
    out["content-length"] = String(answerBody.length);
    // HTTP/2 and some servers give no reason phrase: Node then uses its own for the status.
    if (answer.statusText) res.writeHead(answer.status, answer.statusText, out);
    else res.writeHead(answer.status, out);
    res.end(answerBody);
    options.onExchange?.({
      method,
      path: url.pathname,
      operationId: route?.op.operationId,
      status: answer.status,
      differences: differences.length,
    });
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: `stepforge proxy: ${redactor.text((error as Error).message)}` }));
      } else res.destroy();
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === "EADDRINUSE"
            ? `port ${options.port} on ${host} is already in use; pick another (--port N, or 0 for a free one)`
            : `cannot listen on ${host}:${options.port ?? 0} (${e.code ?? e.message})`,
        ),
      ),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    report: () => report.toJSON(),
    markdown: () => report.toMarkdown(),
    har: () => recorder?.toJSON(),
    get exchanges() {
      return exchanges;
    },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      })),
  };
}
