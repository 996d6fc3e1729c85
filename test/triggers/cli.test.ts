/** The trigger and auth commands of the CLI, including `webhook serve` as a real process. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { triggers } from "../../generated/trello/triggers.js";
import { packageRoot } from "../../generator/package-root.js";
import { signPayload } from "../../runtime/triggers/receiver.js";
import { runCli } from "../helpers/cli.js";
import { BOARD, delivery, OTHER_BOARD } from "./fixtures.js";

describe("stepforge auth trello-url", () => {
  it("prints the authorize address with the seed's parameters", async () => {
    const r = await runCli("auth", "trello-url", "--key", "0123456789abcdef0123456789abcdef", "--app-name", "My Agent");
    expect(r.code).toBe(0);
    const url = new URL(r.stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe("https://trello.com/1/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      expiration: "never",
      name: "My Agent",
      scope: "read,write",
      response_type: "token",
      key: "0123456789abcdef0123456789abcdef",
    });
  });

  it("a missing value is a usage error naming the flag", async () => {
    const r = await runCli("auth", "trello-url", "--key", "k");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--app-name");
  });
});

describe("stepforge triggers list", () => {
  it("lists all 15 triggers, instant and polling", async () => {
    const r = await runCli("triggers", "list", "--json");
    const rows = JSON.parse(r.stdout) as Array<{ name: string; instant: boolean }>;
    expect(rows).toHaveLength(15);
    expect(
      rows
        .filter((t) => !t.instant)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["trello_card_due_date_reminder", "trello_new_notification"]);
    expect((await runCli("triggers", "list")).stdout).toContain("15 triggers");
    // seedName: the seed document's name beside ours
    const newCard = (rows as Array<{ name: string; seedName?: string }>).find((t) => t.name === "trello_new_card");
    expect(newCard?.seedName).toBe("New Card");
  });
});

describe("stepforge webhook serve", () => {
  it("requires a secret: verification is never skipped", async () => {
    const r = await runCli("webhook", "serve", "--port", "0", "--callback-url", "https://h.example.com/t");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--secret S (or STEPFORGE_WEBHOOK_SECRET) is required");
  });

  it("a --scope name the spec does not declare, or without a value, is a usage error naming the scopes", async () => {
    const base = ["webhook", "serve", "--port", "0", "--secret", "s", "--callback-url", "https://h.example.com/t"];
    const unknown = await runCli(...base, "--scope", `list=${BOARD}`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`--scope list=${BOARD}: "list" is not a scope of these triggers`);
    expect(unknown.stderr).toContain("use one of: board, member");
    const empty = await runCli(...base, "--scope", "board=");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--scope board=: give a value, as in --scope board=VALUE");
  });

  it.each([
    ["--scope NAME=VALUE", ["--scope", `board=${BOARD}`]],
    ["--board, the older spelling derived from the spec's scope", ["--board", BOARD]],
  ])("verifies deliveries and prints one JSON line per event of the given scope (%s)", async (_how, scopeFlags) => {
    const secret = "serve-secret-9d1e";
    const callbackUrl = "https://hooks.example.com/trello";
    const serve = ["webhook", "serve", "--port", "0", "--callback-url", callbackUrl, ...scopeFlags];
    const child = spawn(process.execPath, [join(packageRoot(), "bin", "stepforge.js"), ...serve], {
      stdio: ["ignore", "pipe", "pipe"],
      // From the environment, so the secret stays out of the process list.
      env: { ...process.env, STEPFORGE_WEBHOOK_SECRET: secret },
    });
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (d: Buffer) => {
          stderr += d.toString();
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      const send = (payload: unknown, sign = true) => {
        const body = JSON.stringify(payload);
        return fetch(url, {
          method: "POST",
          body,
          headers: { "x-trello-webhook": sign ? signPayload(secret, triggers.delivery, body, callbackUrl) : "forged" },
        });
      };
      expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
      expect(
        (await send(delivery("createCard", { card: { id: "c1", name: "x" }, list: { id: "l1" } }), false)).status,
      ).toBe(401);
      expect(
        (await send(delivery("createCard", { card: { id: "c2", name: "x" }, list: { id: "l1" } }, {}, OTHER_BOARD)))
          .status,
      ).toBe(200);
      expect((await send(delivery("createCard", { card: { id: "c3", name: "x" }, list: { id: "l1" } }))).status).toBe(
        200,
      );
      for (let i = 0; i < 100 && !stdout.includes("\n"); i++) await new Promise((r) => setTimeout(r, 20));
      type Line = { trigger: string; refs: { card: { id: string } } };
      const lines = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Line);
      // The forged one and the other board's are not printed; the good one fires New Card,
      // New Board Activity and Custom Webhook Events.
      expect(lines.every((l) => l.refs.card.id === "c3")).toBe(true);
      expect(lines.map((l) => l.trigger)).toContain("trello_new_card");
      const noted = stderr.includes("--board is an older spelling; use --scope board=VALUE");
      expect(noted).toBe(scopeFlags[0] === "--board");
    } finally {
      child.kill("SIGTERM");
    }
  });
});
