/**
 * Classification: whether a service's answer is a success or a failure, and which declared rule
 * the failure falls under, using only what the descriptor declares: HTTP statuses, service error
 * codes, an error envelope inside successful responses, where the message and request id live,
 * and Retry-After headers. The typed error is built by the caller (failures.ts), which knows the
 * call; what happens next is the retry policy's decision (retry.ts).
 */
import type { ErrorKind, ShippedErrorRule, ServiceDescriptor } from "../descriptor.js";
import { getPath } from "../internal/values.js";

/**
 * The statuses HTTP gives a kind of their own; any other 4xx is `validation` (the request as sent
 * cannot succeed: 405, 406, 413, 415, 422…), anything else `server`.
 */
const STATUS_KINDS: Readonly<Record<number, ErrorKind>> = {
  400: "validation",
  401: "auth",
  // Payment Required: the account's plan does not allow it, which new credentials do not change.
  402: "permission",
  403: "permission",
  404: "not_found",
  408: "timeout",
  // Proxy Authentication Required: credentials, though the proxy's rather than the service's.
  407: "auth",
  409: "conflict",
  429: "rate_limited",
};
/** The statuses worth trying again unless the spec says otherwise. */
const RETRIED_STATUSES = new Set([408, 429, 502, 503, 504]);

/** The rule for an HTTP status: the spec's own, else the HTTP meaning. */
export function ruleForStatus(descriptor: ServiceDescriptor, status: number): ShippedErrorRule {
  const declared = descriptor.errors.statuses[String(status)];
  if (declared) return declared;
  const kind = STATUS_KINDS[status] ?? (status >= 400 && status <= 499 ? "validation" : "server");
  return { kind, retry: RETRIED_STATUSES.has(status), reauth: false };
}

/** Reads a header that holds seconds or an HTTP date; returns milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function firstString(value: unknown): string | undefined {
  if (typeof value === "string" && value.length > 0) return value;
  if (Array.isArray(value)) {
    const parts = value
      .map((v) => (typeof v === "string" ? v : firstString((v as { message?: unknown })?.message)))
      .filter(Boolean);
    return parts.length ? parts.join("; ") : undefined;
  }
  return undefined;
}

function field(body: unknown, name: string): unknown {
  return body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * A declared body field: a top-level key of that exact name, else a dotted path into nested
 * objects (`error.message`, `meta.requestId`). Own properties only (runtime/internal/values.ts).
 */
function declaredField(body: unknown, name: string): unknown {
  if (body && typeof body === "object" && Object.prototype.hasOwnProperty.call(body, name))
    return (body as Record<string, unknown>)[name];
  return name.includes(".") ? getPath(body, name) : undefined;
}

export interface ServiceFailure {
  rule: ShippedErrorRule;
  status: number;
  code?: string | undefined;
  message: string;
}

/** Finds what went wrong in a response, if anything, without building the error yet. */
export function findFailure(
  descriptor: ServiceDescriptor,
  response: Response,
  body: unknown,
): ServiceFailure | undefined {
  const { errors } = descriptor;
  if (!response.ok) {
    const candidate = firstString(field(body, "code")) ?? firstString(field(body, "error"));
    const codeRule = candidate !== undefined ? errors.codes[candidate] : undefined;
    const message =
      (typeof body === "string" && body.trim()) ||
      errors.messageFields.map((f) => firstString(declaredField(body, f))).find(Boolean) ||
      `HTTP ${response.status}`;
    return {
      rule: codeRule ?? ruleForStatus(descriptor, response.status),
      status: response.status,
      code: codeRule ? candidate : undefined,
      message,
    };
  }
  const envelope = errors.envelope;
  if (envelope && field(body, envelope.successField) === false) {
    const list = field(body, envelope.errorsField);
    const first = Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined) : undefined;
    const code = first?.[envelope.codeField] !== undefined ? String(first[envelope.codeField]) : undefined;
    const message =
      typeof first?.[envelope.messageField] === "string" ? (first[envelope.messageField] as string) : "request failed";
    const rule = (code !== undefined ? errors.codes[code] : undefined) ?? {
      kind: "server" as const,
      retry: false,
      reauth: false,
    };
    return { rule, status: response.status, code, message };
  }
  return undefined;
}

export function requestIdOf(descriptor: ServiceDescriptor, response: Response, body: unknown): string | undefined {
  for (const header of descriptor.errors.requestIdHeaders) {
    const value = response.headers.get(header);
    if (value) return value;
  }
  const fieldName = descriptor.errors.requestIdField;
  const value = fieldName ? declaredField(body, fieldName) : undefined;
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}

export function retryAfterOf(descriptor: ServiceDescriptor, response: Response): number | undefined {
  for (const header of descriptor.errors.retryAfterHeaders) {
    const ms = parseRetryAfter(response.headers.get(header));
    if (ms !== undefined) return ms;
  }
  return undefined;
}

/** What an answer is: a success, or a failure with what the retry policy and the error need. */
export interface Answer {
  failure: ServiceFailure | undefined;
  requestId: string | undefined;
  /** How long the service asked to wait (declared Retry-After headers), for failures only. */
  retryAfterMs: number | undefined;
}

export function classifyAnswer(descriptor: ServiceDescriptor, response: Response, body: unknown): Answer {
  const failure = findFailure(descriptor, response, body);
  return {
    failure,
    requestId: requestIdOf(descriptor, response, body),
    retryAfterMs: failure ? retryAfterOf(descriptor, response) : undefined,
  };
}
