/**
 * The switch from the outside: `stepforge call` processes (the built CLI) sharing one connections
 * file, with and without STEPFORGE_REDIS_URL, against the Content Snare mock.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { csCredentials, refreshTokenIsLive, startContentSnare, writeConnections } from "./harness.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function stepforge(args: string[], env: Record<string, string>): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!env.STEPFORGE_REDIS_URL) delete childEnv.STEPFORGE_REDIS_URL;
  delete childEnv.STEPFORGE_STATE_DIR;
  const child = spawn(process.execPath, [join(packageRoot(), "bin", "stepforge.js"), ...args], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

let redis: RunningRedis;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "sf-cli-state-"));
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("stepforge call processes sharing a connections file", () => {
  for (const shared of ["no shared state", "STEPFORGE_REDIS_URL"] as const) {
    it(
      `two concurrent calls on an expired Content Snare token both succeed, and the file ` +
        `keeps the live refresh token (${shared})`,
      async () => {
        const id = shared === "no shared state" ? "cli1" : "cli2";
        const creds = csCredentials(id, 0);
        const mock = await startContentSnare([creds]);
        try {
          const file = join(dir, `${id}.json`);
          writeConnections(file, { main: creds });
          const env: Record<string, string> = shared === "no shared state" ? {} : { STEPFORGE_REDIS_URL: redis.url };
          const args = ["call", "contentsnare_get_me", "--input", "{}", "--connections", file, "--base-url", mock.url];
          const runs = await Promise.all([stepforge(args, env), stepforge(args, env)]);
          for (const run of runs) {
            expect(run.stderr).toBe("");
            expect(run.code).toBe(0);
            expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
          }
          const fields = (
            JSON.parse(readFileSync(file, "utf8")) as {
              connections: { contentsnare: { main: { fields: Record<string, string> } } };
            }
          ).connections.contentsnare.main.fields;
          expect(fields.refreshToken).not.toBe(creds.refreshToken);
          expect(await refreshTokenIsLive(mock, fields)).toBe(true);
        } finally {
          await mock.close();
        }
      },
    );
  }

  it(
    "with Redis down, a call that needs a token fails with a typed error naming the " + "shared state, and no password",
    async () => {
      const creds = csCredentials("cli3", 0);
      const mock = await startContentSnare([creds]);
      const down = await startRedis();
      await down.kill();
      try {
        const file = join(dir, "cli3.json");
        writeConnections(file, { main: creds });
        const url = `redis://:sekret-redis-pass@127.0.0.1:${down.port}`;
        const run = await stepforge(
          ["call", "contentsnare_get_me", "--input", "{}", "--connections", file, "--base-url", mock.url],
          { STEPFORGE_REDIS_URL: url, STEPFORGE_STATE_WAIT_MS: "500" },
        );
        expect(run.code).toBe(1);
        const result = JSON.parse(run.stdout) as {
          ok: boolean;
          error: { kind: string; code?: string; retryable: boolean; message: string };
        };
        expect(result.error).toMatchObject({ kind: "network", code: "state_unreachable", retryable: true });
        expect(result.error.message).toMatch(/shared state \(redis\) is unreachable/);
        expect(run.stdout + run.stderr).not.toContain("sekret-redis-pass");
        expect(mock.counters().requests).toBe(0);
      } finally {
        await down.stop();
        await mock.close();
      }
    },
  );
});

describe("stepforge call with a wrong state setting", () => {
  it("is a usage error naming the variable, never echoing the address", async () => {
    const { runCli } = await import("../helpers/cli.js");
    const saved = process.env.STEPFORGE_REDIS_URL;
    process.env.STEPFORGE_REDIS_URL = "http://user:sekret-pass@10.0.0.5:6379";
    try {
      const result = await runCli(
        "call",
        "contentsnare_get_me",
        "--input",
        "{}",
        "--connections",
        join(dir, "none.json"),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/STEPFORGE_REDIS_URL/);
      expect(result.stdout + result.stderr).not.toContain("sekret-pass");
    } finally {
      if (saved === undefined) delete process.env.STEPFORGE_REDIS_URL;
      else process.env.STEPFORGE_REDIS_URL = saved;
    }
  });
});
