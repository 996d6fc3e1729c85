/**
 * What an application that uses one generated client carries: its bundle holds neither zod nor the
 * runtime's optional peers (ioredis, proper-lockfile and graceful-fs, the MCP SDK), and the
 * declarations its compiler reads for the client do not reach zod's. The sizes themselves are in
 * bench/bundle.ts; this holds the line on what may be in the graph at all.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { ContentsnareClient } from "../../generated/contentsnare/client.js";
import { descriptor as contentsnare } from "../../generated/contentsnare/descriptor.js";
import "../../generated/contentsnare/mock.js";
import { MarketoClient } from "../../generated/marketo/client.js";
import { descriptor as marketo } from "../../generated/marketo/descriptor.js";
import "../../generated/marketo/mock.js";
import { TrelloClient } from "../../generated/trello/client.js";
import { descriptor as trello } from "../../generated/trello/descriptor.js";
import { createClient, iteratePages } from "../../runtime/client/client.js";
import { oauthCredentials } from "../../runtime/credentials/source.js";
import { closeDefaultSharedState } from "../../runtime/client/shared-state.js";
import type { ServiceDescriptor } from "../../runtime/index.js";
import { startMock } from "../../runtime/mock/index.js";
import { importPeer, MissingPackageError } from "../../runtime/internal/package-bin.js";

const root = resolve(import.meta.dirname, "..", "..");
const HEAVY = /node_modules\/(zod|ioredis|@ioredis\/[^/]+|proper-lockfile|graceful-fs|@modelcontextprotocol\/sdk)\//;
/** The optional layers, loaded by their entries only (runtime/client/layers.ts). */
const LAYERS = new RegExp(
  "runtime/(state/(redis|redis-scripts|file|file-lock|fallback|config|shared)|limits/shared|" +
    "observe/(otel|metrics|budgets|response-check)|internal/package-bin)\\.ts$",
);
/** The OAuth flows (token requests, the token cache and the in-memory store under it) and paging. */
const OAUTH = /runtime\/(credentials\/(source|tokens)|state\/(memory|semantics))\.ts$/;
const PAGING = /runtime\/client\/paging\.ts$/;
/** Declared parameter styles, non-JSON bodies and operation servers. */
const WIRE = /runtime\/client\/wire\.ts$/;
/** Daily, monthly and header quotas. */
const QUOTAS = /runtime\/limits\/quotas\.ts$/;

/** The files each generated client's bundle carries code of (esbuild, Node ESM, one output per client). */
async function bundledFiles(services: string[]): Promise<Record<string, string[]>> {
  const entryPoints = services.map((id) => join(root, "generated", id, "client.ts"));
  const result = await build({
    entryPoints,
    bundle: true,
    platform: "node",
    format: "esm",
    outdir: join(root, "test", ".tmp", "weight"),
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const files: Record<string, string[]> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    const service = services.find((id) => output.entryPoint === `generated/${id}/client.ts`);
    if (!service) continue;
    files[service] = Object.keys(output.inputs).filter((f) => output.inputs[f]!.bytesInOutput > 0);
  }
  return files;
}

/** Limits off (the mocks count calls), no retries: one call, one request. */
function mockOptions(descriptor: ServiceDescriptor, url: string, fields: Record<string, string>) {
  const limits = Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }]));
  return { connection: { name: "w", fields }, baseUrl: url, limits, retry: { attempts: 0 } };
}

