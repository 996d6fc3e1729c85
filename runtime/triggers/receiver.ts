/**
 * The webhook receiver: framework-neutral (a request in, a status out) with a node:http adapter and
 * a server that holds the line under load.
 *
 * Order matters: the body size is limited while reading, the signature is checked with a
 * constant-time compare over the raw bytes before anything is parsed or delivered, and only then
 * is the JSON parsed and the event id checked against recent deliveries. A receiver without a
 * secret cannot be built: verification is never silently skipped.
 *
 * Repeats are dropped by delivery id for a time window (default 7 days) in the state layer, so a
 * replay is recognised however many deliveries came in between, and by every process that shares
 * the state (a file folder or Redis). A delivery whose consumer failed is let through once more
 * when the service retries it.
 *
 * Under load (`createWebhookServer`): at most `maxConnections` open connections (one more is
 * answered 503 and closed at once), at most `maxBufferedBytes` of request bodies held in memory
 * across all requests (a request that would pass it is answered 503 and cut), headers within
 * `headersTimeoutMs` and the whole body within `bodyTimeoutMs` of the request's start (else 408 and
 * the connection is closed). So memory stays bounded by the caps, not by what clients send.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { hmacOf } from "../internal/hmac.js";
import { hashed, stateKey } from "../state/keys.js";
import { MemoryStateStore } from "../state/memory.js";
import { StateUnavailableError, type StateStore } from "../state/types.js";
import type { Delivery } from "./model.js";
import { getPath } from "../internal/values.js";

export interface WebhookRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface WebhookResponse {
  status: number;
  body: string;
  headers?: Record<string, string> | undefined;
}

export interface ReceiverOptions {
  /** The app secret the service signs deliveries with. Required. */
  secret: string;
  /** The callback URL exactly as registered (part of what Trello signs). */
  callbackUrl: string;
  delivery: Delivery;
  /** Called once per new, verified delivery. A throw answers 500 so the service retries. */
  onDelivery: (payload: Record<string, unknown>) => void | Promise<void>;
  maxBodyBytes?: number;
  /**
   * Where delivery ids are remembered: in this process by default; a FileStateStore or Redis store
   * shares them with every receiver of the same callback (several workers behind one address).
   * Its clock is the receiver's clock.
   */
  state?: StateStore | undefined;
  /** How long a delivery id is remembered; a repeat within it is dropped (default 7 days). */
  dedupeWindowMs?: number | undefined;
  /** Names this receiver's ids in a shared store (default: a hash of the callback URL). */
  dedupeScope?: string | undefined;
  /** The cap on request bodies held in memory at once, over all requests (default 16 MiB). */
  maxBufferedBytes?: number | undefined;
  /** A request's body must be complete this long after its headers arrived (default 15 s). */
  bodyTimeoutMs?: number | undefined;
}

export interface ReceiverStats {
  accepted: number;
  duplicates: number;
  rejectedSignature: number;
  rejectedSize: number;
  rejectedMalformed: number;
  probes: number;
  /** Answered 503: the caps on connections or buffered bytes were reached, or the shared state was unreachable. */
  rejectedBusy: number;
  /** Answered 408: the body did not arrive in time. */
  timedOut: number;
}

export class ReceiverConfigError extends Error {
  override name = "ReceiverConfigError";
}

const DEFAULT_MAX_BODY = 256 * 1024;
export const RECEIVER_DEFAULTS = {
  dedupeWindowMs: 7 * 24 * 3600_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  bodyTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  maxConnections: 512,
  keepAliveTimeoutMs: 5_000,
} as const;
/** A delivery whose consumer failed may be let through again for this long (the service's retries). */
const RETRY_GRACE_MS = 24 * 3600_000;
/** How long a refused client may keep sending (dropped) while it reads the answer. */
const CUT_GRACE_MS = 3000;
/** Seconds a busy receiver asks the service to wait. */
const BUSY_RETRY_AFTER = "5";

/** The state keys one delivery id uses: ids are spread over 64 sets, so each operation touches few. */
function dedupeKeys(scope: string, id: string) {
  const digest = hashed(id);
  const bucket = (parseInt(digest.slice(0, 2), 16) % 64).toString();
  return { seen: stateKey("webhook", "seen", scope, bucket), retry: stateKey("webhook", "retry", scope, digest), member: digest };
}

export function signPayload(secret: string, delivery: Pick<Delivery, "signature">, rawBody: Buffer | string, callbackUrl: string): string {
  const { signature } = delivery;
  return hmacOf(signature.algorithm, signature.encoding, secret, signature.message === "body+callbackUrl" ? [rawBody, callbackUrl] : [rawBody]);
}

