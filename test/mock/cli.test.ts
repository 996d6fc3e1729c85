/** Both kinds of mock start from the command line and stop cleanly on SIGTERM / SIGINT, leaving no child behind. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, freePortRun } from "../helpers/ports.js";
import { call, CARD, TRELLO_AUTH, WORLDNEWS } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** Starts `stepforge mock …` from source and resolves with its output once it says the mocks run. */
function startCli(args: string[]): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "dev.ts"), "mock", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (/running on 127\.0\.0\.1/.test(out)) resolve({ child, lines: out.trim().split("\n") });
    });
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => reject(new Error(`stepforge mock exited ${code}: ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code)),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("stepforge mock", () => {
  it("starts the behavioural mocks of every service on consecutive ports and stops on SIGTERM", async () => {
    const port = await freePortRun(4);
    const { child, lines } = await startCli(["all", "--port", String(port)]);
    expect(lines.slice(0, 4)).toEqual([
      `contentsnare mock http://127.0.0.1:${port}`,
      `marketo mock http://127.0.0.1:${port + 1}`,
      `trello mock http://127.0.0.1:${port + 2}`,
      `worldnews mock http://127.0.0.1:${port + 3}`,
    ]);
    const card = await call(`http://127.0.0.1:${port + 2}`, `/1/cards/${CARD}?${TRELLO_AUTH}`);
    expect(card.json.id).toBe(CARD);
    const counters = await call(`http://127.0.0.1:${port + 2}`, "/__mock/counters");
    expect(counters.json.byOperation).toEqual({ getCard: 1 });
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port + 2}/`)).rejects.toThrow();
  });

  it("starts Prism for a spec, prints its pid, and stops it on SIGINT", async () => {
    const port = await freePort();
    const { child, lines } = await startCli(["worldnews", "--prism", "--port", String(port)]);
    const match = /^worldnews prism (http:\/\/127\.0\.0\.1:\d+) \(pid (\d+)\)$/.exec(lines[0]!);
    expect(match?.[1]).toBe(`http://127.0.0.1:${port}`);
    const r = await call(match![1]!, "/search-news?text=electric", { headers: { "x-api-key": WORLDNEWS.apiKey } });
    expect(r.status).toBe(200);
    child.kill("SIGINT");
    expect(await exited(child)).toBe(0);
    expect(alive(Number(match![2]))).toBe(false);
  });

  it("exits 1 naming the port when it is taken, as a real process", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(root, "scripts", "dev.ts"), "mock", "worldnews", "--port", String(port)],
        { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let err = "";
      child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
      expect(await exited(child)).toBe(1);
      expect(err).toContain(`worldnews mock: port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it("refuses an unknown service with exit code 2", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "dev.ts"), "mock", "nosuch"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain('unknown service "nosuch"');
  });
});
