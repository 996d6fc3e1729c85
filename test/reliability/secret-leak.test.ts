/**
 * Secret-leak scan (issue 7, reliability suite part 3).
 *
 * Every secret the specs declare (`x-stepforge.connection.fields[*].secret: true`: Trello apiKey
 * and token, Marketo clientSecret, World News apiKey, Content Snare clientSecret, accessToken and
 * refreshToken), plus Trello's webhook secret, an OAuth authorization code and a password in a
 * hostile base address, is replaced by a marker (see markers.ts). Realistic flows then run in
 * process and through the CLI (in process and as a real process) against the behavioural mocks,
 * configured to accept the markers, and against failing and hostile endpoints. Everything the
 * flows show is captured: errors in every printable form (message, String, JSON, stack, own
 * properties, cause chain, util.inspect at full depth), every hook event, tool results, console.*
 * and process.stdout/stderr writes, process warnings, CLI stdout and stderr. The scan fails when a
 * marker, in any encoding or in part, or a token a mock issued during the run, appears in any of
 * that, in generated/, in a freshly generated client, in a snapshot file or in a file a flow wrote.
 *
 * Deliberate exceptions: the connection store is a credential store (it must hold the secrets; its
 * mode must be 0600 instead), `exchangeAuthorizationCode` returns the tokens to store, and
 * `stepforge auth trello-url` prints the API key in the authorize address (its purpose); only its
 * `key` parameter may carry the key.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../generated/contentsnare/descriptor.js";
import { contentsnareApiCall, contentsnareGetMe } from "../../generated/contentsnare/tools.js";
import { descriptor as marketoDescriptor } from "../../generated/marketo/descriptor.js";
import { marketoApiCall, marketoGetLeads } from "../../generated/marketo/tools.js";
import { descriptor as trelloDescriptor } from "../../generated/trello/descriptor.js";
import { trelloApiCall, trelloCreateCard, trelloGetBoard, trelloGetCard } from "../../generated/trello/tools.js";
import { triggers as trelloTriggers } from "../../generated/trello/triggers.js";
import { descriptor as worldnewsDescriptor } from "../../generated/worldnews/descriptor.js";
import { worldnewsApiCall, worldnewsSearchNews, worldnewsTopNews } from "../../generated/worldnews/tools.js";
import { packageRoot } from "../../generator/package-root.js";
import { Accounts, serveMcpHttp, StepforgeMcp } from "../../runtime/mcp/index.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { httpClient } from "../mcp/helpers.js";
import {
  type ClientOptions,
  type Connection,
  createServiceClient,
  createSharedState,
  exchangeAuthorizationCode,
  FileConnectionStore,
  MemoryConnectionStore,
  requireConnection,
  type ServiceDescriptor,
} from "../../runtime/index.js";
import { startMock, type MockOptions, type RunningMock } from "../../runtime/mock/index.js";
import "../mock/register.js";
import { executeTool, type ToolContext, type ToolDefinition, type ToolResult } from "../../runtime/tools/index.js";
import { ensureWebhook, removeWebhook } from "../../runtime/triggers/lifecycle.js";
import { createWebhookReceiver, signPayload } from "../../runtime/triggers/receiver.js";
import { createTriggerRouter } from "../../runtime/triggers/router.js";
import { runCli } from "../helpers/cli.js";
import {
  createMarkers,
  describeLeaks,
  encodedForms,
  filesUnder,
  type Leak,
  mask,
  type Marker,
  needlesFor,
  scanFiles,
  scanText,
  textMarker,
} from "./markers.js";
import {
  Capture,
  captureProcessOutput,
  closedPort,
  cliProcess,
  echoServer,
  recordingProxy,
  runCliProcess,
  type ProcessResult,
} from "./secret-leak-helpers.js";

const BOARD = "60d5ecb74e2a1b3c4d5e6f70";
const LIST = "60d5ecb74e2a1b3c4d5e6f72";
const MARKETO_ENDPOINT = "https://123-ABC-456.mktorest.com";
const MARKETO_CLIENT_ID = "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61";
const CS_CLIENT_ID = "cs-client-id-leakscan";

const M = createMarkers();
const wrongCode = textMarker("contentsnare.wrongAuthorizationCode");
const allMarkers: Marker[] = [...Object.values(M), wrongCode];
/** Tokens the mocks issued during the run (learned by the recording proxies). */
const issued: Array<{ kind: string; value: string }> = [];
const capture = new Capture();
let restoreOutput: () => void = () => undefined;
let dir: string;
const closers: Array<() => Promise<void>> = [];
/** Files the flows wrote that must be scanned (the connection stores are checked separately). */
const writtenDirs: string[] = [];
const storeFiles: string[] = [];
let generated: Promise<ProcessResult & { out: string }>;

const needles = () => needlesFor(allMarkers, issued);

/** Scans everything captured so far (and not yet scanned). */
let scanned = 0;
function leaksSoFar(): Leak[] {
  const n = needles();
  const leaks = capture.entries.slice(scanned).flatMap((e) => scanText(e.source, e.text, n));
  scanned = capture.entries.length;
  return leaks;
}
function expectNoLeaks(): void {
  const leaks = leaksSoFar();
  expect(leaks, `secret markers leaked:\n${describeLeaks(leaks)}`).toEqual([]);
}

async function opened<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const t = await thing;
  closers.push(() => t.close());
  return t;
}

const quietLimits = (d: ServiceDescriptor) => Object.fromEntries(d.limits.map((l) => [l.id, { disabled: true }]));
const fastRetry = {
  attempts: 2,
  baseDelayMs: 1,
  maxDelayMs: 5,
  maxTotalWaitMs: 500,
  random: () => 0,
  timeoutMs: 5_000,
};

function options(
  source: string,
  descriptor: ServiceDescriptor,
  fields: Record<string, string>,
  baseUrl: string | undefined,
  extra: Partial<ClientOptions> = {},
): ToolContext {
  return {
    connection: { name: `${descriptor.id}-leakscan`, fields },
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    shared: createSharedState(),
    limits: quietLimits(descriptor),
    retry: fastRetry,
    hooks: capture.hooks(source),
    ...extra,
  };
}

/** Runs a tool step and records its result (tool steps never throw; a throw is recorded too). */
async function step(source: string, tool: ToolDefinition, input: unknown, context: ToolContext): Promise<ToolResult> {
  const r = await capture.run(source, () => executeTool(tool, input, { ...context, hooks: capture.hooks(source) }));
  if (!r.ok) throw new Error(`${source}: executeTool threw (it must return a result)`);
  return r.value;
}

/** Calls one operation through a service client built for the flow; records the result or the error. */
async function clientCall(
  source: string,
  descriptor: ServiceDescriptor,
  context: ToolContext,
  operationId: string,
  init: object = {},
) {
  return capture.run(source, () =>
    createServiceClient(descriptor, { ...context, hooks: capture.hooks(source) }).call(operationId, init),
  );
}

async function mockWithProxy(service: string, mockOptions: MockOptions): Promise<{ mock: RunningMock; url: string }> {
  const mock = await opened(startMock(service, mockOptions));
  const proxy = await opened(recordingProxy(mock.url, issued));
  return { mock, url: proxy.url };
}