describe("the Trello client's weight", () => {
  it("its bundle (esbuild, Node ESM) holds no zod, ioredis, proper-lockfile or MCP SDK", async () => {
    const client = JSON.stringify(join(root, "generated", "trello", "index.js"));
    const result = await build({
      stdin: {
        contents: `import { TrelloClient } from ${client};\nconsole.log(TrelloClient);\n`,
        resolveDir: root,
        loader: "ts",
      },
      bundle: true,
      platform: "node",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    // What ends up in the output (an import tree-shaken away costs nothing).
    const output = Object.values(result.metafile.outputs)[0]!.inputs;
    const inputs = Object.keys(output).filter((f) => output[f]!.bytesInOutput > 0);
    expect(inputs.some((f) => f.includes("runtime/client/"))).toBe(true);
    const heavy = [...new Set(inputs.map((f) => HEAVY.exec(f)?.[1]).filter(Boolean))];
    expect(heavy).toEqual([]);
    // Nor the code of the shared-state and observability layers: an application imports them.
    expect(inputs.filter((f) => LAYERS.test(f))).toEqual([]);
  });

  it("carries the OAuth flows, paging and declared wire formats only in clients whose spec declares them", async () => {
    const files = await bundledFiles(["trello", "marketo", "contentsnare", "worldnews"]);
    // Trello: an api key and token in the query, no paged operation, JSON bodies in the default
    // styles, windows only (no daily, monthly or header quota).
    expect(files.trello!.filter((f) => OAUTH.test(f) || PAGING.test(f) || WIRE.test(f) || QUOTAS.test(f))).toEqual([]);
    // World News counts its daily points from response headers; Marketo declares a daily quota.
    expect([files.worldnews!, files.marketo!].map((list) => list.some((f) => QUOTAS.test(f)))).toEqual([true, true]);
    // Marketo declares explode:false query arrays and form bodies; Content Snare none of that.
    expect([files.marketo!.some((f) => WIRE.test(f)), files.contentsnare!.some((f) => WIRE.test(f))]).toEqual([
      true,
      false,
    ]);
    expect(files.trello!.some((f) => f.endsWith("runtime/credentials/placing.ts"))).toBe(true);
    // Marketo (client credentials) and Content Snare (authorization code) page, and renew tokens.
    for (const service of ["marketo", "contentsnare"]) {
      const found = files[service]!.filter((f) => OAUTH.test(f) || PAGING.test(f)).map((f) =>
        f.replace(/^.*runtime\//, ""),
      );
      expect(found.sort()).toEqual([
        "client/paging.ts",
        "credentials/source.ts",
        "credentials/tokens.ts",
        "state/memory.ts",
        "state/semantics.ts",
      ]);
    }
  });

  it("OAuth clients on the process's own state fetch, cache and renew their tokens", async () => {
    await closeDefaultSharedState();
    let now = Date.UTC(2026, 0, 15, 12);
    const clock = () => now;
    const cc = await startMock("marketo", { clock, auth: { tokenLifetimeSeconds: 3600 } });
    const ac = await startMock("contentsnare", { clock, auth: { tokenLifetimeSeconds: 60 } });
    try {
      const fields = {
        endpoint: "https://123-ABC-456.mktorest.com",
        clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
        clientSecret: "mock-client-secret-0123456789abcdef",
      };
      const leads = new MarketoClient(mockOptions(marketo, cc.url, fields));
      await leads.getLists({});
      await leads.getLists({});
      expect(cc.counters().tokensIssued).toBe(1);
      // The mock's token expires (602 in an HTTP 200): the client renews it once and repeats the call.
      now += 3_600_000;
      await leads.getLists({});
      expect([cc.counters().tokensIssued, cc.counters().byOperation.getLists]).toEqual([2, 4]);

      const rotated: Array<Record<string, string>> = [];
      const snare = new ContentsnareClient({
        ...mockOptions(contentsnare, ac.url, {
          clientId: "mock-client-id",
          clientSecret: "mock-client-secret",
          accessToken: "mock-access-token",
          refreshToken: "mock-refresh-token",
        }),
        onTokens: (_name, tokens) => void rotated.push(tokens),
      });
      await snare.listClients({});
      now += 61_000;
      // The stored access token expired: a 401, one refresh (the refresh token rotates), the call again.
      await snare.listClients({});
      expect(rotated).toHaveLength(1);
      expect(rotated[0]!.refreshToken).not.toBe("mock-refresh-token");
    } finally {
      await Promise.all([cc.close(), ac.close()]);
      await closeDefaultSharedState();
    }
  });

  it("its descriptor ships no texts of limits or error rules, and names each operation once", () => {
    const source = readFileSync(join(root, "generated", "trello", "descriptor.ts"), "utf8");
    expect(source).not.toMatch(/operationId:/);
    const texts = [...trello.limits, ...Object.values(trello.errors.codes), ...Object.values(trello.errors.statuses)]
      .map((item) => item.description)
      .filter((text) => text !== undefined);
    expect(texts).toEqual([]);
    // The ids the runtime names calls by (errors, events) come from the keys when the module loads.
    const named = Object.entries(trello.operations).filter(([id, op]) => op.operationId !== id);
    expect([Object.keys(trello.operations).length > 20, named]).toEqual([true, []]);
  });

  it("a client built without a part its spec needs fails naming it", () => {
    const fields = { clientId: "i", clientSecret: "s", endpoint: "https://123-ABC-456.mktorest.com" };
    expect(() => createClient(marketo, { connection: { name: "w", fields } })).toThrow(
      "marketo authenticates with oauth2-client-credentials, but this client was built without the OAuth flows; " +
        "pass { credentials: oauthCredentials } to createClient, or use createServiceClient",
    );
    expect(() =>
      createClient(
        marketo,
        { connection: { name: "w", fields } },
        { credentials: oauthCredentials, paging: iteratePages },
      ),
    ).toThrow(
      joinedPattern([
        /^marketo: operation "\w+" declares (parameter styles|a [\w/-]+ body), /,
        /but this client was built without the declared wire formats; /,
        /pass \{ wire: declaredWire \} to createClient, or use createServiceClient$/,
      ]),
    );
    const apiKey = { name: "w", fields: { apiKey: "0".repeat(32), token: "t" } };
    const quota = { kind: "daily-quota", id: "day", applies: "all", per: "connection", rejection: {} } as const;
    const daily: ServiceDescriptor = { ...trello, limits: [{ ...quota, requests: 10, resetTimeZone: "UTC" }] };
    expect(() => createClient(daily, { connection: apiKey })).toThrow(
      "trello declares a daily-quota limit, but this client was built without the quota part; " +
        "pass { quotas: quotaCounting } to createClient, or use createServiceClient",
    );
    const paged: ServiceDescriptor = {
      ...trello,
      operations: {
        ...trello.operations,
        getCard: { ...trello.operations.getCard!, paging: marketo.operations.getLists!.paging },
      },
    };
    const client = createClient(paged, { connection: apiKey });
    expect(() => client.pages("getCard", {})).toThrow(
      'trello: operation "getCard" pages, but this client was built without paging; ' +
        "pass { paging: iteratePages } to createClient, or use createServiceClient",
    );
    expect(() => new TrelloClient({ connection: apiKey }).core.pages("getCard", {})).toThrow("declares no paging");
  });

  it("a setting whose layer was not imported fails at once, naming the import", async () => {
    const connection = { name: "w", fields: { apiKey: "0".repeat(32), token: "t" } };
    let sent = 0;
    const fetch = async () => {
      sent++;
      return Response.json({ id: "c1" });
    };
    const saved = { ...process.env };
    try {
      // Closed port and a short wait: without the check the call would try that Redis and fail otherwise.
      process.env.STEPFORGE_REDIS_URL = "redis://127.0.0.1:1";
      process.env.STEPFORGE_STATE_WAIT_MS = "200";
      await closeDefaultSharedState();
      const trello = new TrelloClient({ connection, fetch });
      await expect(trello.getCard({ params: { path: { id: "c1" } } })).rejects.toThrow(
        "STEPFORGE_REDIS_URL is set, but this program did not load stepforge/runtime/state: " +
          'add `import "stepforge/runtime/state";` once at its start ' +
          "(or unset STEPFORGE_REDIS_URL to keep limits and tokens in this process)",
      );
      expect(sent).toBe(0);
      delete process.env.STEPFORGE_REDIS_URL;
      await closeDefaultSharedState();
      await expect(trello.getCard({ params: { path: { id: "c1" } } })).resolves.toEqual({ id: "c1" });
      expect(() => new TrelloClient({ connection, fetch, tracing: true })).toThrow(
        "trello: tracing is on, but this program did not load stepforge/runtime/observe: " +
          'add `import "stepforge/runtime/observe";`',
      );
    } finally {
      process.env = saved;
      await closeDefaultSharedState();
    }
  });

  it("the declarations a client's compile reads (generated client → runtime index) import no zod", () => {
    // Follows every import, type-only ones included: tsc reads a declaration file for each.
    const seen = new Set<string>();
    const reachesZod: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      // Comments are left out: a doc comment may show an import as an example.
      const source = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
      for (const m of source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        const spec = m[1]!;
        if (spec === "zod" || spec.startsWith("zod/")) reachesZod.push(file.slice(root.length + 1));
        if (spec.startsWith(".")) visit(join(dirname(file), spec.replace(/\.js$/, ".ts")));
      }
    };
    visit(join(root, "generated", "trello", "client.ts"));
    visit(join(root, "generated", "trello", "descriptor.ts"));
    expect(seen.size).toBeGreaterThan(20);
    expect(reachesZod).toEqual([]);
  });

  it("an optional peer that is not installed: one sentence naming the feature and `npm install`", async () => {
    const missing = importPeer("@example/not-installed-peer/sub.js", "a demo feature");
    await expect(missing).rejects.toBeInstanceOf(MissingPackageError);
    await expect(missing).rejects.toThrow(
      new RegExp(
        "^a demo feature needs @example/not-installed-peer, which is not installed; " +
          "add it to your project: npm install @example/not-installed-peer@latest$",
      ),
    );
    // An installed peer loads as itself.
    const yaml = await importPeer<typeof import("yaml")>("yaml", "a demo feature");
    expect(yaml.parse("a: 1")).toEqual({ a: 1 });
  });
});
