/**
 * Connections and agents (issue 19, item 6): a connection's own baseUrl, in either form of the
 * connections file, honoured by call and mcp (Marketo pointed at its mock with no made-up instance
 * address); `mcp` leaving out services without an account unless --all-services; and the MCP
 * client entry of `mcp --print-config`, started from another folder and spoken to over MCP.
 */
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServices, resolveScope } from "../../cli/project.js";
import { loadMockDefinition } from "../../cli/services.js";
import { startMockServer, type RunningMock } from "../../runtime/mock/index.js";
import { runCli } from "../helpers/cli.js";
import { httpClient, httpProcess } from "../mcp/helpers.js";
import { PUBLIC_SPEC, tempProject, type TempProject } from "./helpers.js";

let project: TempProject;
let shelf: RunningMock;
let marketo: RunningMock;
let token: string;
let marketoCredentials: Record<string, string>;

beforeAll(async () => {
  project = tempProject();
  project.bookshelf();
  project.write("stepforge.config.yaml", `specs:\n  - specs/bookshelf.yaml\n  - file: ${PUBLIC_SPEC}\n    id: news\n`);
  const scope = await resolveScope({ project: project.dir });
  const definition = await loadMockDefinition(scope.services[0]!);
  token = definition.mock.credentials.accessToken!;
  shelf = await startMockServer(definition, { server: { port: 0 } });
  const marketoDefinition = await loadMockDefinition(bundledServices().find((s) => s.id === "marketo")!);
  marketoCredentials = marketoDefinition.mock.credentials;
  marketo = await startMockServer(marketoDefinition, { server: { port: 0 } });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([shelf?.close(), marketo?.close()]);
  project?.remove();
});

const requests = (mock: RunningMock) => mock.counters().requests;
const call = (tool: string, file: string, ...more: string[]) =>
  runCli("call", tool, "--input", "{}", "--connections", file, "--project", project.dir, ...more);

describe("a connection's own baseUrl", { timeout: 120_000 }, () => {
  it("plain form: call sends the step there, with no --base-url", async () => {
    const file = project.write(
      "plain.json",
      JSON.stringify({ shelf: { service: "bookshelf", baseUrl: shelf.url, fields: { accessToken: token } } }),
    );
    const before = requests(shelf);
    const r = await call("bookshelf_list_books", file);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
    expect(requests(shelf)).toBe(before + 1);
  });

  it("store form: the same, and --base-url still wins over it", async () => {
    const file = project.write(
      "store.json",
      JSON.stringify({
        version: 1,
        connections: {
          bookshelf: { shelf: { name: "shelf", baseUrl: `${marketo.url}/nowhere`, fields: { accessToken: token } } },
        },
      }),
    );
    chmodSync(file, 0o600);
    const before = requests(shelf);
    const r = await call("bookshelf_list_books", file, "--base-url", shelf.url);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
    expect(requests(shelf)).toBe(before + 1);
  });

  it("Marketo at its mock: the instance endpoint comes from baseUrl, no made-up mktorest.com address", async () => {
    const { clientId, clientSecret } = marketoCredentials;
    const file = project.write(
      "marketo.json",
      JSON.stringify({ local: { service: "marketo", baseUrl: marketo.url, fields: { clientId, clientSecret } } }),
    );
    const r = await call("marketo_get_campaigns", file);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
  });

  it("a baseUrl that is not an http(s) address is a usage error naming the connection, not the value", async () => {
    const file = project.write(
      "bad.json",
      JSON.stringify({
        shelf: { service: "bookshelf", baseUrl: "ftp://user:hunter2@h", fields: { accessToken: token } },
      }),
    );
    const r = await call("bookshelf_list_books", file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bookshelf connection "shelf": baseUrl must be an http(s) address');
    expect(r.stderr).not.toContain("hunter2");
  });
});

describe("stepforge mcp and accounts", { timeout: 120_000 }, () => {
  it("leaves out a service without an account, saying which and how to add one", async () => {
    const file = project.write(
      "mcp.json",
      JSON.stringify({ shelf: { service: "bookshelf", baseUrl: shelf.url, fields: { accessToken: token } } }),
    );
    const server = await httpProcess(["--project", project.dir, "--connections", file]);
    try {
      expect(server.stderr()).toContain(
        `stepforge mcp: left out news (no account; add a connection for it to ${file}, ` +
          "or pass --all-services to list them anyway)",
      );
      const client = await httpClient(server.url);
      const listed = (await client.client.listTools()).tools.map((t) => t.name);
      await client.close();
      expect(listed).toContain("bookshelf_list_books");
      expect(listed.filter((n) => n.startsWith("news_"))).toEqual([]);
    } finally {
      await server.stop();
    }
    const all = await httpProcess(["--project", project.dir, "--connections", file, "--all-services"]);
    try {
      expect(all.stderr()).toContain("no account for news; their steps are listed (--all-services)");
      const client = await httpClient(all.url);
      const listed = (await client.client.listTools()).tools.map((t) => t.name);
      await client.close();
      expect(listed.some((n) => n.startsWith("news_"))).toBe(true);
    } finally {
      await all.stop();
    }
  });

  it("the help shows --base-url SERVICE=URL and --all-services on the usage lines", async () => {
    const help = (await runCli("help", "mcp")).stdout;
    const usage = help.slice(help.indexOf("usage:"), help.indexOf("\n\n", help.indexOf("usage:")));
    expect(usage).toContain("[--base-url SERVICE=URL]...");
    expect(usage).toContain("[--all-services]");
  });

  it("--print-config gives an entry a client can start from another folder, and it serves the project", async () => {
    const serving = ["--mock", "--service", "bookshelf", "--project", project.dir];
    const printed = await runCli("mcp", "--print-config", "cursor", ...serving);
    expect(printed.code, printed.stderr).toBe(0);
    const entry = (JSON.parse(printed.stdout) as { mcpServers: { stepforge: { command: string; args: string[] } } })
      .mcpServers.stepforge;
    expect(entry.args).toEqual(expect.arrayContaining(["mcp", ...serving]));
    // As the client does it: its own working directory, nothing of the project on the way.
    const elsewhere = mkdtempSync(join(tmpdir(), "stepforge-client-"));
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: elsewhere,
      stderr: "pipe",
    });
    const client = new Client({ name: "elsewhere", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("bookshelf_create_book");
      const result = (await client.callTool({ name: "bookshelf_list_books", arguments: {} })) as { isError?: boolean };
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const vscode = JSON.parse((await runCli("mcp", "--print-config", "vscode", "--project", project.dir)).stdout) as {
      servers: { stepforge: { type: string } };
    };
    expect(vscode.servers.stepforge.type).toBe("stdio");
    const bad = await runCli("mcp", "--print-config", "emacs");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--print-config must be one of claude, cursor, vscode");
  });
});
