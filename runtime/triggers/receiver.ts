/**
 * The webhook receiver: framework-neutral (a request in, a status out) with a node:http adapter and
 * a server that keeps serving the service while others flood it.
 *
 * Order matters: what the method and headers decide is decided first (./signature.ts `preflight`:
 * the probe, the method, a declared size, the media type, the signature header's shape), before
 * any body byte is read; the body size is limited while reading; the signature is checked with a
 * constant-time compare over the raw bytes before anything is parsed or delivered; only then is
 * the JSON parsed and the event id checked against recent deliveries. A receiver without a secret
 * cannot be built: verification is never silently skipped.
 *
 * Repeats are dropped by delivery id for a time window (default 7 days) in the state layer, so a
 * replay is recognised however many deliveries came in between, and by every process that shares
 * the state (a file folder or Redis). A delivery whose consumer failed is let through once more
 * when the service retries it.
 *
 * Under load (`nodeHandler`, `createWebhookServer`), every cap is shared fairly between remote
 * addresses (./admission.ts): at most `maxConnections` open connections, `maxConnectionsPerAddress`
 * of them from one address; at most `maxBufferedBytes` of request bodies held in memory,
 * `maxBufferedBytesPerAddress` of them for one address. When a total is reached, the address that
 * holds the most gives way to one that holds less. A body must keep arriving at
 * `minBodyBytesPerSecond` (judged over `bodyRateWindowMs`), come complete within `bodyTimeoutMs`,
 * and the headers within `headersTimeoutMs`; else 408 and the connection is closed. So memory stays
 * bounded by the caps, and a sender that is not the service cannot hold the service out.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { getPath } from "../internal/values.js";
import { hashed, stateKey } from "../state/keys.js";
import { MemoryStateStore } from "../state/memory.js";
import { StateUnavailableError, type StateStore } from "../state/types.js";
import { addressKey, FairShare, type Holder, type Refusal } from "./admission.js";
import type { Delivery } from "./model.js";
import { header, preflight, sameSignature, signPayload, type Headers, type WebhookResponse } from "./signature.js";

export { signPayload } from "./signature.js";
export type { WebhookResponse } from "./signature.js";

export interface WebhookRequest {
  method: string;
  headers: Headers;
  body: Buffer;
}

export interface ReceiverOptions {
  /** The app secret the service signs deliveries with. Required. */
  secret: string;
  /** The callback URL exactly as registered (part of what some services sign). */
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
  /** The cap on request bodies held at once for one remote address (default 2 MiB). */
  maxBufferedBytesPerAddress?: number | undefined;
  /** A request's body must be complete this long after its headers arrived (default 15 s). */
  bodyTimeoutMs?: number | undefined;
  /** A body still arriving must bring at least this many bytes a second (default 1024)... */
  minBodyBytesPerSecond?: number | undefined;
  /** ...in every window of this long (default 2 s); the first window starts with the headers. */
  bodyRateWindowMs?: number | undefined;
}

export interface ReceiverStats {
  accepted: number;
  duplicates: number;
  rejectedSignature: number;
  rejectedSize: number;
  rejectedMalformed: number;
  /** Answered 415: the request's media type is not the one the spec's deliveries have. */
  rejectedMediaType: number;
  probes: number;
  /** Answered from the method and headers alone, before any of the body was read (4xx). */
  rejectedEarly: number;
  /** Answered 503: a cap on connections or buffered bytes was reached, or the shared state was unreachable. */
  rejectedBusy: number;
  /** Of `rejectedBusy`: the sender's own address was at its cap. */
  rejectedPerAddress: number;
  /** Connections and bodies dropped so that an address holding less could be served. */
  evicted: number;
  /** Answered 408: the body did not arrive in time. */
  timedOut: number;
  /** Of `timedOut`: the body arrived slower than the minimum rate. */
  slowBodies: number;
}

/** What the receiver holds now, and the most it has held (for tests and metrics). */
export interface ReceiverLoad {
  bufferedBytes: number;
  peakBufferedBytes: number;
  /** The most body bytes one remote address held at once. */
  peakAddressBytes: number;
  /** Open connections admitted by `createWebhookServer` (0 without one). */
  connections: number;
  peakConnections: number;
  peakAddressConnections: number;
}