const trelloCredentials = { apiKey: M.trelloApiKey.value, token: M.trelloToken.value };
const marketoFields = {
  endpoint: MARKETO_ENDPOINT,
  clientId: MARKETO_CLIENT_ID,
  clientSecret: M.marketoClientSecret.value,
};
const contentsnareMockCredentials = {
  clientId: CS_CLIENT_ID,
  clientSecret: M.contentsnareClientSecret.value,
  accessToken: M.contentsnareServerAccessToken.value,
  refreshToken: M.contentsnareRefreshToken.value,
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "stepforge-leakscan-"));
  writtenDirs.push(dir);
  restoreOutput = captureProcessOutput(capture);
  // The generator as a real process, with markers in its environment (it must pick none up).
  const out = join(dir, "generated-trello");
  generated = runCliProcess(
    ["generate", "--spec", join(packageRoot(), "specs", "trello.yaml"), "--out", out, "--no-cache"],
    {
      TRELLO_TOKEN: M.trelloToken.value,
      TRELLO_API_KEY: M.trelloApiKey.value,
      STEPFORGE_WEBHOOK_SECRET: M.trelloWebhookSecret.value,
    },
    25_000,
  ).then((r) => ({ ...r, out }));
});

afterAll(async () => {
  restoreOutput();
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await generated?.catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the scanner (self-check: the scan can fail)", () => {
  it("finds a planted marker in every encoding and in part, and masks it in reports", async () => {
    const planted = textMarker("selfcheck.secret");
    const hexPlanted = {
      kind: "selfcheck.hex",
      value: "5ec7e75ec7e7" + "0123456789abcdef0123",
      tail: "0123456789abcdef0123",
    };
    const n = needlesFor([planted, hexPlanted]);
    for (const form of encodedForms(planted.value)) {
      expect(scanText("planted", `before ${form.text} after`, n).length, `form ${form.form}`).toBeGreaterThan(0);
    }
    // base64 of a longer text that contains the marker at each byte alignment.
    for (let offset = 0; offset < 3; offset++) {
      for (const encoding of ["base64", "base64url"] as const) {
        const text = Buffer.from(`${"x".repeat(offset + 5)}Bearer ${planted.value} and more`).toString(encoding);
        expect(scanText("planted", text, n).length, `${encoding} at offset ${offset}`).toBeGreaterThan(0);
      }
    }
    const url = new URL("http://127.0.0.1/x");
    url.searchParams.set("token", planted.value);
    expect(scanText("planted", url.toString(), n).length).toBeGreaterThan(0);
    expect(scanText("planted", url.toString().toLowerCase(), n).length).toBeGreaterThan(0);
    expect(scanText("planted", `truncated ${planted.value.slice(0, 12)}…`, n).length).toBeGreaterThan(0);
    expect(scanText("planted", `tail …${planted.tail}`, n).length).toBeGreaterThan(0);
    expect(scanText("planted", `key=${hexPlanted.value.toUpperCase()}`, n).length).toBeGreaterThan(0);
    // Clean text is clean, and a report never repeats the marker.
    expect(scanText("clean", "invalid token [redacted] for key=[redacted]; id 60d5ecb74e2a1b3c4d5e6f70", n)).toEqual(
      [],
    );
    const report = describeLeaks(scanText("planted", `x ${planted.value} y`, n));
    expect(report).toContain("<MARKER:selfcheck.secret>");
    expect(report).not.toContain(planted.value);
    expect(mask(encodeURIComponent(planted.value), n)).not.toContain(planted.tail);
    // The file scan finds an encoded marker in a file.
    const file = join(dir, "selfcheck", "planted.txt");
    await rm(join(dir, "selfcheck"), { recursive: true, force: true });
    await mkdir(join(dir, "selfcheck"));
    await writeFile(file, `Authorization: Basic ${Buffer.from(`user:${planted.value}`).toString("base64")}\n`);
    expect(scanFiles(filesUnder(join(dir, "selfcheck")), n, dir).map((l) => l.form)).toContain("base64");
    await rm(join(dir, "selfcheck"), { recursive: true, force: true });
  });

  it("the output capture records console and stream writes, and lets them through", () => {
    const inner = new Capture();
    const restore = captureProcessOutput(inner);
    const probe = `capture-sanity-${Date.now()}`;
    try {
      console.error(probe, { nested: probe });
      console.debug(probe);
      process.stderr.write(`${probe}\n`);
    } finally {
      restore();
    }
    const sources = inner.entries.filter((e) => e.text.includes(probe)).map((e) => e.source);
    expect(new Set(sources)).toEqual(new Set(["console.error", "console.debug", "process.stderr"]));
  });

  it("the markers satisfy the connection fields' patterns", () => {
    expect(M.trelloApiKey.value).toMatch(/^[0-9a-fA-F]{32}$/);
    // Validates every marker connection as the runtime would (throws on a pattern mismatch).
    const store = new MemoryConnectionStore();
    return Promise.all([
      store.put(trelloDescriptor, { name: "t", fields: trelloCredentials }),
      store.put(marketoDescriptor, { name: "m", fields: marketoFields }),
      store.put(worldnewsDescriptor, { name: "w", fields: { apiKey: M.worldnewsApiKey.value } }),
      store.put(contentsnareDescriptor, {
        name: "c",
        fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
      }),
    ]);
  });
});