/** Constant-time: both sides are HMAC'd again so the compare never depends on where they differ or their length. */
function sameSignature(expected: string, given: string, secret: string): boolean {
  const a = createHmac("sha256", secret).update(expected).digest();
  const b = createHmac("sha256", secret).update(given).digest();
  return timingSafeEqual(a, b);
}

function header(headers: WebhookRequest["headers"], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) throw new ReceiverConfigError(`${name} must be a positive number, not ${String(value)}`);
  return value;
}

export function createWebhookReceiver(options: ReceiverOptions) {
  if (typeof options.secret !== "string" || options.secret.length === 0) {
    throw new ReceiverConfigError("a webhook secret is required: deliveries are verified with it (set --secret or the receiver's `secret`)");
  }
  if (!/^https?:\/\//.test(options.callbackUrl)) {
    throw new ReceiverConfigError("callbackUrl must be the absolute http(s) URL registered with the service, exactly as registered");
  }
  const maxBody = positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY);
  const dedupeWindowMs = positive("dedupeWindowMs", options.dedupeWindowMs, RECEIVER_DEFAULTS.dedupeWindowMs);
  const maxBuffered = positive("maxBufferedBytes", options.maxBufferedBytes, RECEIVER_DEFAULTS.maxBufferedBytes);
  const bodyTimeoutMs = positive("bodyTimeoutMs", options.bodyTimeoutMs, RECEIVER_DEFAULTS.bodyTimeoutMs);
  const state = options.state ?? new MemoryStateStore();
  const scope = options.dedupeScope ?? hashed(options.callbackUrl);
  const stats: ReceiverStats = { accepted: 0, duplicates: 0, rejectedSignature: 0, rejectedSize: 0, rejectedMalformed: 0, probes: 0, rejectedBusy: 0, timedOut: 0 };
  const { delivery } = options;
  /** Body bytes held by requests still being read. */
  let buffered = 0;

  const busy = (why: string): WebhookResponse => {
    stats.rejectedBusy++;
    return { status: 503, body: `receiver busy: ${why}; retry later`, headers: { "retry-after": BUSY_RETRY_AFTER } };
  };

  /** True when this delivery should be handed to the consumer: new, or a retry of one whose consumer failed. */
  async function claim(id: string): Promise<boolean> {
    const keys = dedupeKeys(scope, id);
    if (await state.firstSeen(keys.seen, keys.member, dedupeWindowMs)) return true;
    const failed = await state.get(keys.retry);
    // Only one worker takes a retry: the delete succeeds for one of them.
    return failed !== undefined && (await state.delete(keys.retry, { ifVersion: failed.version }));
  }

  async function handle(request: WebhookRequest): Promise<WebhookResponse> {
    const method = request.method.toUpperCase();
    if (delivery.probeMethod && method === delivery.probeMethod) {
      stats.probes++;
      return { status: 200, body: "" };
    }
    if (method !== "POST") return { status: 405, body: "method not allowed" };
    if (request.body.length > maxBody) {
      stats.rejectedSize++;
      return { status: 413, body: "payload too large" };
    }
    const given = header(request.headers, delivery.signature.header);
    if (!given || !sameSignature(signPayload(options.secret, delivery, request.body, options.callbackUrl), given, options.secret)) {
      stats.rejectedSignature++;
      return { status: 401, body: "invalid signature" };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(request.body.toString("utf8"));
    } catch {
      stats.rejectedMalformed++;
      return { status: 400, body: "malformed JSON" };
    }
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      stats.rejectedMalformed++;
      return { status: 400, body: "expected a JSON object" };
    }
    const id = getPath(payload, delivery.eventIdPath);
    if (typeof id !== "string" || id.length === 0) {
      stats.rejectedMalformed++;
      return { status: 400, body: `missing ${delivery.eventIdPath}` };
    }
    let fresh: boolean;
    try {
      fresh = await claim(id);
    } catch (error) {
      // Without the shared record a repeat cannot be told apart: ask the service to come back.
      if (error instanceof StateUnavailableError) return busy("the shared state is unreachable");
      throw error;
    }
    if (!fresh) {
      stats.duplicates++;
      return { status: 200, body: "duplicate ignored" };
    }
    try {
      await options.onDelivery(payload as Record<string, unknown>);
    } catch {
      // Let the service's retry through (once per failure, in whichever worker gets it).
      await state.set(dedupeKeys(scope, id).retry, 1, { ttlMs: RETRY_GRACE_MS }).catch(() => undefined);
      return { status: 500, body: "delivery failed" };
    }
    stats.accepted++;
    return { status: 200, body: "ok" };
  }

  /**
   * node:http adapter: reads at most maxBody+1 bytes, within the body timeout and the shared cap on
   * buffered bytes, then answers via `handle`.
   */
  function nodeHandler(req: IncomingMessage, res: ServerResponse): void {
    if (refusedSockets.has(req.socket)) {
      req.resume(); // answered at connect time; what it sends is read and dropped, never kept
      return;
    }
    const declared = Number(req.headers["content-length"] ?? "0");
    let held = 0;
    let done = false;
    const finish = () => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      buffered -= held;
      held = 0;
      return true;
    };
    const reply = (r: WebhookResponse) => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(r.status, { "content-type": "text/plain; charset=utf-8", connection: "close", ...r.headers });
      res.end(r.body);
    };
    /** Answers now and keeps nothing more: the rest of the body is read and dropped, briefly. */
    const cut = (r: WebhookResponse) => {
      if (!finish()) return;
      reply(r);
      // Dropping (not pausing) what still arrives lets the client read the answer: a socket closed
      // with unread input is reset, and the reset can destroy the answer before it is read. A client
      // still sending after the grace period is cut off.
      req.resume();
      setTimeout(() => req.socket.destroy(), CUT_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      stats.timedOut++;
      cut({ status: 408, body: `request body not received within ${Math.round(bodyTimeoutMs / 1000)} s` });
    }, bodyTimeoutMs);
    timer.unref?.();
    if (declared > maxBody) {
      stats.rejectedSize++;
      cut({ status: 413, body: "payload too large" });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBody) {
        stats.rejectedSize++;
        cut({ status: 413, body: "payload too large" });
        return;
      }
      if (buffered + chunk.length > maxBuffered) {
        cut(busy("too many request bytes in flight"));
        return;
      }
      buffered += chunk.length;
      held += chunk.length;
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!finish()) return;
      handle({ method: req.method ?? "GET", headers: req.headers, body: Buffer.concat(chunks) }).then(reply, () => reply({ status: 500, body: "error" }));
    });
    // A client that goes away mid-body frees what it held.
    req.on("close", () => void finish());
    req.on("error", () => undefined);
  }

  return {
    handle,
    nodeHandler,
    stats,
    /** Body bytes held in memory right now (for tests and metrics). */
    bufferedBytes: () => buffered,
    /** The settings in force (defaults filled in). */
    settings: { maxBodyBytes: maxBody, maxBufferedBytes: maxBuffered, bodyTimeoutMs, dedupeWindowMs, backend: state.backend },
  };
}

