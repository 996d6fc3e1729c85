/**
 * Plumbing of the secret-leak scan: a capture of everything a flow shows (errors in every form a
 * caller might print them, hook events, results, console and process output), a recording proxy
 * that learns the tokens a mock issues, a hostile server that echoes requests back in its errors,
 * a closed port, and the CLI as a real process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { inspect } from "node:util";
import type { Hooks } from "../../runtime/index.js";
import { type Listening, listenOnLoopback } from "../runtime/helpers.js";
import { packageRoot } from "../../generator/package-root.js";

export interface Captured {
  source: string;
  text: string;
}

/** Every way a caller could print an error: message, String, JSON, stack, inspect, own properties, causes. */
export function errorTexts(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (current instanceof Error) {
      texts.push(current.message, String(current), current.stack ?? "");
      try {
        texts.push(JSON.stringify(current) ?? "");
      } catch (e) {
        texts.push(`JSON.stringify threw: ${(e as Error).message}`);
      }
      for (const name of Object.getOwnPropertyNames(current)) {
        const value = (current as unknown as Record<string, unknown>)[name];
        texts.push(`${name}=${typeof value === "string" ? value : inspect(value, { depth: Infinity })}`);
      }
    } else {
      texts.push(String(current));
    }
    current = (current as { cause?: unknown }).cause;
  }
  texts.push(inspect(error, { depth: Infinity, showHidden: true }));
  if (error instanceof AggregateError) for (const inner of error.errors) texts.push(...errorTexts(inner));
  return texts;
}

/** Any value as the texts a log line could contain. */
export function valueTexts(value: unknown): string[] {
  if (value instanceof Error) return errorTexts(value);
  if (typeof value === "string") return [value];
  const texts = [inspect(value, { depth: Infinity, showHidden: true })];
  try {
    texts.push(JSON.stringify(value) ?? "");
  } catch {
    /* circular: inspect has it */
  }
  return texts;
}

export class Capture {
  readonly entries: Captured[] = [];
  /** Every hook event, as emitted (to check the flows produced each kind). */
  readonly events: Array<{ type: string; action?: string }> = [];

  add(source: string, value: unknown): void {
    for (const text of valueTexts(value)) this.entries.push({ source, text });
  }

  /** Hooks that record every event the runtime emits, through every hook function. */
  hooks(source: string): Hooks {
    const record = (name: string) => (event: unknown) => {
      if (name === "onEvent") this.events.push(event as { type: string; action?: string });
      this.add(`${source} hook ${name}`, event);
    };
    return {
      onRequest: record("onRequest"),
      onResponse: record("onResponse"),
      onRetry: record("onRetry"),
      onThrottle: record("onThrottle"),
      onToken: record("onToken"),
      onEvent: record("onEvent"),
    };
  }

  /** Runs `fn`, recording its result or (in every printable form) what it threw; never throws. */
  async run<T>(
    source: string,
    fn: () => Promise<T> | T,
  ): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
    try {
      const value = await fn();
      this.add(`${source} result`, value);
      return { ok: true, value };
    } catch (error) {
      this.add(`${source} error`, error);
      return { ok: false, error };
    }
  }
}

/**
 * Records console.* calls, process.stdout/stderr writes and process warnings while installed.
 * Everything still reaches its destination.
 */
export function captureProcessOutput(capture: Capture): () => void {
  const restores: Array<() => void> = [];
  for (const method of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"] as const) {
    const original = console[method] as (...args: unknown[]) => void;
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      capture.add(`console.${method}`, args);
      return original.apply(console, args);
    };
    restores.push(() => ((console as unknown as Record<string, unknown>)[method] = original));
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    const name = stream === process.stdout ? "process.stdout" : "process.stderr";
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      capture.add(name, typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    restores.push(() => (stream.write = original));
  }
  const onWarning = (warning: Error) => capture.add("process warning", warning);
  process.on("warning", onWarning);
  restores.push(() => process.off("warning", onWarning));
  return () => {
    for (const restore of restores.reverse()) restore();
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "content-encoding",
]);

/**
 * A loopback proxy in front of `target` that notes every `access_token` / `refresh_token` a token
 * endpoint hands out, so tokens a mock issued during the run are scanned for too. A dropped
 * upstream connection drops the client's.
 */
export async function recordingProxy(
  target: string,
  issued: Array<{ kind: string; value: string }>,
): Promise<Listening> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name))
            headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const answer = await fetch(target + (req.url ?? "/"), {
          method: req.method,
          headers,
          body: body.length ? new Uint8Array(body) : null,
          redirect: "manual",
        });
        const bytes = Buffer.from(await answer.arrayBuffer());
        try {
          const json = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
          for (const key of ["access_token", "refresh_token"]) {
            const value = json?.[key];
            if (typeof value === "string" && value) issued.push({ kind: `mock-issued ${key}`, value });
          }
        } catch {
          /* not JSON */
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!HOP_BY_HOP.has(name)) out[name] = value;
        });
        res.writeHead(answer.status, out);
        res.end(bytes);
      } catch {
        res.socket?.destroy();
      }
    })();
  });
  return listenOnLoopback(server);
}

/**
 * A hostile service: every answer is an error that repeats the whole request (method, URL as
 * sent, headers, body). The path picks the answer: `/<status>/<text|json|mkto>/...`.
 */
export async function echoServer(): Promise<
  Listening & { base(status: number, format: "text" | "json" | "mkto"): string }
> {
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const [, status = "500", format = "text"] = (req.url ?? "/").split("/");
      const echo = `${req.method} ${req.url}\nheaders: ${JSON.stringify(req.headers)}\nbody: ${body.toString("utf8")}`;
      if (format === "text") {
        res.writeHead(Number(status), { "content-type": "text/plain; charset=utf-8" });
        res.end(`you sent ${echo}`);
      } else if (format === "mkto") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ requestId: "e#1", success: false, errors: [{ code: "603", message: echo }] }));
      } else {
        res.writeHead(Number(status), { "content-type": "application/json" });
        res.end(JSON.stringify({ message: echo, error: echo, errors: [echo], error_description: echo }));
      }
    });
  });
  const listening = await listenOnLoopback(server);
  return { ...listening, base: (status, format) => `${listening.url}/${status}/${format}` };
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const { port, close } = await listenOnLoopback(server);
  await close();
  return port;
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI from source (as `npx tsx scripts/dev.ts`), as a real process. */
export function cliProcess(args: string[], env: Record<string, string> = {}): ChildProcess {
  const root = packageRoot();
  return spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "dev.ts"), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the CLI to completion (killed, by its own pid, after `timeoutMs`). */
export function runCliProcess(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<ProcessResult> {
  const child = cliProcess(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
