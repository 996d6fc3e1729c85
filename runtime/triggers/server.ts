/**
 * An http.Server for a webhook receiver with the caps and timeouts enforced (see ./receiver.ts for
 * what each does under load).
 */
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { FairShare } from "./admission.js";
import { receiverSetting, type WebhookReceiver } from "./receiver.js";

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
  const maxConnections = receiverSetting(options, "maxConnections");
  const perAddress = receiverSetting(options, "maxConnectionsPerAddress");
  const headersTimeout = receiverSetting(options, "headersTimeoutMs");
  const keepAliveTimeout = receiverSetting(options, "keepAliveTimeoutMs");
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
  server.on("connection", (socket: Socket) => void receiver.admitConnection(ledger, socket));
  return server;
}
