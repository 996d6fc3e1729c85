/**
 * The behavioural mock on node:http, 127.0.0.1 only: reads a request (without a stream iterator
 * when it has no body), hands it to the engine, writes the reply (slowly when a fault says so) or
 * drops the socket, and serves the `/__mock/` control routes. A port that cannot be taken is an
 * error naming the port and what to do.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { MockEngine, type Outcome } from "./engine.js";
import { jsonReply, type MockDefinition, type MockOptions, type Reply, type RunningMock } from "./types.js";

export class MockListenError extends Error {
  override name = "MockListenError";
  constructor(
    readonly service: string,
    readonly port: number,
    readonly code: string,
  ) {
    super(
      code === "EADDRINUSE"
        ? `${service} mock: port ${port} on 127.0.0.1 is already in use; stop what holds ` +
            `it, or pick another port (--port N, or 0 for a free one)`
        : code === "EACCES"
          ? `${service} mock: not allowed to listen on port ${port}; use a port above 1023 (--port N)`
          : `${service} mock: cannot listen on 127.0.0.1:${port} (${code})`,
    );
  }
}

/** Writes a reply; true when it is written, false while a slow body is still going out. */
function send(res: ServerResponse, reply: Reply, slow?: { delayMs: number; chunkBytes: number }): boolean {
  if (res.writableEnded || res.destroyed) return true;
  reply.headers["content-length"] = String(reply.body.length);
  res.writeHead(reply.status, reply.headers);
  if (!slow || reply.body.length === 0) {
    res.end(reply.body);
    return true;
  }
  void (async () => {
    for (let i = 0; i < reply.body.length; i += slow.chunkBytes) {
      if (res.destroyed) return;
      res.write(reply.body.subarray(i, i + slow.chunkBytes));
      await new Promise((r) => setTimeout(r, slow.delayMs));
    }
    res.end();
  })();
  return false;
}

const EMPTY = Buffer.alloc(0);

/**
 * The largest request body the mock reads unless told otherwise. The APIs it imitates take bodies
 * of a megabyte or so at most, and a body is held several times over while it is answered (the
 * bytes, their text, the parsed value, a stored copy): without a cap a 300 MB body took 1.3 GB. Ten
 * times the largest real payload leaves room for tests of big batches and keeps a call's memory
 * bounded.
 */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** How long a refused client may keep sending (read and dropped) while it reads the 413. */
const CUT_GRACE_MS = 3000;
const CONTROL_ROUTES = [
  "GET /__mock/counters",
  "GET /__mock/state",
  "GET /__mock/records/<resource>",
  "POST /__mock/reset",
];

/** The control routes under `/__mock/` (counters, state, records, reset), or undefined for a service route. */
function control(engine: MockEngine, method: string, url: string): Reply | undefined {
  if (!url.startsWith("/__mock/")) return undefined;
  const pathname = url.split("?")[0]!;
  if (pathname === "/__mock/counters" && method === "GET") return jsonReply(200, engine.counters());
  if (pathname === "/__mock/state" && method === "GET") return jsonReply(200, engine.dumpState());
  if (pathname === "/__mock/reset" && method === "POST") {
    engine.reset();
    return jsonReply(200, { reset: true });
  }
  const resource = /^\/__mock\/records\/([A-Za-z0-9_]+)$/.exec(pathname)?.[1];
  // Own keys only: `constructor` or `toString` is not a resource because every object has one.
  if (resource && method === "GET" && Object.hasOwn(engine.model.resources, resource))
    return jsonReply(200, engine.records(resource));
  return jsonReply(404, { error: "unknown mock control route", routes: CONTROL_ROUTES });
}

/** Starts the mock of one service on 127.0.0.1. */
export async function startMockServer(definition: MockDefinition, options: MockOptions = {}): Promise<RunningMock> {
  const maxBody = options.server?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isSafeInteger(maxBody) && maxBody > 0))
    throw new Error(`${definition.descriptor.id} mock: server.maxBodyBytes must be a positive whole number of bytes`);
  const engine = new MockEngine(definition, options);
  const sockets = new Set<Socket>();
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    const reply = engine.failed(req.method ?? "GET", req.url ?? "/", error);
    if (!res.headersSent) send(res, reply);
  };
  const deliver = (req: IncomingMessage, res: ServerResponse, outcome: Outcome): void => {
    if (outcome.drop) {
      req.socket.destroy();
      return;
    }
    // What admission lent the request goes back once the answer is out (or the client left).
    if (send(res, outcome.reply, outcome.slowBody)) engine.done(outcome);
    else res.once("close", () => engine.done(outcome));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    try {
      const controlled = control(engine, req.method ?? "GET", req.url ?? "/");
      if (controlled) return void send(res, controlled);
      const request = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
      const replayed = options.hooks?.replay?.answer(request);
      if (replayed) return void send(res, replayed);
      const outcome = engine.handle(request);
      if (outcome instanceof Promise)
        outcome.then(
          (o) => deliver(req, res, o),
          (e: unknown) => failed(req, res, e),
        );
      else deliver(req, res, outcome);
    } catch (error) {
      failed(req, res, error);
    }
  };
  /** A body over the cap: answered at once, the rest read and dropped, the connection closed. */
  const refuse = (req: IncomingMessage, res: ServerResponse) => {
    const reply = engine.tooLarge(req.method ?? "GET", req.url ?? "/", maxBody);
    reply.headers.connection = "close";
    send(res, reply);
    // Dropping (not pausing) what still arrives lets the client read the answer: a socket closed
    // with unread input is reset, and the reset can destroy the answer before it is read.
    req.resume();
    setTimeout(() => req.socket.destroy(), CUT_GRACE_MS).unref();
  };
  const server = createServer((req, res) => {
    // Most calls carry no body: answer without waiting for a stream that has nothing to say.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
      req.resume();
      return handle(req, res, EMPTY);
    }
    if (Number(req.headers["content-length"]) > maxBody) return refuse(req, res);
    // Counted as it arrives too: a chunked body declares no length.
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= maxBody) return void chunks.push(c);
      chunks.length = 0;
      req.off("data", onData);
      req.off("end", onEnd);
      refuse(req, res);
    };
    const onEnd = () => handle(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", () => req.socket.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const wanted = options.server?.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new MockListenError(definition.descriptor.id, wanted, e.code ?? "error")),
    );
    server.listen(wanted, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    service: definition.descriptor.id,
    url: `http://127.0.0.1:${port}`,
    port,
    counters: () => engine.counters(),
    records: (resource) => engine.records(resource),
    dumpState: () => engine.dumpState(),
    reset: () => engine.reset(),
    close: () =>
      (closed ??= (async () => {
        await engine.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
      })()),
  };
}
