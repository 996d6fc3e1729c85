/**
 * The command line refuses what it does not take (issue 19, item 8): an unknown flag or a bad value
 * is exit 2 naming the flag, for every command; `auth` takes exactly the values its spec's
 * authorize template leaves open (Trello's scope and expiration are fixed, and were silently
 * dropped before); `webhook serve --callback-url` must be an address.
 */
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "../../cli/main.js";
import { runCli } from "../helpers/cli.js";

/** A well-formed Trello API key (32 hexadecimal characters), so only the flag under test is wrong. */
const TRELLO_KEY = "0123456789abcdef0123456789abcdef";

/** A call of each command that would otherwise get past its flags (a subcommand where it needs one). */
const CALLS: Record<string, string[]> = {
  init: ["init"],
  generate: ["generate"],
  diff: ["diff", "a.yaml", "b.yaml"],
  migrate: ["migrate"],
  lint: ["lint"],
  triggers: ["triggers", "list"],
  webhook: ["webhook", "serve", "--port", "0", "--secret", "s", "--callback-url", "https://h.example.com/t"],
  tools: ["tools", "list"],
  call: ["call", "trello_get_boards", "--input", "{}"],
  mock: ["mock", "trello"],
  mcp: ["mcp"],
  proxy: ["proxy", "--service", "trello", "--upstream", "https://api.trello.com"],
  log: ["log"],
  auth: ["auth", "trello-url", "--key", TRELLO_KEY, "--app-name", "Agent"],
};

describe("unknown flags and bad values", () => {
  it("cover every command", () => expect(Object.keys(CALLS).sort()).toEqual([...COMMAND_NAMES()].sort()));

  it.each(Object.entries(CALLS))("%s refuses --bogus with exit 2 naming it", async (_name, args) => {
    const r = await runCli(...args, "--bogus", "1");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--bogus");
    expect(r.stdout).toBe("");
  });

  it.each([
    [["mock", "trello", "--port", "http"], "--port must be a port number (0-65535)"],
    [["mcp", "--http", "70000"], "--http must be a port number (0-65535)"],
    [["mcp", "--result-bytes", "12.5"], "--result-bytes must be a whole number of bytes"],
    [
      ["webhook", "serve", "--port", "x", "--secret", "s", "--callback-url", "https://h.example.com/t"],
      "--port must be a port number",
    ],
    [
      ["webhook", "serve", "--port", "0", "--secret", "s", "--callback-url", "notaurl"],
      "--callback-url must be an http(s) address",
    ],
    [
      ["call", "trello_get_boards", "--input", "{}", "--connections", "x.json", "--base-url", "localhost:4010"],
      "--base-url must be an http(s) address",
    ],
    [["init", "--format", "toml"], "--format must be one of ts, json, yaml"],
    [["mcp", "--max-tools", "0"], "--max-tools must be a whole number, at least 1"],
    [
      ["proxy", "--service", "trello", "--upstream", "https://api.trello.com", "--port", "x"],
      "--port must be a port number",
    ],
  ])("%j: exit 2, %s", async (args, message) => {
    const r = await runCli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe("stepforge auth trello-url", () => {
  it("refuses flags the authorize template does not take, naming what the spec fixes, and prints nothing", async () => {
    // With the values it does take: before, this printed expiration=never and scope=read,write (exit 0).
    const key = ["--key", TRELLO_KEY, "--app-name", "Agent"];
    const r = await runCli("auth", "trello-url", ...key, "--scope", "read", "--expiration", "1day", "--bogus", "1");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "unknown flag --scope: trello-url takes --app-name, --key (the spec fixes expiration=never, scope=read,write",
    );
  });

  it("names a missing value by the flag the usage shows (--key), and accepts --api-key too", async () => {
    const r = await runCli("auth", "trello-url", "--app-name", "Agent");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pass --key");
    expect(r.stderr).toContain("stepforge auth trello-url --key KEY --app-name NAME");
    const spelled = await runCli("auth", "trello-url", "--api-key", TRELLO_KEY, "--app-name", "Agent");
    expect(spelled.code).toBe(0);
    expect(new URL(spelled.stdout.trim()).searchParams.get("key")).toBe(TRELLO_KEY);
  });

  it("a service without a browser authorization step says so", async () => {
    const r = await runCli("auth", "worldnews-url", "--key", "k");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("worldnews has no browser authorization step");
  });
});
