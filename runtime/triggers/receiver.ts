/**
 * The webhook receiver: framework-neutral (a request in, a status out) with a node:http adapter.
 *
 * Order matters: the body size is limited while reading, the signature is checked with a
 * constant-time compare over the raw bytes before anything is parsed or delivered, and only then
 * is the JSON parsed and the event id checked against recent deliveries. A receiver without a
 * secret cannot be built: verification is never silently skipped.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { hmacOf } from "../hmac.js";
import type { Delivery } from "./model.js";
import { getPath } from "../values.js";

export interface WebhookRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface WebhookResponse {
  status: number;
  body: string;
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
  /** How many recent event ids are remembered to drop repeats. */
  rememberIds?: number;
}

export interface ReceiverStats {
  accepted: number;
  duplicates: number;
  rejectedSignature: number;
  rejectedSize: number;
  rejectedMalformed: number;
  probes: number;
}

export class ReceiverConfigError extends Error {
  override name = "ReceiverConfigError";
}

const DEFAULT_MAX_BODY = 256 * 1024;

/** Remembers the last `size` keys; old ones fall out first. */
export class RecentIds {
  private readonly seen = new Set<string>();
  constructor(private readonly size: number) {}
  /** True when the id is new (and remembers it). */
  add(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > this.size) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }
  forget(id: string): void {
    this.seen.delete(id);
  }
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

export function createWebhookReceiver(options: ReceiverOptions) {
  if (typeof options.secret !== "string" || options.secret.length === 0) {
    throw new ReceiverConfigError("a webhook secret is required: deliveries are verified with it (set --secret or the receiver's `secret`)");
  }
  if (!/^https?:\/\//.test(options.callbackUrl)) {
    throw new ReceiverConfigError("callbackUrl must be the absolute http(s) URL registered with the service, exactly as registered");
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const recent = new RecentIds(options.rememberIds ?? 10_000);
  const stats: ReceiverStats = { accepted: 0, duplicates: 0, rejectedSignature: 0, rejectedSize: 0, rejectedMalformed: 0, probes: 0 };
  const { delivery } = options;

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
    if (!recent.add(id)) {
      stats.duplicates++;
      return { status: 200, body: "duplicate ignored" };
    }
    try {
      await options.onDelivery(payload as Record<string, unknown>);
    } catch {
      // Forget the id so the service's retry is processed.
      recent.forget(id);
      return { status: 500, body: "delivery failed" };
    }
    stats.accepted++;
    return { status: 200, body: "ok" };
  }

  /** node:http adapter: reads at most maxBody+1 bytes, then answers via `handle`. */
  function nodeHandler(req: IncomingMessage, res: ServerResponse): void {
    const declared = Number(req.headers["content-length"] ?? "0");
    const reply = (r: WebhookResponse) => {
      if (res.headersSent) return;
      res.writeHead(r.status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      res.end(r.body);
    };
    if (declared > maxBody) {
      stats.rejectedSize++;
      reply({ status: 413, body: "payload too large" });
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on("data", (chunk: Buffer) => {
      if (tooBig) return;
      size += chunk.length;
      if (size > maxBody) {
        tooBig = true;
        stats.rejectedSize++;
        reply({ status: 413, body: "payload too large" });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooBig) return;
      handle({ method: req.method ?? "GET", headers: req.headers, body: Buffer.concat(chunks) }).then(reply, () => reply({ status: 500, body: "error" }));
    });
    req.on("error", () => undefined);
  }

  return { handle, nodeHandler, stats };
}
