/**
 * One error hierarchy for every service. A call either returns data or throws a StepforgeError
 * subclass that says what went wrong in the terms a caller can act on (kind, retryable), plus
 * where (service, operation, HTTP status, service error code, request id, retries made).
 *
 * Errors never carry secrets: messages are redacted against the connection's secret values before
 * construction, and `toJSON()` lists only the fields below (no request, no headers, no cause).
 */
import type { ErrorKind } from "./descriptor.js";

export interface ErrorDetails {
  service: string;
  operation: string;
  status?: number | undefined;
  /** The service's own error code (Marketo "606", Trello "API_TOKEN_LIMIT_EXCEEDED"). */
  code?: string | undefined;
  requestId?: string | undefined;
  retries?: number | undefined;
  retryable?: boolean | undefined;
  /** When the service said to try again (from Retry-After), in milliseconds from now. */
  retryAfterMs?: number | undefined;
  /** For quota errors: when the quota resets (ISO 8601). */
  resetsAt?: string | undefined;
  /**
   * A request that is not idempotent was sent and its answer was lost or was a failure that does
   * not say the service did nothing (timeout, dropped connection, 500/502/504): it may have been
   * carried out. Such an error is not retryable; check whether it was applied first.
   */
  outcomeUnknown?: boolean | undefined;
}

export class StepforgeError extends Error {
  readonly kind: ErrorKind;
  readonly service: string;
  readonly operation: string;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  retries: number;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly resetsAt: string | undefined;
  readonly outcomeUnknown: boolean;

  constructor(kind: ErrorKind, message: string, details: ErrorDetails) {
    super(message);
    this.name = ERROR_CLASSES[kind][1];
    this.kind = kind;
    this.service = details.service;
    this.operation = details.operation;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.retries = details.retries ?? 0;
    this.retryable = details.retryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
    this.resetsAt = details.resetsAt;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
  }

  toJSON() {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      service: this.service,
      operation: this.operation,
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      retries: this.retries,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      resetsAt: this.resetsAt,
      outcomeUnknown: this.outcomeUnknown,
    };
  }
}

export class AuthError extends StepforgeError {}
export class PermissionError extends StepforgeError {}
export class NotFoundError extends StepforgeError {}
export class ValidationError extends StepforgeError {}
export class ConflictError extends StepforgeError {}
export class RateLimitedError extends StepforgeError {}
export class QuotaExhaustedError extends StepforgeError {}
export class TimeoutError extends StepforgeError {}
export class NetworkError extends StepforgeError {}
export class ServerError extends StepforgeError {}

/**
 * Each kind's subclass and its `name`. The name is written out, not read from the class: a minifier
 * renames classes, and `name` is part of what a caller sees (`toJSON`, logs).
 */
const ERROR_CLASSES: Record<ErrorKind, readonly [typeof StepforgeError, string]> = {
  auth: [AuthError, "AuthError"],
  permission: [PermissionError, "PermissionError"],
  not_found: [NotFoundError, "NotFoundError"],
  validation: [ValidationError, "ValidationError"],
  conflict: [ConflictError, "ConflictError"],
  rate_limited: [RateLimitedError, "RateLimitedError"],
  quota_exhausted: [QuotaExhaustedError, "QuotaExhaustedError"],
  timeout: [TimeoutError, "TimeoutError"],
  network: [NetworkError, "NetworkError"],
  server: [ServerError, "ServerError"],
};

/** Builds the subclass that matches `kind`, so `instanceof RateLimitedError` works for callers. */
export function createError(kind: ErrorKind, message: string, details: ErrorDetails): StepforgeError {
  const [ErrorClass] = ERROR_CLASSES[kind];
  return new ErrorClass(kind, message, details);
}

const REDACTED = "[redacted]";

/**
 * Replaces every secret value in `text`, as is and in both URL encodings: `encodeURIComponent`
 * and the query encoding every credential placed in a URL gets (URLSearchParams escapes `~ ! ' ( )`
 * and spaces, which `encodeURIComponent` keeps). Secrets shorter than 4 characters are skipped:
 * redacting "a" would shred every message and such values protect nothing. The user information of
 * any address in the text (`https://user:password@host`) is dropped too.
 */
/** A pattern for an encoded form that also matches its percent escapes in lower case (`%7e`): servers echo either. */
function escapesInAnyCase(form: string): RegExp {
  const source = form
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(
      /%([0-9A-F])([0-9A-F])/g,
      (_, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`,
    );
  return new RegExp(source, "g");
}

export function redact(text: string, secrets: Iterable<string>): string {
  let out = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]*@/gi, "$1");
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams([["", secret]]).toString().slice(1),
    ])) {
      out = form.includes("%") ? out.replace(escapesInAnyCase(form), REDACTED) : out.split(form).join(REDACTED);
    }
  }
  return out;
}

/**
 * The caller cancelled the call through its AbortSignal. Kind `network` (the call did not complete
 * for a reason outside the service), never retried; `aborted` tells it apart from a dropped line.
 */
export class AbortedError extends NetworkError {
  readonly aborted = true;
  constructor(message: string, details: ErrorDetails) {
    super("network", message, { ...details, retryable: false });
    this.name = "AbortedError";
  }
  override toJSON() {
    return { ...super.toJSON(), aborted: true };
  }
}

/**
 * A connection is incomplete or malformed (a required field is missing, a value does not match the
 * field's pattern, an address is not the service's). Raised before anything is sent. Names the
 * field and the fix; never the value of a secret field.
 */
export class ConnectionError extends ValidationError {
  readonly field: string | undefined;
  constructor(message: string, details: ErrorDetails & { field?: string | undefined }) {
    super("validation", message, details);
    this.name = "ConnectionError";
    this.field = details.field;
  }
  override toJSON() {
    return { ...super.toJSON(), field: this.field };
  }
}

/** Query keys whose values are credentials whatever service they belong to. */
const SENSITIVE_QUERY_KEY = new RegExp(
  "^(key|token|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|client[-_]?secret|secret|" +
    "password|passwd|code|signature|sig|auth|authorization)$",
  "i",
);

/**
 * A URL fit for a log line or an error: values of credential-like query keys (and of `extraKeys`,
 * e.g. a descriptor's query placements) become `[redacted]`, user info is dropped, and every known
 * secret value is redacted from what is left.
 */
export function redactUrl(url: string, secrets: Iterable<string> = [], extraKeys: Iterable<string> = []): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redact(url, secrets);
  }
  const extra = new Set([...extraKeys].map((k) => k.toLowerCase()));
  parsed.username = "";
  parsed.password = "";
  const keys = [...new Set(parsed.searchParams.keys())];
  for (const key of keys) {
    if (SENSITIVE_QUERY_KEY.test(key) || extra.has(key.toLowerCase())) parsed.searchParams.set(key, REDACTED);
  }
  return redact(parsed.toString().replace(/%5Bredacted%5D/g, REDACTED), secrets);
}
