/**
 * The parent side of the multi-process tests: long-lived worker processes (fixtures/token-worker.ts
 * under tsx), Content Snare mocks whose refresh tokens rotate, connection files, and the checks
 * "did every process keep working" and "is the refresh token in the file still the live one".
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startMock, type MockOptions, type RunningMock } from "../../runtime/mock/index.js";
import "../mock/register.js";

const WORKER = fileURLToPath(new URL("./fixtures/token-worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface WorkerResult {
  id: string;
  ok: number;
  failed: number;
  kinds: Record<string, number>;
  last: string;
  crashed?: string;
}

/** One worker process; `request` sends a message and resolves with the answer carrying its id. */
export class Worker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, (value: Record<string, unknown>) => void>();
  private readonly started: Promise<void>;
  stderr = "";

  constructor(env: Record<string, string | undefined>) {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    delete childEnv.STEPFORGE_REDIS_URL;
    delete childEnv.STEPFORGE_STATE_DIR;
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    this.child = spawn(process.execPath, ["--import", "tsx", WORKER], {
      cwd: ROOT,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    let markStarted!: () => void;
    this.started = new Promise((resolve, reject) => {
      markStarted = resolve;
      this.child.once("exit", (code) => reject(new Error(`worker exited (${code}) before starting: ${this.stderr}`)));
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if ("started" in message) return markStarted();
      const id = String(message.id);
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(message);
    });
    this.child.once("exit", (code) => {
      for (const resolve of this.waiting.values()) resolve({ crashed: `worker exited with ${code}: ${this.stderr}` });
      this.waiting.clear();
    });
  }

  async request(message: { id: string; cmd: string } & Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.started;
    return new Promise((resolve) => {
      this.waiting.set(message.id, resolve);
      this.child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.stdin.write(`${JSON.stringify({ cmd: "exit" })}\n`);
    this.child.stdin.end();
    await exited;
  }
}

/** Every worker loads its clients, then all are told "go" at the same moment. */
export async function runTrial(
  workers: Worker[],
  id: string,
  configs: Array<Record<string, unknown>>,
): Promise<WorkerResult[]> {
  const loaded = await Promise.all(workers.map((w, i) => w.request({ id, cmd: "load", ...configs[i]! })));
  const crashed = loaded.find((l) => l.crashed);
  if (crashed) throw new Error(`a worker could not load: ${String(crashed.crashed)}`);
  return (await Promise.all(workers.map((w) => w.request({ id, cmd: "go" })))) as unknown as WorkerResult[];
}

export const CS_BASE = { clientId: "mock-client-id", clientSecret: "mock-client-secret" };

/** Credentials of connection `i` of trial `trial`: its own access and refresh token. */
export function csCredentials(trial: string, i: number): Record<string, string> {
  return {
    clientId: `client-${i}`,
    clientSecret: `secret-${trial}-${i}`,
    accessToken: `at-${trial}-${i}`,
    refreshToken: `rt-${trial}-${i}`,
  };
}

export async function startContentSnare(
  credentials: Array<Record<string, string>>,
  options: MockOptions = {},
): Promise<RunningMock> {
  // Merged group by group: a caller's `auth.tokenLifetimeSeconds` keeps these credentials.
  return startMock("contentsnare", {
    ...options,
    auth: { credentials, ...options.auth },
    limits: { overrides: { reads: { disabled: true }, writes: { disabled: true } }, ...options.limits },
  });
}

/** A connections file (mode 0600) holding Content Snare connections whose access tokens have expired. */
export function writeConnections(
  file: string,
  connections: Record<string, Record<string, string>>,
  expiresAt = new Date(Date.now() - 60_000).toISOString(),
): void {
  mkdirSync(fileURLToPath(new URL(".", `file://${file}`)), { recursive: true });
  const byName = Object.fromEntries(
    Object.entries(connections).map(([name, fields]) => [name, { name, fields: { ...fields, expiresAt } }]),
  );
  writeFileSync(file, JSON.stringify({ version: 1, connections: { contentsnare: byName } }), { mode: 0o600 });
}

/** True when the mock still accepts `refreshToken` for this client (it is the live one). */
export async function refreshTokenIsLive(mock: RunningMock, fields: Record<string, string>): Promise<boolean> {
  const response = await fetch(`${mock.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "refresh_token",
      refresh_token: fields.refreshToken,
      client_id: fields.clientId,
      client_secret: fields.clientSecret,
    }),
  });
  await response.arrayBuffer();
  return response.ok;
}

export const MARKETO = {
  endpoint: "https://123-ABC-456.mktorest.com",
  clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
  clientSecret: "mock-client-secret-0123456789abcdef",
};

/** A Marketo mock without limits, and how many token requests it received so far. */
export async function startMarketo(
  options: MockOptions = {},
): Promise<{ mock: RunningMock; tokenRequests: () => number }> {
  const mock = await startMock("marketo", {
    ...options,
    auth: { credentials: MARKETO, ...options.auth },
    limits: {
      overrides: { rate: { disabled: true }, concurrent: { disabled: true }, daily: { disabled: true } },
      ...options.limits,
    },
  });
  return { mock, tokenRequests: () => tokenRequestsOf(mock) };
}

/**
 * Requests `mock` received for its token endpoint: it is not an operation, so every request that
 * is not one went to it.
 */
export function tokenRequestsOf(mock: RunningMock): number {
  const c = mock.counters();
  return c.requests - Object.values(c.byOperation).reduce((a, b) => a + b, 0);
}

export function writeMarketoConnections(file: string): void {
  writeFileSync(file, JSON.stringify({ version: 1, connections: { marketo: { m: { name: "m", fields: MARKETO } } } }), {
    mode: 0o600,
  });
}
