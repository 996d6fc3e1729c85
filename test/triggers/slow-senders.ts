/** Child processes for the receiver's load tests: a raised file limit, line matching, the slow-sender generator. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterEach } from "vitest";
import { packageRoot } from "../../generator/package-root.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

/** A node process with its open-file limit raised as far as the hard limit allows (killed after each test). */
export function spawnNode(args: string[], env: Record<string, string> = {}): ChildProcess {
  const raise = 'ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"';
  const child = spawn("bash", ["-c", raise, process.execPath, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return child;
}

/** Resolves with the first line of `stream` that `match` accepts (bounded by the test's timeout). */
export function line<T>(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  match: (text: string) => T | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let buffer = "";
    const onData = (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const found = match(text);
        if (found !== undefined) {
          child[stream]!.off("data", onData);
          return resolve(found);
        }
      }
    };
    child[stream]!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before printing the expected line`)));
  });
}

export interface SlowOptions {
  /** Local source addresses; `count` connections are opened from each. */
  addresses?: string[];
  /** The signature header line each request carries (default: one of the right shape for Trello). */
  signature?: string;
  /** Reopen a connection the receiver closed after this many milliseconds, for as long as it runs. */
  reconnect?: number;
}

export interface Round {
  reconnects: number;
  open: number;
  statuses: Record<string, number>;
}

/** test/triggers/slow-clients.mjs against `port` (see there); `rounds` grows with each round of reconnections. */
export function slowClients(port: number, count: number, bodyBytes: number, mode = "", options: SlowOptions = {}) {
  const script = join(packageRoot(), "test", "triggers", "slow-clients.mjs");
  const child = spawnNode([script, String(port), String(count), String(bodyBytes), mode, JSON.stringify(options)]);
  const json =
    <T>(key: string) =>
    (t: string) =>
      t.startsWith(`{"${key}"`) ? (JSON.parse(t)[key] as T) : undefined;
  const ready = line(child, "stdout", json<{ settled: number; connectErrors: number }>("ready"));
  const closed = line(child, "stdout", (t) => json<{ statuses: Record<string, number> }>("closed")(t)?.statuses);
  // A flood that reconnects never prints "closed"; killing it then must not fail the run.
  closed.catch(() => undefined);
  ready.catch(() => undefined);
  const rounds: Round[] = [];
  let buffer = "";
  child.stdout!.on("data", (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const text of lines) {
      const round = json<Round>("round")(text);
      if (round) rounds.push(round);
    }
  });
  return { child, ready, closed, rounds };
}