export class ReceiverConfigError extends Error {
  override name = "ReceiverConfigError";
}

const DEFAULT_MAX_BODY = 256 * 1024;
export const RECEIVER_DEFAULTS = {
  dedupeWindowMs: 7 * 24 * 3600_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  maxBufferedBytesPerAddress: 2 * 1024 * 1024,
  bodyTimeoutMs: 15_000,
  minBodyBytesPerSecond: 1024,
  bodyRateWindowMs: 2_000,
  headersTimeoutMs: 10_000,
  maxConnections: 512,
  maxConnectionsPerAddress: 64,
  keepAliveTimeoutMs: 5_000,
} as const;
/** A delivery whose consumer failed may be let through again for this long (the service's retries). */
const RETRY_GRACE_MS = 24 * 3600_000;
/** How long a refused client may keep sending (dropped) while it reads the answer. */
const CUT_GRACE_MS = 3000;
/** Seconds a busy receiver asks the service to wait. */
const BUSY_RETRY_AFTER = "5";

/** Sockets answered 503 at connect time (over a connection cap): their requests are not handled. */
const refusedSockets = new WeakSet<Socket>();
/** Sockets whose request body is being read: evicted last when connections must give way. */
const readingSockets = new WeakSet<Socket>();

/** The state keys one delivery id uses: ids are spread over 64 sets, so each operation touches few. */
function dedupeKeys(scope: string, id: string) {
  const digest = hashed(id);
  const bucket = (parseInt(digest.slice(0, 2), 16) % 64).toString();
  return {
    seen: stateKey("webhook", "seen", scope, bucket),
    retry: stateKey("webhook", "retry", scope, digest),
    member: digest,
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) {
    throw new ReceiverConfigError(`${name} must be a positive number, not ${String(value)}`);
  }
  return value;
}

/** A body being read, as the rate check sees it. */
interface Arriving {
  size: number;
  /** `size` and the time at the start of the current window. */
  mark: number;
  since: number;
  tooSlow: () => void;
}

/**
 * Drops bodies that arrive slower than the minimum rate: each is judged once per window on the
 * bytes that window brought (a stalled body brings none), not on its average since the start.
 */
class RateWatch {
  private readonly arriving = new Set<Arriving>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly windowMs: number,
  ) {}

  add(body: Arriving): void {
    this.arriving.add(body);
    this.timer ??= setInterval(() => this.sweep(), Math.max(10, this.windowMs / 2)).unref();
  }

  delete(body: Arriving): void {
    this.arriving.delete(body);
    if (this.arriving.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const body of this.arriving) {
      const elapsed = now - body.since;
      if (elapsed < this.windowMs) continue;
      if ((body.size - body.mark) * 1000 < this.bytesPerSecond * elapsed) body.tooSlow();
      else Object.assign(body, { mark: body.size, since: now });
    }
  }
}