export type WebhookReceiver = ReturnType<typeof createWebhookReceiver>;

/** Sockets answered 503 at connect time (over the connection cap): their requests are not handled. */
const refusedSockets = new WeakSet<Socket>();

export interface WebhookServerOptions {
  /** Open connections at most; one more is answered 503 and closed (default 512). */
  maxConnections?: number | undefined;
  /** The request line and headers must arrive within this long (default 10 s; else 408). */
  headersTimeoutMs?: number | undefined;
  /** An idle keep-alive connection is closed after this long (default 5 s). */
  keepAliveTimeoutMs?: number | undefined;
}

/**
 * An http.Server for the receiver with the caps and timeouts enforced: Node checks header and
 * request timeouts on an interval (30 s by default, which is why a 15 s timeout used to hold
 * connections for ~30 s); here the interval is a fraction of the timeout, and the body timeout is
 * the receiver's own timer.
 */
export function createWebhookServer(receiver: WebhookReceiver, options: WebhookServerOptions = {}): Server {
  const maxConnections = positive("maxConnections", options.maxConnections, RECEIVER_DEFAULTS.maxConnections);
  const headersTimeout = positive("headersTimeoutMs", options.headersTimeoutMs, RECEIVER_DEFAULTS.headersTimeoutMs);
  const keepAliveTimeout = positive("keepAliveTimeoutMs", options.keepAliveTimeoutMs, RECEIVER_DEFAULTS.keepAliveTimeoutMs);
  const server = createServer(
    {
      headersTimeout,
      // A backstop only: the receiver's own timer answers 408 when the body is late.
      requestTimeout: headersTimeout + receiver.settings.bodyTimeoutMs * 2,
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
      keepAliveTimeout,
    },
    receiver.nodeHandler,
  );
  let open = 0;
  server.on("connection", (socket: Socket) => {
    open++;
    socket.once("close", () => open--);
    if (open > maxConnections) {
      refusedSockets.add(socket);
      receiver.stats.rejectedBusy++;
      const body = "receiver busy: too many open connections; retry later";
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: ${BUSY_RETRY_AFTER}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // What it sends meanwhile is read and dropped (see nodeHandler); then the socket goes.
      setTimeout(() => socket.destroy(), CUT_GRACE_MS).unref();
    }
  });
  return server;
}
