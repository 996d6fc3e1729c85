/**
 * A real `redis-server` for tests: its own temporary folder, a free port on 127.0.0.1, no
 * persistence, stopped (and restartable on the same port, to test an outage) by the test.
 * Never a fake: the suite needs Redis's own atomicity and failure modes.
 *
 *   const redis = await startRedis();   // redis.url is redis://127.0.0.1:PORT
 *   await redis.kill();                 // SIGKILL: clients see the connection drop
 *   await redis.restart();              // same port, empty data
 *   await redis.stop();                 // in afterAll
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";

export interface RunningRedis {
  url: string;
  port: number;
  /** Ends the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill`). */
  restart(): Promise<void>;
  /** Ends the server and removes its folder. */
  stop(): Promise<void>;
}

export const REDIS_SERVER = process.env.REDIS_SERVER ?? "redis-server";

/** True when a redis-server binary can be run (CI installs the Debian package). */
export function haveRedis(): boolean {
  return spawnSync(REDIS_SERVER, ["--version"], { stdio: "ignore" }).status === 0;
}

/** Resolves once the server answers PING with PONG; rejects after `timeoutMs`. */
async function waitForPong(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode} before answering`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      let text = "";
      socket.setTimeout(500, () => socket.destroy());
      socket.on("connect", () => socket.write("PING\r\n"));
      socket.on("data", (chunk) => {
        text += chunk.toString();
        if (text.includes("\r\n")) {
          socket.end();
          resolve(text.startsWith("+PONG"));
        }
      });
      socket.on("error", () => resolve(false));
      socket.on("close", () => resolve(text.startsWith("+PONG")));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startRedis(): Promise<RunningRedis> {
  const dir = mkdtempSync(join(tmpdir(), "sf-redis-"));
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<void> => {
    const p = spawn(
      REDIS_SERVER,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child = p;
    await waitForPong(port, p);
  };
  const exited = (p: ChildProcess) =>
    p.exitCode !== null || p.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((r) => p.once("exit", () => r()));

  // Another process may take the free port between our check and the server's bind: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      if (child) {
        child.kill("SIGKILL");
        await exited(child);
      }
      if (attempt >= 4) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async kill() {
      if (!child) return;
      const p = child;
      p.kill("SIGKILL");
      await exited(p);
      child = undefined;
    },
    async restart() {
      if (child) return;
      for (let attempt = 0; ; attempt++) {
        try {
          await launch();
          return;
        } catch (error) {
          // The port can linger for a moment after a kill.
          if (child) {
            (child as ChildProcess).kill("SIGKILL");
            await exited(child);
            child = undefined;
          }
          if (attempt >= 20) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
    async stop() {
      if (child) {
        const p = child;
        p.kill("SIGTERM");
        await exited(p);
        child = undefined;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