export function createWebhookReceiver(options: ReceiverOptions) {
  if (typeof options.secret !== "string" || options.secret.length === 0) {
    throw new ReceiverConfigError(
      "a webhook secret is required: deliveries are verified with it (set --secret or the receiver's `secret`)",
    );
  }
  if (!/^https?:\/\//.test(options.callbackUrl)) {
    throw new ReceiverConfigError(
      "callbackUrl must be the absolute http(s) URL registered with the service, exactly as registered",
    );
  }
  const maxBody = positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY);
  const dedupeWindowMs = positive("dedupeWindowMs", options.dedupeWindowMs, RECEIVER_DEFAULTS.dedupeWindowMs);
  const maxBuffered = positive("maxBufferedBytes", options.maxBufferedBytes, RECEIVER_DEFAULTS.maxBufferedBytes);
  const perAddress = positive(
    "maxBufferedBytesPerAddress",
    options.maxBufferedBytesPerAddress,
    RECEIVER_DEFAULTS.maxBufferedBytesPerAddress,
  );
  const bodyTimeoutMs = positive("bodyTimeoutMs", options.bodyTimeoutMs, RECEIVER_DEFAULTS.bodyTimeoutMs);
  const minRate = positive(
    "minBodyBytesPerSecond",
    options.minBodyBytesPerSecond,
    RECEIVER_DEFAULTS.minBodyBytesPerSecond,
  );
  const rateWindowMs = positive("bodyRateWindowMs", options.bodyRateWindowMs, RECEIVER_DEFAULTS.bodyRateWindowMs);
  const state = options.state ?? new MemoryStateStore();
  const scope = options.dedupeScope ?? hashed(options.callbackUrl);
  const stats: ReceiverStats = {
    accepted: 0,
    duplicates: 0,
    rejectedSignature: 0,
    rejectedSize: 0,
    rejectedMalformed: 0,
    rejectedMediaType: 0,
    probes: 0,
    rejectedEarly: 0,
    rejectedBusy: 0,
    rejectedPerAddress: 0,
    evicted: 0,
    timedOut: 0,
    slowBodies: 0,
  };
  const { delivery } = options;
  /** Body bytes held by requests still being read, shared fairly between remote addresses. */
  const bodies = new FairShare(maxBuffered, perAddress);
  const rates = new RateWatch(minRate, rateWindowMs);
  /** The connection ledger of the server this receiver runs in, once there is one. */
  let connections: FairShare | undefined;

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
    const early = preflight(delivery, { ...request, bodyBytes: request.body.length }, maxBody, stats);
    if (early) return early;
    const given = header(request.headers, delivery.signature.header)!;
    if (
      !sameSignature(signPayload(options.secret, delivery, request.body, options.callbackUrl), given, options.secret)
    ) {
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
   * node:http adapter: answers what the headers decide at once; otherwise reads at most maxBody+1
   * bytes, within the caps on buffered bytes, the minimum rate and the body timeout, then answers
   * via `handle`.
   */
  function nodeHandler(req: IncomingMessage, res: ServerResponse): void {
    if (refusedSockets.has(req.socket)) {
      req.resume(); // answered at connect time; what it sends is read and dropped, never kept
      return;
    }
    const reply = (r: WebhookResponse) => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(r.status, { "content-type": "text/plain; charset=utf-8", connection: "close", ...r.headers });
      res.end(r.body);
    };
    /** Answers now and keeps nothing more: the rest of the body is read and dropped, briefly. */
    const drop = (r: WebhookResponse) => {
      readingSockets.delete(req.socket);
      reply(r);
      // Dropping (not pausing) what still arrives lets the client read the answer: a socket closed
      // with unread input is reset, and the reset can destroy the answer before it is read. A client
      // still sending after the grace period is cut off.
      req.resume();
      setTimeout(() => req.socket.destroy(), CUT_GRACE_MS).unref();
    };
    const length = Number(req.headers["content-length"]);
    const declared = req.headers["content-length"] !== undefined && Number.isFinite(length) ? length : undefined;
    const early = preflight(
      delivery,
      { method: req.method ?? "GET", headers: req.headers, bodyBytes: declared },
      maxBody,
      stats,
    );
    if (early) {
      if (early.status >= 400) stats.rejectedEarly++;
      drop(early);
      return;
    }
    readingSockets.add(req.socket);
    let done = false;
    const chunks: Buffer[] = [];
    const finish = () => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      rates.delete(arriving);
      bodies.release(holder);
      return true;
    };
    const cut = (r: WebhookResponse) => {
      if (finish()) drop(r);
    };
    const holder: Holder = {
      address: addressKey(req.socket.remoteAddress),
      evict: () => {
        stats.evicted++;
        cut(busy("request bytes were needed for senders holding less"));
      },
    };
    const arriving: Arriving = {
      size: 0,
      mark: 0,
      since: performance.now(),
      tooSlow: () => {
        stats.timedOut++;
        stats.slowBodies++;
        cut({ status: 408, body: `request body arrived slower than ${minRate} bytes a second` });
      },
    };
    rates.add(arriving);
    const timer = setTimeout(() => {
      stats.timedOut++;
      cut({ status: 408, body: `request body not received within ${Math.round(bodyTimeoutMs / 1000)} s` });
    }, bodyTimeoutMs);
    timer.unref?.();
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      arriving.size += chunk.length;
      if (arriving.size > maxBody) {
        stats.rejectedSize++;
        cut({ status: 413, body: "payload too large" });
        return;
      }
      const refused = bodies.take(holder, chunk.length);
      if (refused) {
        cut(refusal(refused, "request bytes"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!finish()) return;
      readingSockets.delete(req.socket);
      const request = { method: req.method ?? "GET", headers: req.headers, body: Buffer.concat(chunks) };
      handle(request).then(reply, () => reply({ status: 500, body: "error" }));
    });
    // A client that goes away mid-body frees what it held.
    req.on("close", () => void finish());
    req.on("error", () => undefined);
  }

  /** The 503 for a refused grant: the sender's own address is at its cap, or nobody may give way. */
  function refusal(why: Refusal, what: string): WebhookResponse {
    if (why === "address") {
      stats.rejectedPerAddress++;
      return busy(`too many ${what} from this address`);
    }
    return busy(what === "request bytes" ? "too many request bytes in flight" : `too many ${what}`);
  }

  return {
    handle,
    nodeHandler,
    stats,
    /** Body bytes held in memory right now (for tests and metrics). */
    bufferedBytes: () => bodies.amount,
    /** What is held now and the most that has been. */
    load: (): ReceiverLoad => ({
      bufferedBytes: bodies.amount,
      peakBufferedBytes: bodies.peak,
      peakAddressBytes: bodies.peakPerAddress,
      connections: connections?.amount ?? 0,
      peakConnections: connections?.peak ?? 0,
      peakAddressConnections: connections?.peakPerAddress ?? 0,
    }),
    /** The settings in force (defaults filled in). */
    settings: {
      maxBodyBytes: maxBody,
      maxBufferedBytes: maxBuffered,
      maxBufferedBytesPerAddress: perAddress,
      bodyTimeoutMs,
      minBodyBytesPerSecond: minRate,
      bodyRateWindowMs: rateWindowMs,
      dedupeWindowMs,
      backend: state.backend,
    },
    /** Used by {@link createWebhookServer}: admits a new connection, or answers why not. */
    admitConnection(ledger: FairShare, socket: Socket): WebhookResponse | undefined {
      connections = ledger;
      const holder: Holder = {
        address: addressKey(socket.remoteAddress),
        rank: () => (readingSockets.has(socket) ? 1 : 0),
        evict: () => {
          stats.evicted++;
          socket.destroy();
        },
      };
      const refused = ledger.take(holder, 1);
      if (refused) return refusal(refused, "open connections");
      socket.once("close", () => ledger.release(holder));
      return undefined;
    },
  };
}

