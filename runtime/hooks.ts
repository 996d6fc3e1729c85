/**
 * Hooks for logging and metrics. Silent by default: nothing is printed unless the caller passes
 * hooks. Every event is built from redacted data (URLs pass through `redactUrl`, no header, body or
 * token value is ever included), so a hook can log an event as it is.
 */

interface EventBase {
  service: string;
  /** The operation id, when the event belongs to a call. */
  operation?: string | undefined;
  /** The connection name. */
  connection: string;
}

export interface RequestEvent extends EventBase {
  type: "request";
  method: string;
  /** Redacted. */
  url: string;
  /** 0 for the first attempt. */
  attempt: number;
}

export interface ResponseEvent extends EventBase {
  type: "response";
  method: string;
  url: string;
  attempt: number;
  status: number;
  /** The service's error code when the answer was a failure (HTTP or envelope). */
  code?: string | undefined;
  ok: boolean;
  durationMs: number;
  requestId?: string | undefined;
}

export interface RetryEvent extends EventBase {
  type: "retry";
  attempt: number;
  delayMs: number;
  /** Why: `status 429`, `code 606`, `timeout`, `network`, `reauth`. */
  reason: string;
  /** Whether the delay came from the service's Retry-After. */
  retryAfter: boolean;
}

export interface ThrottleEvent extends EventBase {
  type: "throttle";
  /** The declared limit that made the call wait. */
  limit: string;
  /** How long the limiter expects the wait to be (Infinity: until a call in flight ends). */
  waitMs: number;
}

export interface TokenEvent extends EventBase {
  type: "token";
  action: "fetched" | "refreshed" | "invalidated" | "rotated" | "failed";
  /** When the new token expires (ISO 8601), if known. */
  expiresAt?: string | undefined;
}

export type RuntimeEvent = RequestEvent | ResponseEvent | RetryEvent | ThrottleEvent | TokenEvent;

export interface Hooks {
  onRequest?: (event: RequestEvent) => void;
  onResponse?: (event: ResponseEvent) => void;
  onRetry?: (event: RetryEvent) => void;
  onThrottle?: (event: ThrottleEvent) => void;
  onToken?: (event: TokenEvent) => void;
  /** Every event, after its specific hook. */
  onEvent?: (event: RuntimeEvent) => void;
}

/** Calls the hooks for `event`; a throwing hook never breaks a call. */
export function emit(hooks: Hooks | undefined, event: RuntimeEvent): void {
  if (!hooks) return;
  try {
    switch (event.type) {
      case "request":
        hooks.onRequest?.(event);
        break;
      case "response":
        hooks.onResponse?.(event);
        break;
      case "retry":
        hooks.onRetry?.(event);
        break;
      case "throttle":
        hooks.onThrottle?.(event);
        break;
      case "token":
        hooks.onToken?.(event);
        break;
    }
    hooks.onEvent?.(event);
  } catch {
    // Observability must not change behaviour.
  }
}
