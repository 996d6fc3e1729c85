/**
 * One attempt: send the request with a per-attempt timeout, read the whole body (the timeout
 * covers it: a service that sends headers and then stalls is cut off too), and parse it. Never
 * throws: the outcome says whether an answer came, and if not, whether the request may have
 * reached the service (`sent`), which the retry policy and the limiter both need.
 */
import { neverSent } from "./retry.js";

/** One attempt's request: the address and headers with the credentials on. */
export interface SendInit {
  url: string;
  method: string;
  headers: Headers | undefined;
  body: string | FormData | Blob | undefined;
}

export type AttemptOutcome =
  | { answered: true; response: Response; body: unknown }
  | {
      answered: false;
      /** The request may have reached the service (the error does not prove it never left). */
      sent: boolean;
      /** The per-attempt timeout fired (rather than the network failing or the caller cancelling). */
      timedOut: boolean;
      cause: unknown;
      /** The answer's headers when the failure came while reading its body. */
      headers: Headers | undefined;
    };

export async function sendAttempt(
  send: typeof fetch,
  request: SendInit,
  callSignal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const abort = takeAbort();
  const follow = callSignal ? () => abort.controller.abort(callSignal.reason) : undefined;
  if (callSignal) {
    if (callSignal.aborted) follow!();
    else callSignal.addEventListener("abort", follow!, { once: true });
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.controller.abort();
  }, timeoutMs);
  let response: Response | undefined;
  try {
    const signal = abort.controller.signal;
    const { url, method, headers, body } = request;
    response = await send(url, { method, headers, body, signal, redirect: "manual" });
    const bytes = await response.arrayBuffer();
    return { answered: true, response, body: parseBody(bytes, response.headers.get("content-type")) };
  } catch (cause) {
    const sent = response !== undefined || !neverSent(cause);
    return { answered: false, sent, timedOut, cause, headers: response?.headers };
  } finally {
    clearTimeout(timer);
    if (follow) callSignal!.removeEventListener("abort", follow);
    giveBack(abort);
  }
}

/**
 * Abort signals for attempts, reused. Building an AbortSignal cost about as much as the rest of
 * the client's own work per call, and a signal that never fired can serve the next attempt. A
 * signal is reused a bounded number of times: fetch leaves one listener per request on it until
 * that request is garbage collected, and the bound keeps that list short. A signal that fired (a
 * timeout, the caller cancelling) is never reused.
 */
interface PooledAbort {
  controller: AbortController;
  uses: number;
}

const MAX_USES = 64;
const spare: PooledAbort[] = [];

function takeAbort(): PooledAbort {
  const pooled = spare.pop() ?? { controller: new AbortController(), uses: 0 };
  pooled.uses++;
  return pooled;
}

function giveBack(pooled: PooledAbort): void {
  if (!pooled.controller.signal.aborted && pooled.uses < MAX_USES && spare.length < 16) spare.push(pooled);
}

const decoder = new TextDecoder();
const JSON_TYPE = /json/i;

function looksLikeJson(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith("{") || trimmed.startsWith("[");
}

/**
 * Media types read as text: text/*, XML, forms, JavaScript, CSV and the like. Any other declared
 * type that is not JSON (images, PDFs, archives, octet-stream, …) is bytes, never UTF-8-decoded.
 */
const TEXT_APPLICATION = "x-www-form-urlencoded|javascript|ecmascript|csv|x-ndjson|graphql|yaml|x-yaml|sql";
const TEXT_TYPE = new RegExp(`^(text/|[^;]*[/+]xml\\b|application/(${TEXT_APPLICATION})\\b)`, "i");

/** Whether a response's Content-Type says its body is bytes (a Blob), not text or JSON. */
export function isBinaryType(contentType: string | null): boolean {
  const type = contentType?.trim();
  return !!type && !JSON_TYPE.test(type) && !TEXT_TYPE.test(type);
}

/**
 * JSON when the answer says so (or looks like it); a Blob of the bytes (typed as the answer says)
 * for a binary media type; text otherwise; undefined for an empty body.
 */
export function parseBody(bytes: ArrayBuffer, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (isBinaryType(contentType)) return new Blob([bytes], { type: contentType!.trim() });
  const text = decoder.decode(bytes);
  if (JSON_TYPE.test(contentType ?? "") || looksLikeJson(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
