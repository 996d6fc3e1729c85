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
import { TrelloClient } from "../../generated/trello/client.js";
import { closeDefaultSharedState } from "../../runtime/client/shared-state.js";
import { importPeer, MissingPackageError } from "../../runtime/internal/package-bin.js";

const root = resolve(import.meta.dirname, "..", "..");
const HEAVY = /node_modules\/(zod|ioredis|@ioredis\/[^/]+|proper-lockfile|graceful-fs|@modelcontextprotocol\/sdk)\//;
/** The optional layers, loaded by their entries only (runtime/client/layers.ts). */
const LAYERS = new RegExp(
  "runtime/(state/(redis|redis-scripts|file|file-lock|fallback|config|shared)|limits/shared|" +
    "observe/(otel|metrics|budgets|response-check)|internal/package-bin)\\.ts$",
);

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