describe("secret-leak scan: flows in process", () => {
  it("Trello: steps, typed calls, a revoked token, invalid input, the API Call step and its endpoint guard", async () => {
    const { url } = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      webhooks: { secret: M.trelloWebhookSecret.value },
    });
    const ctx = (source: string, fields = trelloCredentials) => options(source, trelloDescriptor, fields, url);

    expect(
      (await step("trello get board", trelloGetBoard, { id: BOARD, lists: "open" }, ctx("trello get board"))).ok,
    ).toBe(true);
    expect(
      (
        await step(
          "trello create card",
          trelloCreateCard,
          { idList: LIST, name: "Leak scan" },
          ctx("trello create card"),
        )
      ).ok,
    ).toBe(true);
    expect(
      (
        await clientCall("trello typed call", trelloDescriptor, ctx("trello typed call"), "getBoardLists", {
          params: { path: { id: BOARD } },
        })
      ).ok,
    ).toBe(true);
    // The OAuth-header mode of the same credentials.
    expect(
      (
        await step(
          "trello oauth mode",
          trelloGetBoard,
          { id: BOARD },
          { ...ctx("trello oauth mode"), connection: { name: "t", fields: trelloCredentials, authMode: "oauth" } },
        )
      ).ok,
    ).toBe(true);

    const revoked = { ...trelloCredentials, token: M.trelloRevokedToken.value };
    const refused = await step(
      "trello revoked token",
      trelloGetBoard,
      { id: BOARD },
      ctx("trello revoked token", revoked),
    );
    expect(refused.ok === false && refused.error.kind).toBe("auth");
    expect(
      (
        await clientCall("trello revoked typed", trelloDescriptor, ctx("trello revoked typed", revoked), "getBoard", {
          params: { path: { id: BOARD } },
        })
      ).ok,
    ).toBe(false);

    // Invalid input, including an unknown field that carries the token.
    const invalid = await step(
      "trello invalid input",
      trelloGetCard,
      { id: 42, token: M.trelloToken.value, key: M.trelloApiKey.value },
      ctx("trello invalid input"),
    );
    expect(invalid.ok === false && invalid.error.kind).toBe("invalid_input");

    // The API Call step: allowed paths (one has the token in it, as Trello's /1/tokens/{token} routes do) ...
    expect(
      (
        await step(
          "trello api call",
          trelloApiCall,
          { method: "GET", endpoint: "/1/members/me/boards" },
          ctx("trello api call"),
        )
      ).ok,
    ).toBe(true);
    const tokenPath = await step(
      "trello api call token path",
      trelloApiCall,
      { method: "GET", endpoint: `/1/tokens/${M.trelloToken.value}/webhooks` },
      ctx("trello api call token path"),
    );
    expect(tokenPath.ok).toBe(true);
    const missing = await step(
      "trello api call 404 token path",
      trelloApiCall,
      { method: "GET", endpoint: `/1/tokens/${M.trelloToken.value}/nothing-here` },
      ctx("trello api call 404 token path"),
    );
    expect(missing.ok).toBe(false);
    // ... and the guard's refusals, with the connection's secrets in the hostile input.
    const hostile = [
      `https://evil.example/steal?token=${M.trelloToken.value}`,
      `//evil.example/${M.trelloToken.value}`,
      `/1/../../${M.trelloApiKey.value}`,
      `/1/%2e%2e/${M.trelloToken.value}`,
      `/1/cards?key=${M.trelloApiKey.value}&token=${M.trelloToken.value}`,
      `/1/cards#${M.trelloToken.value}`,
      `/1/members/${M.trelloToken.value}@evil.example`,
      `/1/x\\${M.trelloToken.value}`,
      `1/${M.trelloToken.value}`,
    ];
    for (const endpoint of hostile) {
      const r = await step(
        "trello api call refused",
        trelloApiCall,
        { method: "GET", endpoint },
        ctx("trello api call refused"),
      );
      expect(r.ok === false && r.error.kind).toBe("invalid_input");
    }
    const reserved = await step(
      "trello api call reserved query",
      trelloApiCall,
      {
        method: "GET",
        endpoint: "/1/members/me",
        query_parameters: { key: M.trelloApiKey.value, Token: M.trelloToken.value },
      },
      ctx("trello api call reserved query"),
    );
    expect(reserved.ok === false && reserved.error.kind).toBe("invalid_input");
    expectNoLeaks();
  });

  it("the MCP server: listings, results and isError results over HTTP, two accounts (one revoked), a lost write's check, a refused client", async () => {
    const { url } = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { seed: 5, slowBody: { rate: 1, delayMs: 40, chunkBytes: 16 }, operations: ["createCard"] },
    });
    const catalogs = (await loadCatalogs()).filter((c) => c.id === "trello");
    const account = (name: string, fields: Record<string, string>) => ({
      name,
      context: { ...options(`mcp ${name}`, trelloDescriptor, fields, url), retry: { ...fastRetry, timeoutMs: 300 } },
    });
    const accounts = new Accounts([
      [
        "trello",
        [
          account("work", trelloCredentials),
          account("old", { ...trelloCredentials, token: M.trelloRevokedToken.value }),
        ],
      ],
    ]);
    const token = M.mcpBearerToken.value;
    for (const dynamic of [false, true]) {
      const mcp = new StepforgeMcp({ catalogs, accounts, dynamic, resultBytes: 3000 });
      const http = await opened(serveMcpHttp(() => mcp.createServer(), { port: 0, token }));
      const c = await httpClient(http.url, token);
      try {
        capture.add(`mcp list dynamic=${dynamic}`, await c.client.listTools());
        const call = async (name: string, args: Record<string, unknown>) => {
          const [tool, input] = dynamic ? ["call_step", { name, input: args }] : [name, args];
          const r = await c.client.callTool({ name: tool, arguments: input });
          capture.add(`mcp ${name} dynamic=${dynamic}`, r);
          return r;
        };
        expect((await call("trello_get_board_cards", { id: BOARD, stepforge_connection: "work" })).isError).toBeFalsy();
        expect((await call("trello_get_board", { id: BOARD, stepforge_connection: "old" })).isError).toBe(true);
        expect(
          (await call("trello_create_card", { idList: LIST, name: "lost answer", stepforge_connection: "work" }))
            .isError,
        ).toBe(true);
        expect(
          (await call("trello_get_card", { id: 5, token: M.trelloToken.value, stepforge_connection: "work" })).isError,
        ).toBe(true);
        expect((await call("trello_get_member", { id: "..", stepforge_connection: "work" })).isError).toBe(true);
        expect(
          (
            await call("trello_api_call", {
              method: "GET",
              endpoint: `/1/x/../${M.trelloToken.value}`,
              stepforge_connection: "work",
            })
          ).isError,
        ).toBe(true);
        if (dynamic)
          capture.add(
            "mcp describe",
            await c.client.callTool({ name: "describe_step", arguments: { name: "trello_create_card" } }),
          );
      } finally {
        await c.close();
      }
      // A client with a wrong token is refused; the answer carries neither token.
      const refused = await fetch(http.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${M.trelloToken.value}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: "{}",
      });
      capture.add(
        "mcp refused client",
        `${refused.status} ${await refused.text()} ${JSON.stringify([...refused.headers])}`,
      );
      expect(refused.status).toBe(401);
    }
    expectNoLeaks();
  });

  it("Trello: 5xx until retries run out, dropped connections, timeouts, a closed port", async () => {
    const failing = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { error: { rate: 1, statuses: [500, 502, 503] } },
    });
    const dropping = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { drop: { rate: 1 } },
    });
    const slow = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      faults: { latency: { rate: 1, ms: 400 } },
    });
    const port = await closedPort();
    for (const [name, base, extra] of [
      ["5xx", failing.url, {}],
      ["dropped", dropping.url, {}],
      ["timeout", slow.url, { retry: { ...fastRetry, timeoutMs: 100 } }],
      ["closed port", `http://127.0.0.1:${port}`, {}],
    ] as const) {
      const ctx = { ...options(`trello ${name}`, trelloDescriptor, trelloCredentials, base), ...extra };
      const r = await step(`trello ${name}`, trelloGetBoard, { id: BOARD }, ctx);
      expect(r.ok, name).toBe(false);
      expect(
        (
          await clientCall(`trello ${name} typed`, trelloDescriptor, ctx, "getBoard", {
            params: { path: { id: BOARD } },
          })
        ).ok,
      ).toBe(false);
      const post = await step(`trello ${name} write`, trelloCreateCard, { idList: LIST, name: "x" }, ctx);
      expect(post.ok).toBe(false);
    }
    expectNoLeaks();
  });

  it("hostile base and token addresses: user information, other schemes, malformed addresses", async () => {
    const { url } = await mockWithProxy("trello", { auth: { credentials: trelloCredentials } });
    const port = new URL(url).port;
    const bases = [
      `http://proxyuser:${M.userinfoPassword.value}@127.0.0.1:${port}`,
      `http://${M.userinfoPassword.value}@127.0.0.1:${port}`,
      `ftp://127.0.0.1:${port}`,
      "file:///etc/passwd",
      "javascript:alert(1)",
      "not a url",
      `http://[::1`,
      `http://127.0.0.1:${port}/?next=`,
    ];
    for (const base of bases) {
      for (const [descriptor, fields, tool, input] of [
        [trelloDescriptor, trelloCredentials, trelloGetBoard, { id: BOARD }],
        [trelloDescriptor, trelloCredentials, trelloApiCall, { method: "GET", endpoint: "/1/members/me/boards" }],
        [worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, worldnewsSearchNews, { text: "leak scan" }],
        [marketoDescriptor, marketoFields, marketoGetLeads, { filterType: "email", filterValues: ["ada@example.com"] }],
        [
          contentsnareDescriptor,
          { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
          contentsnareGetMe,
          {},
        ],
      ] as const) {
        const source = `${descriptor.id} hostile base ${mask(base, needles())}`;
        await step(source, tool as ToolDefinition, input, options(source, descriptor, fields, base));
        const client = await capture.run(`${source} client`, () =>
          createServiceClient(descriptor, options(source, descriptor, fields, base)),
        );
        if (client.ok)
          await capture.run(`${source} call`, () => client.value.call(Object.keys(descriptor.operations)[0]!, {}));
      }
    }
    // A token endpoint with user information, and a closed one, for both OAuth kinds.
    const closed = await closedPort();
    for (const tokenUrl of [
      `http://tokenuser:${M.userinfoPassword.value}@127.0.0.1:${closed}/identity/oauth/token`,
      `http://127.0.0.1:${closed}/identity/oauth/token`,
    ]) {
      const source = `marketo hostile token url ${mask(tokenUrl, needles())}`;
      const r = await step(
        source,
        marketoGetLeads,
        { filterType: "email", filterValues: ["ada@example.com"] },
        options(source, marketoDescriptor, marketoFields, url, { tokenUrl }),
      );
      expect(r.ok).toBe(false);
      const cs = `contentsnare hostile token url ${mask(tokenUrl, needles())}`;
      const stale = {
        ...contentsnareMockCredentials,
        accessToken: M.contentsnareAccessToken.value,
        expiresAt: "2020-01-01T00:00:00Z",
      };
      expect(
        (await step(cs, contentsnareGetMe, {}, options(cs, contentsnareDescriptor, stale, url, { tokenUrl }))).ok,
      ).toBe(false);
    }
    expectNoLeaks();
  });

  it("a hostile service that echoes the whole request (URL, headers, body) in its errors", async () => {
    const echo = await opened(echoServer());
    const marketoMock = await mockWithProxy("marketo", {
      auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
    });
    const csMock = await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } });
    let redactions = 0;
    const check = (r: ToolResult) => {
      expect(r.ok).toBe(false);
      if (!r.ok && r.error.message.includes("[redacted]")) redactions++;
    };
    for (const [status, format] of [
      [400, "text"],
      [401, "json"],
      [503, "json"],
      [401, "text"],
      [200, "mkto"],
    ] as const) {
      const base = echo.base(status, format);
      const label = `echo ${status} ${format}`;
      if (format === "mkto") {
        // Marketo's own failure shape: HTTP 200 with success:false.
        check(
          await step(
            `marketo api ${label}`,
            marketoApiCall,
            {
              method: "GET",
              endpoint: "/rest/v1/leads.json",
              query_parameters: { filterType: "id", filterValues: "1" },
            },
            options(`marketo api ${label}`, marketoDescriptor, marketoFields, base, {
              tokenUrl: `${marketoMock.url}/identity/oauth/token`,
            }),
          ),
        );
        continue;
      }
      check(
        await step(
          `trello ${label}`,
          trelloGetBoard,
          { id: BOARD },
          options(`trello ${label}`, trelloDescriptor, trelloCredentials, base),
        ),
      );
      check(
        await step(
          `trello oauth ${label}`,
          trelloGetBoard,
          { id: BOARD },
          {
            ...options(`trello oauth ${label}`, trelloDescriptor, trelloCredentials, base),
            connection: { name: "t", fields: trelloCredentials, authMode: "oauth" },
          },
        ),
      );
      check(
        await step(
          `trello api call ${label}`,
          trelloApiCall,
          { method: "POST", endpoint: "/1/cards", body: { name: "x" } },
          options(`trello api call ${label}`, trelloDescriptor, trelloCredentials, base),
        ),
      );
      check(
        await step(
          `worldnews header ${label}`,
          worldnewsSearchNews,
          { text: "leak scan" },
          options(`worldnews header ${label}`, worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, base),
        ),
      );
      check(
        await step(
          `worldnews query ${label}`,
          worldnewsApiCall,
          { method: "GET", endpoint: "/search-news", params: { text: "leak scan" } },
          {
            ...options(`worldnews query ${label}`, worldnewsDescriptor, { apiKey: M.worldnewsApiKey.value }, base),
            connection: { name: "w", fields: { apiKey: M.worldnewsApiKey.value }, authMode: "query" },
          },
        ),
      );
      // Marketo: the token endpoint itself echoes (client secret in its query) ...
      check(
        await step(
          `marketo token ${label}`,
          marketoGetLeads,
          { filterType: "email", filterValues: ["ada@example.com"] },
          options(`marketo token ${label}`, marketoDescriptor, marketoFields, base),
        ),
      );
      // ... and a real token (from the mock) echoed back by the API.
      check(
        await step(
          `marketo api ${label}`,
          marketoApiCall,
          { method: "GET", endpoint: "/rest/v1/leads.json", query_parameters: { filterType: "id", filterValues: "1" } },
          options(`marketo api ${label}`, marketoDescriptor, marketoFields, base, {
            tokenUrl: `${marketoMock.url}/identity/oauth/token`,
          }),
        ),
      );
      // Content Snare: the API echoes the access token; the token endpoint echoes client secret and refresh token.
      const stale = { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value };
      check(
        await step(
          `contentsnare ${label}`,
          contentsnareGetMe,
          {},
          options(`contentsnare ${label}`, contentsnareDescriptor, stale, base),
        ),
      );
      check(
        await step(
          `contentsnare api refreshed ${label}`,
          contentsnareApiCall,
          { method: "GET", endpoint: "/partner_api/v1/me" },
          options(
            `contentsnare api refreshed ${label}`,
            contentsnareDescriptor,
            { ...stale, expiresAt: "2020-01-01T00:00:00Z" },
            base,
            { tokenUrl: `${csMock.url}/oauth/token` },
          ),
        ),
      );
      csMock.mock.reset();
    }
    // The echoes did carry secrets, and they were redacted.
    expect(redactions).toBeGreaterThan(20);
    expectNoLeaks();
  });

  it("Marketo: token fetch, a 602 renewal, a refused client secret", async () => {
    let now = Date.UTC(2026, 0, 15, 12);
    const { url } = await mockWithProxy("marketo", {
      auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
      clock: () => now,
    });
    const shared = createSharedState();
    const ctx = (source: string, fields = marketoFields) => ({
      ...options(source, marketoDescriptor, fields, url),
      shared,
    });
    expect(
      (
        await step(
          "marketo get leads",
          marketoGetLeads,
          { filterType: "email", filterValues: ["ada@example.com"] },
          ctx("marketo get leads"),
        )
      ).ok,
    ).toBe(true);
    now += 2 * 3600 * 1000; // the mock's token expires; the client still believes in it
    expect(
      (
        await step(
          "marketo renewal",
          marketoGetLeads,
          { filterType: "email", filterValues: ["ada@example.com"] },
          ctx("marketo renewal"),
        )
      ).ok,
    ).toBe(true);
    expect(issued.filter((t) => t.kind === "mock-issued access_token").length).toBeGreaterThanOrEqual(2);
    const wrong = { ...marketoFields, clientSecret: M.marketoWrongSecret.value };
    // Same client id, same shared token cache, wrong secret: refused (not handed the cached token).
    const refused = await step(
      "marketo wrong secret",
      marketoGetLeads,
      { filterType: "email", filterValues: ["ada@example.com"] },
      ctx("marketo wrong secret", wrong),
    );
    expect(refused.ok === false && refused.error.kind).toBe("auth");
    // The model puts the client secret in a query parameter of the API Call step (sent, never shown).
    await step(
      "marketo api call",
      marketoApiCall,
      {
        method: "GET",
        endpoint: "/rest/v1/leads.json",
        query_parameters: { filterType: "id", filterValues: "1", access_token: M.marketoClientSecret.value },
      },
      ctx("marketo api call"),
    );
    expectNoLeaks();
  });

  it("World News: header and query modes, a wrong key, the points quota, reserved query names", async () => {
    const { url } = await mockWithProxy("worldnews", {
      auth: { credentials: { apiKey: M.worldnewsApiKey.value } },
      limits: { overrides: { points: { points: 2 } } },
    });
    const fields = { apiKey: M.worldnewsApiKey.value };
    const shared = createSharedState();
    const ctx = (source: string, connection: Partial<Connection> = {}) => {
      const o = { ...options(source, worldnewsDescriptor, fields, url), shared };
      o.limits = {};
      return { ...o, connection: { ...o.connection, ...connection } };
    };
    expect(
      (await step("worldnews header", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews header"))).ok,
    ).toBe(true);
    expect(
      (
        await step(
          "worldnews query mode",
          worldnewsSearchNews,
          { text: "leak scan" },
          ctx("worldnews query mode", { authMode: "query" }),
        )
      ).ok,
    ).toBe(true);
    const quota = await step("worldnews quota", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews quota"));
    expect(quota.ok === false && quota.error.kind).toBe("quota_exhausted");
    // Refused locally now that the quota is known to be spent.
    await step("worldnews quota local", worldnewsSearchNews, { text: "leak scan" }, ctx("worldnews quota local"));
    const wrong = await step(
      "worldnews wrong key",
      worldnewsSearchNews,
      { text: "leak scan" },
      { ...ctx("worldnews wrong key", { fields: { apiKey: M.worldnewsWrongKey.value } }), shared: createSharedState() },
    );
    expect(wrong.ok === false && wrong.error.kind).toBe("auth");
    // Two calls at once under the free plan's concurrency of 1: the second waits (a throttle event).
    const throttled = { ...ctx("worldnews throttled"), shared: createSharedState() };
    await Promise.all([
      step("worldnews throttled 1", worldnewsTopNews, { source_country: "us", language: "en" }, throttled),
      step("worldnews throttled 2", worldnewsTopNews, { source_country: "us", language: "en" }, throttled),
    ]);
    const reserved = await step(
      "worldnews reserved",
      worldnewsApiCall,
      {
        method: "GET",
        endpoint: "/search-news",
        params: { "api-key": M.worldnewsApiKey.value, "API-KEY": M.worldnewsWrongKey.value },
      },
      ctx("worldnews reserved"),
    );
    expect(reserved.ok === false && reserved.error.kind).toBe("invalid_input");
    expectNoLeaks();
  });

  it("Content Snare: a 401 renewal with rotation written to a file store, proactive renewal, a revoked refresh token, code exchange", async () => {
    const { mock, url } = await mockWithProxy("contentsnare", {
      auth: { credentials: contentsnareMockCredentials, authorizationCode: M.contentsnareAuthorizationCode.value },
    });
    const storeFile = join(dir, "stores", "connections.json");
    storeFiles.push(storeFile);
    const store = new FileConnectionStore(storeFile);
    const stale: Connection = {
      name: "snare",
      fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
    };
    await store.put(contentsnareDescriptor, stale);
    const rotated: Array<Record<string, string>> = [];
    const ctx = (source: string, connection: Connection, extra: Partial<ClientOptions> = {}) => ({
      ...options(source, contentsnareDescriptor, connection.fields, url),
      connection,
      store,
      onTokens: (_name: string, fields: Record<string, string>) => void rotated.push(fields),
      ...extra,
    });

    expect(
      (
        await step(
          "contentsnare 401 renewal",
          contentsnareGetMe,
          {},
          ctx("contentsnare 401 renewal", await requireConnection(store, contentsnareDescriptor, "snare")),
        )
      ).ok,
    ).toBe(true);
    expect(rotated).toHaveLength(1);
    const renewed = (await store.get("contentsnare", "snare"))!;
    expect(renewed.fields.refreshToken).not.toBe(M.contentsnareRefreshToken.value);
    // Proactive renewal: the stored expiry is in the past.
    const expired = { ...renewed, fields: { ...renewed.fields, expiresAt: "2020-01-01T00:00:00Z" } };
    expect(
      (
        await step(
          "contentsnare proactive renewal",
          contentsnareApiCall,
          { method: "GET", endpoint: "/partner_api/v1/me" },
          ctx("contentsnare proactive renewal", expired),
        )
      ).ok,
    ).toBe(true);
    // The original refresh token was rotated away and no store holds a newer one: renewal is refused.
    const revoked = await step(
      "contentsnare revoked refresh",
      contentsnareGetMe,
      {},
      ctx("contentsnare revoked refresh", stale, { store: undefined }),
    );
    expect(revoked.ok === false && revoked.error.kind).toBe("auth");
    // The store failing to take rotated tokens (hook "failed"; its error quotes a secret and must stay swallowed).
    const failingStore = {
      ...store,
      get: store.get.bind(store),
      list: store.list.bind(store),
      put: store.put.bind(store),
      remove: store.remove.bind(store),
      updateFields: async () =>
        Promise.reject(new Error(`disk full while writing ${M.contentsnareRefreshToken.value}`)),
    };
    const latest = (await store.get("contentsnare", "snare"))!;
    await step(
      "contentsnare store failure",
      contentsnareGetMe,
      {},
      ctx(
        "contentsnare store failure",
        { ...latest, fields: { ...latest.fields, expiresAt: "2020-01-01T00:00:00Z" } },
        { store: failingStore },
      ),
    );

    // Authorization-code exchange: a wrong code, then the right one (its result is the tokens to store).
    const exchange = (code: string) =>
      exchangeAuthorizationCode(contentsnareDescriptor, {
        connection: {
          name: "snare",
          fields: { clientId: CS_CLIENT_ID, clientSecret: M.contentsnareClientSecret.value },
        },
        code,
        redirectUri: "https://app.example.com/oauth/callback",
        tokenUrl: `${url}/oauth/token`,
      });
    const badCode = await capture.run("contentsnare exchange wrong code", () => exchange(wrongCode.value));
    expect(badCode.ok).toBe(false);
    mock.reset();
    const good = await exchange(M.contentsnareAuthorizationCode.value);
    expect(good.accessToken).toBeTruthy();
    const closed = await closedPort();
    await capture.run("contentsnare exchange closed port", () =>
      exchangeAuthorizationCode(contentsnareDescriptor, {
        connection: {
          name: "snare",
          fields: { clientId: CS_CLIENT_ID, clientSecret: M.contentsnareClientSecret.value },
        },
        code: M.contentsnareAuthorizationCode.value,
        redirectUri: "https://app.example.com/cb",
        tokenUrl: `http://127.0.0.1:${closed}/oauth/token`,
        timeoutMs: 2_000,
      }),
    );
    expectNoLeaks();
  });

  it("the connection file store: 0600, no temporary files left, errors name fields but never values", async () => {
    const storeDir = join(dir, "stores2");
    const file = join(storeDir, "connections.json");
    storeFiles.push(file);
    const store = new FileConnectionStore(file);
    await store.put(trelloDescriptor, { name: "work", fields: trelloCredentials });
    await store.put(marketoDescriptor, { name: "mkto", fields: marketoFields });
    await store.put(worldnewsDescriptor, { name: "news", fields: { apiKey: M.worldnewsApiKey.value } });
    await store.put(contentsnareDescriptor, {
      name: "snare",
      fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
    });
    await store.updateFields("contentsnare", "snare", { accessToken: M.contentsnareServerAccessToken.value });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(storeDir)).toEqual(["connections.json"]);
    // It is a credential store: the secrets are in it, in plain text, for its owner only.
    expect(await readFile(file, "utf8")).toContain(M.trelloToken.value);

    // A value that fails its pattern, a field under a wrong name, a missing connection.
    await capture.run("store bad pattern", () =>
      store.put(trelloDescriptor, {
        name: "bad",
        fields: { apiKey: M.trelloRevokedToken.value, token: M.trelloToken.value },
      }),
    );
    await capture.run("store wrong field name", () =>
      store.put(worldnewsDescriptor, {
        name: "bad",
        fields: { apikey: M.worldnewsApiKey.value } as Record<string, string>,
      }),
    );
    await capture.run("store missing connection", () => requireConnection(store, trelloDescriptor, "nope"));
    await capture.run("client bad pattern", () =>
      createServiceClient(trelloDescriptor, {
        connection: { name: "bad", fields: { apiKey: M.trelloRevokedToken.value, token: M.trelloToken.value } },
      }),
    );
    await capture.run("client not https", () =>
      createServiceClient(marketoDescriptor, {
        connection: {
          name: "m",
          fields: { ...marketoFields, endpoint: `http://u:${M.userinfoPassword.value}@123-ABC-456.mktorest.com` },
        },
      }),
    );
    // A store others can read is refused; a broken file is not quoted.
    await chmod(file, 0o644);
    await capture.run("store world-readable", () => store.list());
    await chmod(file, 0o600);
    const broken = join(storeDir, "broken.json");
    await writeFile(
      broken,
      `{"version":1,"connections":{"trello":{"work":{"fields":{"token":"${M.trelloToken.value}"`,
      { mode: 0o600 },
    );
    await capture.run("store broken json", () => new FileConnectionStore(broken).list());
    await rm(broken);
    expectNoLeaks();
  });

  it("webhooks: forged, oversized and malformed deliveries to the receiver; the mock's signed deliveries end to end", async () => {
    const callbackUrl = "https://hooks.example.com/trello";
    const delivered: unknown[] = [];
    const receiver = createWebhookReceiver({
      secret: M.trelloWebhookSecret.value,
      callbackUrl,
      delivery: trelloTriggers.delivery,
      onDelivery: (p) => void delivered.push(p),
      maxBodyBytes: 4096,
    });
    capture.add("receiver object", receiver);
    const body = JSON.stringify({
      action: {
        id: "6100000000000000000000a1",
        type: "createCard",
        data: { board: { id: BOARD }, card: { id: "c1" } },
      },
      model: { id: BOARD },
    });
    const sign = (secret: string, text: string) => signPayload(secret, trelloTriggers.delivery, text, callbackUrl);
    const header = trelloTriggers.delivery.signature.header.toLowerCase();
    const cases: Array<[string, Record<string, string>, string]> = [
      ["no signature", {}, body],
      ["forged signature", { [header]: "forged" }, body],
      ["signed with another secret", { [header]: sign(M.trelloRevokedToken.value, body) }, body],
      ["the secret as signature", { [header]: M.trelloWebhookSecret.value }, body],
      [
        "signed for another callback",
        { [header]: signPayload(M.trelloWebhookSecret.value, trelloTriggers.delivery, body, "https://evil.example/") },
        body,
      ],
      ["oversized", { [header]: sign(M.trelloWebhookSecret.value, "x".repeat(5000)) }, "x".repeat(5000)],
      ["malformed JSON", { [header]: sign(M.trelloWebhookSecret.value, "{not json") }, "{not json"],
      ["valid", { [header]: sign(M.trelloWebhookSecret.value, body) }, body],
      ["duplicate", { [header]: sign(M.trelloWebhookSecret.value, body) }, body],
    ];
    for (const [name, headers, text] of cases) {
      await capture.run(`receiver ${name}`, () =>
        receiver.handle({ method: "POST", headers, body: Buffer.from(text) }),
      );
    }
    expect(receiver.stats).toMatchObject({ accepted: 1, duplicates: 1, rejectedSize: 1, rejectedMalformed: 1 });
    expect(receiver.stats.rejectedSignature).toBe(5);
    capture.add("receiver stats", receiver.stats);
    capture.add("receiver deliveries", delivered);
    await capture.run("receiver without secret", () =>
      createWebhookReceiver({
        secret: "",
        callbackUrl,
        delivery: trelloTriggers.delivery,
        onDelivery: () => undefined,
      }),
    );
    await capture.run("receiver bad callback", () =>
      createWebhookReceiver({
        secret: M.trelloWebhookSecret.value,
        callbackUrl: `ftp://${M.trelloWebhookSecret.value}`,
        delivery: trelloTriggers.delivery,
        onDelivery: () => undefined,
      }),
    );

    // End to end: the Trello mock (application secret = marker) registers a webhook through the
    // token's own /1/tokens/{token}/webhooks route, then signs deliveries the receiver verifies.
    const { url } = await mockWithProxy("trello", {
      auth: { credentials: trelloCredentials },
      webhooks: { secret: M.trelloWebhookSecret.value },
    });
    const events: unknown[] = [];
    const newCards = { trigger: "trello_new_card", connection: "work", scope: { board: [BOARD] } };
    const router = createTriggerRouter(trelloTriggers, [newCards]);
    let hook!: ReturnType<typeof createWebhookReceiver>;
    const server: Server = createServer((req, res) => hook.nodeHandler(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trello/hook`;
    hook = createWebhookReceiver({
      secret: M.trelloWebhookSecret.value,
      callbackUrl: hookUrl,
      delivery: trelloTriggers.delivery,
      onDelivery: (p) => void events.push(...router.route(p)),
    });
    const client = createServiceClient(
      trelloDescriptor,
      options("trello webhook e2e", trelloDescriptor, trelloCredentials, url),
    );
    const call = (id: string, init: object) => client.call(id, init);
    const registration = await capture.run("ensureWebhook", () =>
      ensureWebhook(trelloTriggers.delivery, call, {
        modelId: BOARD,
        callbackUrl: hookUrl,
        connectionFields: trelloCredentials,
      }),
    );
    expect(registration.ok).toBe(true);
    await capture.run("ensureWebhook again", () =>
      ensureWebhook(trelloTriggers.delivery, call, {
        modelId: BOARD,
        callbackUrl: hookUrl,
        connectionFields: trelloCredentials,
      }),
    );
    await capture.run("ensureWebhook without token", () =>
      ensureWebhook(trelloTriggers.delivery, call, {
        modelId: BOARD,
        callbackUrl: hookUrl,
        connectionFields: { apiKey: M.trelloApiKey.value },
      }),
    );
    await client.call("createCard", { body: { idList: LIST, name: "Hooked" } });
    for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events.length).toBeGreaterThan(0);
    capture.add("trigger events", events);
    capture.add("receiver e2e stats", hook.stats);
    if (registration.ok)
      await capture.run("removeWebhook", () => removeWebhook(trelloTriggers.delivery, call, registration.value.id));
    await capture.run("removeWebhook gone", () =>
      removeWebhook(trelloTriggers.delivery, call, "6200000000000000000000ff"),
    );
    expectNoLeaks();
  });
});

describe("secret-leak scan: the CLI", () => {
  let plainFile: string;
  let revokedFile: string;
  let storeFile: string;
  let trelloUrl: string;
  let worldnewsUrl: string;
  let marketoUrl: string;
  let csUrl: string;

  beforeAll(async () => {
    trelloUrl = (await mockWithProxy("trello", { auth: { credentials: trelloCredentials } })).url;
    worldnewsUrl = (await mockWithProxy("worldnews", { auth: { credentials: { apiKey: M.worldnewsApiKey.value } } }))
      .url;
    marketoUrl = (
      await mockWithProxy("marketo", {
        auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
      })
    ).url;
    csUrl = (await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } })).url;
    const cliDir = join(dir, "cli");
    await mkdir(cliDir, { recursive: true });
    plainFile = join(cliDir, "plain.json");
    await writeFile(
      plainFile,
      JSON.stringify({
        work: { service: "trello", fields: trelloCredentials },
        news: { service: "worldnews", fields: { apiKey: M.worldnewsApiKey.value } },
        mkto: { service: "marketo", fields: marketoFields },
      }),
      { mode: 0o600 },
    );
    storeFiles.push(plainFile);
    revokedFile = join(cliDir, "revoked.json");
    storeFiles.push(revokedFile);
    await writeFile(
      revokedFile,
      JSON.stringify({
        work: { service: "trello", fields: { ...trelloCredentials, token: M.trelloRevokedToken.value } },
        news: { service: "worldnews", fields: { apiKey: M.worldnewsWrongKey.value } },
        mkto: { service: "marketo", fields: { ...marketoFields, clientSecret: M.marketoWrongSecret.value } },
      }),
      { mode: 0o600 },
    );
    storeFile = join(cliDir, "store.json");
    storeFiles.push(storeFile);
    await new FileConnectionStore(storeFile).put(contentsnareDescriptor, {
      name: "snare",
      fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
    });
  });

  /** Records a CLI run (both streams). */
  function record(source: string, r: { stdout: string; stderr: string; code: number | null }) {
    capture.add(`${source} stdout`, r.stdout);
    capture.add(`${source} stderr`, r.stderr);
    return r;
  }

  it("in process: calls that succeed and fail, hostile --base-url, the guard, auth trello-url, webhook serve usage errors", async () => {
    const closed = await closedPort();
    const runs: Array<[string, string[], number]> = [
      [
        "call trello ok",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          plainFile,
          "--base-url",
          trelloUrl,
        ],
        0,
      ],
      [
        "call worldnews ok",
        [
          "call",
          "worldnews_search_news",
          "--input",
          JSON.stringify({ text: "leak scan" }),
          "--connections",
          plainFile,
          "--base-url",
          worldnewsUrl,
        ],
        0,
      ],
      [
        "call marketo ok",
        [
          "call",
          "marketo_get_leads",
          "--input",
          JSON.stringify({ filterType: "email", filterValues: ["ada@example.com"] }),
          "--connections",
          plainFile,
          "--base-url",
          marketoUrl,
        ],
        0,
      ],
      [
        "call trello revoked",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          revokedFile,
          "--base-url",
          trelloUrl,
        ],
        1,
      ],
      [
        "call worldnews wrong key",
        [
          "call",
          "worldnews_search_news",
          "--input",
          JSON.stringify({ text: "leak scan" }),
          "--connections",
          revokedFile,
          "--base-url",
          worldnewsUrl,
        ],
        1,
      ],
      [
        "call marketo wrong secret",
        [
          "call",
          "marketo_get_leads",
          "--input",
          JSON.stringify({ filterType: "email", filterValues: ["x@example.com"] }),
          "--connections",
          revokedFile,
          "--base-url",
          marketoUrl,
        ],
        1,
      ],
      [
        "call closed port",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          plainFile,
          "--base-url",
          `http://127.0.0.1:${closed}`,
        ],
        1,
      ],
      [
        "call userinfo base",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          plainFile,
          "--base-url",
          `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
        ],
        -1,
      ],
      [
        "call marketo userinfo base",
        [
          "call",
          "marketo_get_leads",
          "--input",
          JSON.stringify({ filterType: "email", filterValues: ["ada@example.com"] }),
          "--connections",
          plainFile,
          "--base-url",
          `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
        ],
        -1,
      ],
      [
        "call ftp base",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          plainFile,
          "--base-url",
          `ftp://u:${M.userinfoPassword.value}@127.0.0.1`,
        ],
        2,
      ],
      [
        "call guard",
        [
          "call",
          "trello_api_call",
          "--input",
          JSON.stringify({ method: "GET", endpoint: `https://evil.example/?token=${M.trelloToken.value}` }),
          "--connections",
          plainFile,
          "--base-url",
          trelloUrl,
        ],
        1,
      ],
      [
        "call reserved query",
        [
          "call",
          "trello_api_call",
          "--input",
          JSON.stringify({
            method: "GET",
            endpoint: "/1/members/me",
            query_parameters: { token: M.trelloToken.value },
          }),
          "--connections",
          plainFile,
          "--base-url",
          trelloUrl,
        ],
        1,
      ],
      [
        "call invalid input",
        [
          "call",
          "trello_get_card",
          "--input",
          JSON.stringify({ id: 5, key: M.trelloApiKey.value }),
          "--connections",
          plainFile,
          "--base-url",
          trelloUrl,
        ],
        1,
      ],
      [
        "call contentsnare store renewal",
        ["call", "contentsnare_get_me", "--input", "{}", "--connections", storeFile, "--base-url", csUrl],
        0,
      ],
      [
        "call unknown connection",
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--connections",
          plainFile,
          "--connection",
          "nope",
        ],
        2,
      ],
      ["auth missing app name", ["auth", "trello-url", "--key", M.trelloApiKey.value], 2],
      ["auth key without flag", ["auth", "trello-url", "--app-name", "Leak Scan", M.trelloApiKey.value], 2],
      ["auth key as flag value", ["auth", "trello-url", "--app-name", "--key", M.trelloApiKey.value], 2],
      ["webhook serve no callback", ["webhook", "serve", "--port", "0", "--secret", M.trelloWebhookSecret.value], 2],
      [
        "webhook serve bad port",
        [
          "webhook",
          "serve",
          "--port",
          "x",
          "--secret",
          M.trelloWebhookSecret.value,
          "--callback-url",
          "https://h.example.com/t",
        ],
        2,
      ],
      [
        "webhook serve bad callback",
        [
          "webhook",
          "serve",
          "--port",
          "0",
          "--secret",
          M.trelloWebhookSecret.value,
          "--callback-url",
          `ftp://${M.trelloWebhookSecret.value}`,
          "--host",
          "127.0.0.1",
        ],
        2,
      ],
      [
        "webhook serve secret without flag",
        ["webhook", "serve", "--port", "0", "--callback-url", "https://h.example.com/t", M.trelloWebhookSecret.value],
        2,
      ],
    ];
    for (const [name, argv, code] of runs) {
      const r = record(`cli ${name}`, await runCli(...argv));
      if (code >= 0) expect(r.code, `${name}: ${mask(r.stderr || r.stdout, needles()).slice(0, 400)}`).toBe(code);
      else expect(r.code, name).not.toBe(0);
    }
    // The store took the rotated tokens and is still 0600.
    expect((await stat(storeFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(storeFile, "utf8")).connections.contentsnare.snare.fields.refreshToken).not.toBe(
      M.contentsnareRefreshToken.value,
    );

    // auth trello-url prints the key in the authorize address (its purpose), and nowhere else.
    const ok = await runCli("auth", "trello-url", "--key", M.trelloApiKey.value, "--app-name", "Leak Scan");
    expect(ok.code).toBe(0);
    const authorize = new URL(ok.stdout.trim());
    expect(authorize.searchParams.get("key")).toBe(M.trelloApiKey.value);
    authorize.searchParams.delete("key");
    record("cli auth trello-url ok (key parameter removed)", { ...ok, stdout: authorize.toString() });
    expectNoLeaks();
  });

  it("as a real process: call, store renewal, hostile --base-url, auth trello-url, webhook serve with forged and signed deliveries", async () => {
    const storeCopy = join(dir, "cli", "store-process.json");
    storeFiles.push(storeCopy);
    await new FileConnectionStore(storeCopy).put(contentsnareDescriptor, {
      name: "snare",
      fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
    });
    // The store of the in-process run rotated the mock's refresh token: start the mock's state over.
    const csProcess = await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } });
    const closed = await closedPort();
    const env = { STEPFORGE_CONNECTIONS: plainFile };
    const callbackUrl = "https://hooks.example.com/trello";
    const serve = cliProcess([
      "webhook",
      "serve",
      "--port",
      "0",
      "--secret",
      M.trelloWebhookSecret.value,
      "--callback-url",
      callbackUrl,
      "--scope",
      `board=${BOARD}`,
      "--host",
      "127.0.0.1",
    ]);
    let serveOut = "";
    let serveErr = "";
    serve.stdout!.on("data", (d: Buffer) => (serveOut += d.toString()));
    serve.stderr!.on("data", (d: Buffer) => (serveErr += d.toString()));
    const served = new Promise<number | null>((resolve) => serve.once("close", resolve));
    closers.push(async () => {
      if (serve.exitCode === null) serve.kill("SIGKILL");
    });

    const [ok, renewal, revoked, hostile, closedRun, authOk, authBad] = await Promise.all([
      runCliProcess(
        ["call", "trello_get_board", "--input", JSON.stringify({ id: BOARD }), "--base-url", trelloUrl],
        env,
      ),
      runCliProcess([
        "call",
        "contentsnare_get_me",
        "--input",
        "{}",
        "--connections",
        storeCopy,
        "--base-url",
        csProcess.url,
      ]),
      runCliProcess([
        "call",
        "marketo_get_leads",
        "--input",
        JSON.stringify({ filterType: "email", filterValues: ["x@example.com"] }),
        "--connections",
        revokedFile,
        "--base-url",
        marketoUrl,
      ]),
      runCliProcess(
        [
          "call",
          "trello_get_board",
          "--input",
          JSON.stringify({ id: BOARD }),
          "--base-url",
          `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
        ],
        env,
      ),
      runCliProcess(
        [
          "call",
          "worldnews_search_news",
          "--input",
          JSON.stringify({ text: "leak scan" }),
          "--base-url",
          `http://127.0.0.1:${closed}`,
        ],
        env,
      ),
      runCliProcess(["auth", "trello-url", "--key", M.trelloApiKey.value, "--app-name", "Leak Scan"]),
      runCliProcess(["auth", "trello-url", "--app-name", "Leak Scan", M.trelloApiKey.value]),
    ]);
    expect(ok.code, mask(ok.stderr, needles())).toBe(0);
    expect(renewal.code, mask(renewal.stderr + renewal.stdout, needles())).toBe(0);
    expect(revoked.code).toBe(1);
    expect(hostile.code).not.toBe(0);
    expect(closedRun.code).toBe(1);
    expect(authBad.code).toBe(2);
    for (const [name, r] of Object.entries({ ok, renewal, revoked, hostile, closedRun, authBad }))
      record(`process ${name}`, r);
    expect((await stat(storeCopy)).mode & 0o777).toBe(0o600);
    expect(authOk.code).toBe(0);
    const authorize = new URL(authOk.stdout.trim());
    expect(authorize.searchParams.get("key")).toBe(M.trelloApiKey.value);
    authorize.searchParams.delete("key");
    record("process auth ok (key parameter removed)", { ...authOk, stdout: authorize.toString() });

    // webhook serve: a forged delivery, one signed with the wrong secret, one signed correctly.
    const listening = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`webhook serve did not start: ${mask(serveErr, needles())}`)),
        15_000,
      );
      const look = () => {
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serveErr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      serve.stderr!.on("data", look);
      look();
    });
    const body = JSON.stringify({
      action: {
        id: "6100000000000000000000b1",
        type: "createCard",
        date: "2026-11-21T09:00:00.000Z",
        idMemberCreator: "5a0000000000000000000001",
        data: { board: { id: BOARD, name: "Roadmap" }, card: { id: "c9", name: "Signed" }, list: { id: LIST } },
        memberCreator: { id: "5a0000000000000000000001", fullName: "Ada" },
      },
      model: { id: BOARD, name: "Roadmap" },
      webhook: { id: "6200000000000000000000aa", idModel: BOARD, callbackURL: callbackUrl, active: true },
    });
    const header = trelloTriggers.delivery.signature.header;
    const post = async (name: string, signature: string | undefined) => {
      const r = await fetch(listening, { method: "POST", body, headers: signature ? { [header]: signature } : {} });
      capture.add(`webhook serve ${name} answer`, `${r.status} ${await r.text()} ${JSON.stringify([...r.headers])}`);
      return r.status;
    };
    expect(await post("unsigned", undefined)).toBe(401);
    expect(await post("forged", M.trelloWebhookSecret.value)).toBe(401);
    expect(
      await post("wrong secret", signPayload(M.trelloRevokedToken.value, trelloTriggers.delivery, body, callbackUrl)),
    ).toBe(401);
    expect(
      await post("signed", signPayload(M.trelloWebhookSecret.value, trelloTriggers.delivery, body, callbackUrl)),
    ).toBe(200);
    for (let i = 0; i < 100 && !serveOut.includes("\n"); i++) await new Promise((r) => setTimeout(r, 20));
    expect(serveOut).toContain("trello_new_card");
    serve.kill("SIGTERM");
    await served;
    record("process webhook serve", { code: serve.exitCode, stdout: serveOut, stderr: serveErr });
    expectNoLeaks();
  });
});

