/**
 * `stepforge log` in process: the newest records, filters, --json, --follow, the log named by
 * STEPFORGE_CALL_LOG, and usage errors that name the option and the fix.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRecord, logCommand } from "../../cli/commands/log.js";
import { type CallRecord, FileCallLog } from "../../runtime/observe/index.js";
import { runCli } from "../helpers/cli.js";

class Text extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

const record = (n: number, extra: Partial<CallRecord> = {}): CallRecord => ({
  v: 1,
  id: `r${n}`,
  time: new Date(Date.now() - (100 - n) * 60_000).toISOString(),
  tool: n % 2 ? "trello_get_card" : "worldnews_search_news",
  service: n % 2 ? "trello" : "worldnews",
  connection: n % 3 ? "work" : "home",
  input: { n },
  outcome: n % 5 ? "ok" : "rate_limited",
  ...(n % 5
    ? {}
    : {
        error: {
          kind: "rate_limited",
          message: "Rate limit exceeded; try again in 10 s.",
          retryable: true,
          status: 429,
          code: "API_TOKEN_LIMIT_EXCEEDED",
        },
      }),
  attempts: n % 5 ? 1 : 3,
  durationMs: n,
  pid: 7,
  ...extra,
});

describe("stepforge log", () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sf-log-cli-"));
    file = join(dir, "calls.jsonl");
    const sink = new FileCallLog(file);
    for (let n = 1; n <= 40; n++) await sink.append(record(n));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the newest records oldest first, one line each", async () => {
    const r = await runCli("log", "--file", file, "--limit", "3");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\S+Z {2}ok +worldnews_search_news {2}work {2}1 attempt {2}38 ms$/);
    expect(lines[2]).toMatch(
      / rate_limited +worldnews_search_news {2}work {2}3 attempts {2}40 ms {2}429 API_TOKEN_LIMIT_EXCEEDED: Rate /,
    );
  });

  it("filters by tool, connection, outcome and since; --json prints records as stored", async () => {
    const r = await runCli(
      "log",
      "--file",
      file,
      "--tool",
      "worldnews_search_news",
      "--connection",
      "home",
      "--outcome",
      "error",
      "--since",
      "90m",
      "--json",
    );
    expect(r.code).toBe(0);
    const records = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as CallRecord);
    // Even numbers (worldnews), multiples of 3 (home), of 5 (rate_limited), in the last 90 minutes (n > 10).
    expect(records.map((x) => x.id)).toEqual(["r30"]);
    const since = await runCli(
      "log",
      "--file",
      file,
      "--service",
      "trello",
      "--since",
      new Date(Date.now() - 64 * 60_000).toISOString(),
      "--json",
    );
    expect(
      since.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as CallRecord).id),
    ).toEqual(["r37", "r39"]);
  });

  it("--follow prints what is logged from now on until stopped", async () => {
    const out = new Text();
    const err = new Text();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = logCommand(["--file", file, "--follow", "--limit", "0", "--outcome", "ok"], out, err, until);
    await new Promise((r) => setTimeout(r, 400));
    const sink = new FileCallLog(file);
    await sink.append(record(41));
    await sink.append(record(45));
    await sink.append(record(43));
    for (let i = 0; i < 100 && out.text.split("\n").length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    stop();
    expect(await running).toBe(0);
    const lines = out.text.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ ok +trello_get_card {2}work {2}1 attempt {2}41 ms$/);
    expect(lines[1]).toMatch(/ ok +trello_get_card {2}work {2}1 attempt {2}43 ms$/);
  });

  it("reads the log STEPFORGE_CALL_LOG names", async () => {
    const before = process.env.STEPFORGE_CALL_LOG;
    process.env.STEPFORGE_CALL_LOG = file;
    try {
      const r = await runCli("log", "--limit", "1", "--json");
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as CallRecord).id).toBe("r43");
    } finally {
      if (before === undefined) delete process.env.STEPFORGE_CALL_LOG;
      else process.env.STEPFORGE_CALL_LOG = before;
    }
  });

  it.each([
    [
      ["--file", "x", "--since", "yesterday"],
      "--since takes a duration back from now (90s, 15m, 2h, 7d) or an ISO time",
    ],
    [["--file", "x", "--outcome", "failed"], "--outcome must be ok, error or an error kind"],
    [["--file", "x", "--limit", "many"], "--limit must be a whole number"],
    [["--file", "x", "--redis", "redis://127.0.0.1:1"], "give --file or --redis, not both"],
    [["--redis", "127.0.0.1:6379"], "--redis must look like redis://host:6379"],
    [[], "which log? give --file FILE or --redis URL, or set STEPFORGE_CALL_LOG"],
  ])("usage error: %j", async (args, message) => {
    const before = process.env.STEPFORGE_CALL_LOG;
    delete process.env.STEPFORGE_CALL_LOG;
    try {
      const r = await runCli("log", ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    } finally {
      if (before !== undefined) process.env.STEPFORGE_CALL_LOG = before;
    }
  });

  it("a line says what went wrong without the input", () => {
    const line = formatRecord(record(5, { input: { secretish: "not shown" } }));
    expect(line).not.toContain("not shown");
    expect(line).toContain("429 API_TOKEN_LIMIT_EXCEEDED");
  });
});
