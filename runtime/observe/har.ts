/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the proxy's recording of what went
 * through it, readable by browsers' dev tools, WireMock, MSW tooling and `stepforge mock --replay`.
 *
 * Nothing secret is written: credential headers and query parameters become `[redacted]`, so do
 * values under credential-named keys of JSON and form bodies, and every credential value seen on
 * the way (see secrets.ts) is replaced wherever it appears. Text bodies are stored as text; other
 * bodies as base64 (`encoding: "base64"`), as the format says.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Redactor } from "./secrets.js";

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; encoding?: string } | undefined;
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** The operation of the spec the request matched (a custom field; HAR allows `_`-prefixed ones). */
  _operationId?: string | undefined;
  /** The path as the client sent it, when the upstream's differs (a stripped prefix). */
  _path?: string | undefined;
}

export interface Har {
  log: { version: "1.2"; creator: { name: string; version: string }; entries: HarEntry[] };
}

export interface Exchange {
  startedAt: number;
  timeMs: number;
  operationId?: string | undefined;
  /** The path the client asked for, when it is not the forwarded URL's. */
  path?: string | undefined;
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: Buffer };
  response: { status: number; statusText: string; headers: Headers; body: Buffer };
}

const isText = (contentType: string) => /^text\/|[/+](json|xml)\b|x-www-form-urlencoded|javascript/i.test(contentType);

/** Headers never worth recording (they describe the connection, not the exchange). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
]);

function headerList(headers: Iterable<[string, string]>, redactor: Redactor): HarNameValue[] {
  const out: HarNameValue[] = [];
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    out.push({ name: lower, value: redactor.header(lower, value) });
  }
  return out;
}

function nodeHeaders(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined
      ? []
      : Array.isArray(value)
        ? value.map((v): [string, string] => [name, v])
        : [[name, value] as [string, string]],
  );
}

export class HarRecorder {
  private readonly entries: HarEntry[] = [];

  constructor(
    private readonly redactor: Redactor,
    private readonly creator = { name: "stepforge proxy", version: "0.1.0" },
  ) {}

  get size(): number {
    return this.entries.length;
  }

  add(exchange: Exchange): void {
    const r = this.redactor;
    const url = r.url(exchange.request.url);
    const requestType = String(exchange.request.headers["content-type"] ?? "");
    const responseType = exchange.response.headers.get("content-type") ?? "";
    const requestBody = exchange.request.body;
    const responseText = exchange.response.body.length ? bodyText(exchange.response.body, responseType, r) : undefined;
    this.entries.push({
      startedDateTime: new Date(exchange.startedAt).toISOString(),
      time: Math.round(exchange.timeMs * 10) / 10,
      request: {
        method: exchange.request.method,
        url,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: headerList(nodeHeaders(exchange.request.headers), r),
        queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
        ...(requestBody.length
          ? { postData: { mimeType: requestType, ...bodyText(requestBody, requestType, r) } }
          : {}),
        headersSize: -1,
        bodySize: requestBody.length,
      },
      response: {
        status: exchange.response.status,
        statusText: exchange.response.statusText,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: headerList(exchange.response.headers.entries(), r),
        content: { size: exchange.response.body.length, mimeType: responseType, ...(responseText ?? {}) },
        redirectURL: exchange.response.headers.get("location") ? r.url(exchange.response.headers.get("location")!) : "",
        headersSize: -1,
        bodySize: exchange.response.body.length,
      },
      cache: {},
      timings: { send: 0, wait: Math.round(exchange.timeMs * 10) / 10, receive: 0 },
      ...(exchange.operationId ? { _operationId: exchange.operationId } : {}),
      ...(exchange.path !== undefined ? { _path: r.text(exchange.path) } : {}),
    });
  }

  toJSON(): Har {
    return { log: { version: "1.2", creator: this.creator, entries: this.entries } };
  }

  /** Writes the whole recording at once (a temporary file renamed over the old one), mode 0600. */
  write(file: string): void {
    const temp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.toJSON(), null, 1)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  }
}

function bodyText(body: Buffer, contentType: string, r: Redactor): { text: string; encoding?: string } {
  if (!isText(contentType)) return { text: body.toString("base64"), encoding: "base64" };
  return { text: r.body(body.toString("utf8"), contentType) };
}

/** A HAR file's entries; an error names what is wrong with the file. */
export function readHar(file: string): HarEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `not JSON (${(error as Error).message})`;
    throw new Error(`${file}: ${reason}`);
  }
  const entries = (parsed as Har | null)?.log?.entries;
  if (!Array.isArray(entries)) throw new Error(`${file}: not a HAR file (expected {"log": {"entries": [...]}})`);
  entries.forEach((e, i) => {
    const ok =
      e &&
      typeof e.request?.method === "string" &&
      typeof e.request?.url === "string" &&
      typeof e.response?.status === "number";
    if (!ok) throw new Error(`${file}: log.entries[${i}] lacks request.method, request.url or response.status`);
  });
  return entries;
}

/** The body an entry's response carries, as bytes. */
export function responseBytes(entry: HarEntry): Buffer {
  const content = entry.response.content;
  if (content.text === undefined) return Buffer.alloc(0);
  return content.encoding === "base64" ? Buffer.from(content.text, "base64") : Buffer.from(content.text, "utf8");
}