describe("secret-leak scan: process output and files", () => {
  it("nothing printed to the console, stdout or stderr during the flows carries a marker", () => {
    restoreOutput();
    restoreOutput = () => undefined;
    expectNoLeaks();
  });

  it("the flows produced every kind of hook event (so the scan saw them)", () => {
    const kinds = new Set(capture.events.map((e) => (e.type === "token" ? `token:${e.action}` : e.type)));
    for (const kind of [
      "request",
      "response",
      "retry",
      "throttle",
      "token:fetched",
      "token:refreshed",
      "token:rotated",
      "token:invalidated",
      "token:failed",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it("generated/, a freshly generated client, snapshot files and the files the flows wrote carry no marker; stores are 0600", async () => {
    const root = packageRoot();
    const gen = await generated;
    capture.add("generate process stdout", gen.stdout);
    capture.add("generate process stderr", gen.stderr);
    expect(gen.code, mask(gen.stderr, needles())).toBe(0);
    expectNoLeaks();

    const n = needles();
    const skip = new Set(["node_modules", ".git", "dist"]);
    const files = [
      ...filesUnder(join(root, "generated")),
      ...filesUnder(gen.out),
      // Snapshot files anywhere in the repository (vitest's __snapshots__ and *.snap).
      ...filesUnder(root, skip).filter((f) => /[\\/]__snapshots__[\\/]/.test(f) || f.endsWith(".snap")),
      // What the flows wrote, except the connection stores (credential stores by design).
      ...writtenDirs.flatMap((d) => filesUnder(d)).filter((f) => !f.startsWith(gen.out) && !storeFiles.includes(f)),
    ];
    expect(files.length).toBeGreaterThan(20);
    const leaks = scanFiles([...new Set(files)], n, root);
    expect(leaks, `secret markers in files:\n${describeLeaks(leaks)}`).toEqual([]);

    for (const file of storeFiles) {
      const info = await stat(file).catch(() => undefined);
      if (!info) continue;
      expect((info.mode & 0o777).toString(8), file).toBe("600");
      // No temporary files were left beside a store.
      const siblings = await readdir(join(file, ".."));
      expect(
        siblings.filter((s) => s.endsWith(".tmp")),
        file,
      ).toEqual([]);
    }
  });
});