export type WebhookReceiver = ReturnType<typeof createWebhookReceiver>;

export interface WebhookServerOptions {
  /**
   * Open connections at most; one more is answered 503 and closed, unless an address holding more
   * gives way (default 512).
   */
  maxConnections?: number | undefined;
  /** Open connections from one remote address (an IPv6 /64) at most (default 64). */
  maxConnectionsPerAddress?: number | undefined;
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
  const perAddress = positive(
    "maxConnectionsPerAddress",
    options.maxConnectionsPerAddress,
    RECEIVER_DEFAULTS.maxConnectionsPerAddress,
  );
  const headersTimeout = positive("headersTimeoutMs", options.headersTimeoutMs, RECEIVER_DEFAULTS.headersTimeoutMs);
  const keepAliveTimeout = positive(
    "keepAliveTimeoutMs",
    options.keepAliveTimeoutMs,
    RECEIVER_DEFAULTS.keepAliveTimeoutMs,
  );
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
  const ledger = new FairShare(maxConnections, perAddress);
  server.on("connection", (socket: Socket) => {
    const refused = receiver.admitConnection(ledger, socket);
    if (!refused) return;
    refusedSockets.add(socket);
    const head = `HTTP/1.1 ${refused.status} Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n`;
    const length = Buffer.byteLength(refused.body);
    const tail = `retry-after: ${BUSY_RETRY_AFTER}\r\nconnection: close\r\ncontent-length: ${length}\r\n\r\n`;
    socket.end(`${head}${tail}${refused.body}`);
    // What it sends meanwhile is read and dropped (see nodeHandler); then the socket goes.
    setTimeout(() => socket.destroy(), CUT_GRACE_MS).unref();
  });
  return server;
}
