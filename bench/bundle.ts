/**
 * Package weight (`npx tsx bench/bundle.ts`): the bundled, minified size of what an application
 * ships when it imports stepforge — one service's client, one service with its tool steps and
 * triggers, all four clients, everything — side by side with what it would ship instead:
 * openapi-fetch with openapi-typescript types (types weigh nothing at run time) and the
 * @hey-api/openapi-ts SDK (fetch client, with and without its zod schemas) for the same spec.
 *
 * esbuild bundles each entry for Node (ESM, minified, tree-shaken); sizes are bytes on disk and
 * gzip-compressed. Deterministic: one build per row is enough.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { machineLine, table } from "./lib/report.js";

const root = resolve(import.meta.dirname, "..");
const work = join(root, "bench", ".cache", "bundle");

interface Entry {
  label: string;
  /** What the application writes; module paths are relative to `work`. */
  source: string;
}

/** The HeyAPI SDK for one spec, generated the way its docs show (fetch client, SDK, optional zod). */
function heyApi(spec: string, out: string, withZod: boolean): void {
  const plugins = ["@hey-api/typescript", "@hey-api/sdk", ...(withZod ? ["zod"] : [])];
  const cli = join(root, "node_modules", "@hey-api", "openapi-ts", "bin", "run.js");
  const run = spawnSync(
    process.execPath,
    [cli, "-i", spec, "-o", out, "-c", "@hey-api/client-fetch", "-p", ...plugins, "--no-log-file", "-s"],
    { encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`HeyAPI failed on ${spec}:\n${run.stderr}`);
}

async function sizeOf(entry: Entry): Promise<{ bytes: number; gzip: number }> {
  const file = join(work, `${entry.label.replace(/[^a-z0-9]+/gi, "-")}.ts`);
  writeFileSync(file, entry.source);
  const result = await build({
    entryPoints: [file],
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  return { bytes: code.byteLength, gzip: gzipSync(code).byteLength };
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const trelloSpec = join(root, "specs", "trello.yaml");
heyApi(trelloSpec, join(work, "hey-trello"), false);
heyApi(trelloSpec, join(work, "hey-trello-zod"), true);

const generated = (path: string) => JSON.stringify(join(root, "generated", path));
// Every entry uses what it imports (a call that cannot be tree-shaken away), as an application would.
const entries: Entry[] = [
  {
    label: "stepforge: Trello client",
    source:
      `import { TrelloClient } from ${generated("trello/index.js")};\nconsole.log(new ` +
      `TrelloClient({ connection: { name: "a", fields: {} } }).getCard);\n`,
  },
  {
    label: "stepforge: Trello client + tool steps + triggers",
    source: `import * as trello from ${generated("trello/index.js")};\nconsole.log(trello);\n`,
  },
  {
    label: "stepforge: all four clients",
    // One import per service module (stepforge/trello, ...): the root index's namespaces
    // (`stepforge`'s `trello.TrelloClient`) keep every module of every service in the bundle.
    source: [
      "contentsnare/index.js:ContentsnareClient",
      "marketo/index.js:MarketoClient",
      "trello/index.js:TrelloClient",
      "worldnews/index.js:WorldnewsClient",
    ]
      .map((spec) => spec.split(":"))
      .map(([path, name]) => `import { ${name} } from ${generated(path!)};\nconsole.log(${name});\n`)
      .join(""),
  },
  {
    label: "stepforge: all four, everything (root index)",
    source: `import * as all from ${generated("index.js")};\nconsole.log(all);\n`,
  },
  {
    label: "openapi-fetch + openapi-typescript types",
    source:
      `import createClient from "openapi-fetch";\nimport type { paths } from ` +
      `${generated("trello/types.js")};\nconsole.log(createClient<paths>({ baseUrl: ` +
      `"https://api.trello.com" }).GET);\n`,
  },
  { label: "HeyAPI SDK (fetch client)", source: `import * as sdk from "./hey-trello/index.js";\nconsole.log(sdk);\n` },
  {
    label: "HeyAPI SDK + zod schemas",
    source:
      `import * as sdk from "./hey-trello-zod/index.js";\nimport * as schemas from ` +
      `"./hey-trello-zod/zod.gen.js";\nconsole.log(sdk, schemas);\n`,
  },
];

const sizes = [];
for (const entry of entries) sizes.push({ label: entry.label, ...(await sizeOf(entry)) });
const base = sizes[0]!;
const kb = (n: number) => (n / 1024).toFixed(1);
console.log(`stepforge package weight — ${machineLine()}`);
console.log("\nbundled and minified with esbuild (ESM, platform node), Trello where a single service is meant");
console.log(
  table(
    ["what the application imports", "minified KB", "gzip KB", "vs stepforge Trello client"],
    sizes.map((s) => [s.label, kb(s.bytes), kb(s.gzip), `${(s.bytes / base.bytes).toFixed(2)}×`]),
  ),
);
