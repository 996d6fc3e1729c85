/**
 * `stepforge mcp` over stdio ends while a call is queued behind a client-side limit: on SIGTERM,
 * SIGINT, and when its stdin closes (the client died), with exit code 0, and the queued write
 * never reaches the service. The account's window is one request per 600 s (and the wait bound is
 * raised above it), so the second call would otherwise hold the process for ten minutes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { CARD, LIST, TRELLO } from "../mock/helpers.js";
import { BIN } from "./helpers.js";

/** A raw JSON-RPC peer on the process's stdio: send a message, await the answer to an id. */
function peer(child: ChildProcessWithoutNullStreams) {
  let buffer = "";
  const answers = new Map<number, (message: unknown) => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl)) as { id?: number };
      buffer = buffer.slice(nl + 1);
      if (typeof message.id === "number") answers.get(message.id)?.(message);
    }
  });
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const request = (id: number, method: string, params: object = {}) => {
    const answer = new Promise<unknown>((resolve) => answers.set(id, resolve));
    send({ id, method, params });
    return answer;
  };
  return { send, request };
}

describe("stepforge mcp stops while a call is queued behind a limit", () => {
  let mock: RunningMock;
  let file: string;
  beforeAll(async () => {
    mock = await startMock("trello");
    file = join(mkdtempSync(join(tmpdir(), "stepforge-mcp-")), "connections.json");
    writeFileSync(
      file,
      JSON.stringify({
        work: { service: "trello", fields: { ...TRELLO }, limits: { perToken: { requests: 1, windowSeconds: 600 } } },
      }),
      { mode: 0o600 },
    );
  });
  afterAll(async () => mock?.close());

  async function queuedServer(): Promise<ChildProcessWithoutNullStreams> {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "mcp",
        "--service",
        "trello",
        "--connections",
        file,
        "--base-url",
        `trello=${mock.url}`,
        "--max-limit-wait-ms",
        "3600000",
      ],
      { stdio: "pipe" },
    );
    const p = peer(child);
    await p.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stepforge-test", version: "1" },
    });
    p.send({ method: "notifications/initialized" });
    // Fills the window; the write after it waits (600 s). The ping's answer comes after the write was taken in.
    expect(await p.request(1, "tools/call", { name: "trello_get_card", arguments: { id: CARD } })).toMatchObject({
      result: { content: [{ type: "text" }] },
    });
    void p.request(2, "tools/call", {
      name: "trello_create_card",
      arguments: { idList: LIST, name: "queued at shutdown" },
    });
    await p.request(3, "ping");
    return child;
  }

  const exit = (child: ChildProcessWithoutNullStreams) =>
    new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
  const creates = () => Object.values(mock.counters().creates).reduce((a, b) => a + b, 0);

  for (const how of ["SIGTERM", "SIGINT", "stdin closed"] as const) {
    it(`exits with code 0 on ${how}, the queued write never sent`, { timeout: 20_000 }, async () => {
      const before = creates();
      const child = await queuedServer();
      const exited = exit(child);
      if (how === "stdin closed") child.stdin.end();
      else child.kill(how);
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(creates()).toBe(before);
    });
  }
});
