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
 * Under load (`nodeHandler`, and `createWebhookServer` in ./server.ts), every cap is shared fairly
 * between remote addresses (./admission.ts): at most `maxConnections` open connections, `maxConnectionsPerAddress`
 * of them from one address; at most `maxBufferedBytes` of request bodies held in memory,
 * `maxBufferedBytesPerAddress` of them for one address. When a total is reached, the address that
 * holds the most gives way to one that holds less. A body must keep arriving at
 * `minBodyBytesPerSecond` (judged over `bodyRateWindowMs`), come complete within `bodyTimeoutMs`,
 * and the headers within `headersTimeoutMs`; else 408 and the connection is closed. So memory stays
 * bounded by the caps, and a sender that is not the service cannot hold the service out.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { getPath } from "../internal/values.js";
import { hashed, stateKey } from "../state/keys.js";
import { MemoryStateStore } from "../state/memory.js";
import { StateUnavailableError, type StateStore } from "../state/types.js";
import { addressKey, FairShare, type Holder, type Refusal } from "./admission.js";
import type { Delivery } from "./extension-types.js";
import { type Arriving, RateWatch } from "./rate.js";
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
/** Sockets with a request being read or answered: evicted last when connections must give way. */
const activeSockets = new WeakSet<Socket>();

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

/** A positive finite setting, or the fallback when it is not given. */
export function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) {
    throw new ReceiverConfigError(`${name} must be a positive number, not ${String(value)}`);
  }
  return value;
}

/** A setting that has a default in RECEIVER_DEFAULTS: as given (checked positive), or that default. */
export function receiverSetting(
  options: { [K in keyof typeof RECEIVER_DEFAULTS]?: number | undefined },
  name: keyof typeof RECEIVER_DEFAULTS,
): number {
  return positive(name, options[name], RECEIVER_DEFAULTS[name]);
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
  const dedupeWindowMs = receiverSetting(options, "dedupeWindowMs");
  const maxBuffered = receiverSetting(options, "maxBufferedBytes");
  const perAddress = receiverSetting(options, "maxBufferedBytesPerAddress");
  const bodyTimeoutMs = receiverSetting(options, "bodyTimeoutMs");
  const minRate = receiverSetting(options, "minBodyBytesPerSecond");
  const rateWindowMs = receiverSetting(options, "bodyRateWindowMs");
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
      activeSockets.delete(req.socket);
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
    activeSockets.add(req.socket);
    res.once("close", () => activeSockets.delete(req.socket));
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
        cut(refusal(refused, "request bytes from this address", "too many request bytes in flight"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!finish()) return;
      const request = { method: req.method ?? "GET", headers: req.headers, body: Buffer.concat(chunks) };
      handle(request).then(reply, () => reply({ status: 500, body: "error" }));
    });
    // A client that goes away mid-body frees what it held.
    req.on("close", () => void finish());
    req.on("error", () => undefined);
  }

  /** The 503 for a refused grant: the sender's own address is at its cap, or nobody may give way. */
  function refusal(why: Refusal, perAddress: string, total: string): WebhookResponse {
    if (why !== "address") return busy(total);
    stats.rejectedPerAddress++;
    return busy(`too many ${perAddress}`);
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
    /**
     * Used by createWebhookServer (./server.ts) for each new connection: admits it into `ledger`, or
     * answers 503 at once and closes it (what it sends meanwhile is read and dropped).
     */
    admitConnection(ledger: FairShare, socket: Socket): boolean {
      connections = ledger;
      const holder: Holder = {
        address: addressKey(socket.remoteAddress),
        rank: () => (activeSockets.has(socket) ? 1 : 0),
        evict: () => {
          stats.evicted++;
          socket.destroy();
        },
      };
      const refused = ledger.take(holder, 1);
      if (!refused) {
        socket.once("close", () => ledger.release(holder));
        return true;
      }
      const answer = refusal(refused, "open connections from this address", "too many open connections");
      refusedSockets.add(socket);
      const head = `HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n`;
      const length = Buffer.byteLength(answer.body);
      const tail = `retry-after: ${BUSY_RETRY_AFTER}\r\nconnection: close\r\ncontent-length: ${length}\r\n\r\n`;
      socket.end(`${head}${tail}${answer.body}`);
      setTimeout(() => socket.destroy(), CUT_GRACE_MS).unref();
      return false;
    },
  };
}

export type WebhookReceiver = ReturnType<typeof createWebhookReceiver>;
