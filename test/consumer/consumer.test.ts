/**
 * stepforge as another project sees it: the project is packed (`npm pack`, which builds in
 * prepack), the tarball is installed into a temporary project outside the repository with its
 * own `npm install` (registry only; nothing from the repository's node_modules), and that project
 *
 * - compiles a program under strict NodeNext and under moduleResolution bundler and runs it
 *   against the behavioural mocks (typed calls, a tool step, a typed error, paging);
 * - runs the installed CLI: --version, --help, the behavioural mock, and one-sentence messages for
 *   the optional tools (Spectral, Prism, the generator's openapi-typescript and Handlebars);
 * - then, as a spec author, adds those tools and runs lint, generate --spec on a foreign spec
 *   with --package, compiles that output there, and starts a Prism mock.
 *
 * publint and @arethetypeswrong/cli check the tarball. Figures (tarball, install sizes, stage
 * times) are printed at the end. The npm cache is npm's own (already filled by the repository's
 * `npm ci` in CI), and --prefer-offline spares revalidation; the project is packed once for every
 * suite that installs it (test/helpers/tarball.ts).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { packedTarball, type Packed } from "../helpers/tarball.js";
import {
  BROKEN,
  CHECKOUT_PATHS,
  freePort,
  installSize,
  outsideEnv,
  run,
  runToFile,
  startUntil,
  stop,
  type Run,
} from "./helpers.js";
import { joinedPattern } from "../helpers/pattern.js";
import { stageTimes } from "../helpers/stage-times.js";

const root = packageRoot();
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const env = outsideEnv(root);
const work = mkdtempSync(join(tmpdir(), "stepforge-consumer-"));
const app = join(work, "app");
const author = join(work, "author");
const stepforge = join(app, "node_modules", ".bin", "stepforge");
const tsc = join(app, "node_modules", "typescript", "bin", "tsc");
const authorStepforge = join(author, "node_modules", ".bin", "stepforge");
// openapi-typescript's peer dependency: npm installs it for the spec author.
const authorTsc = join(author, "node_modules", "typescript", "bin", "tsc");
const npmInstall = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
const { times, timed } = stageTimes();
const figures: Record<string, unknown> = {};

let tarball = "";
let readmeSamples: string[] = [];
/** The spec author's install runs while the application's checks use the CPU. */
let authorInstalled: Promise<Run>;
let packed: Packed;

function expectClean(result: Run, label: string): void {
  expect(`${result.stdout}\n${result.stderr}`, label).not.toMatch(BROKEN);
}

beforeAll(async () => {
  packed = await timed("npm pack (prepack build; shared, 0 when cached)", () => packedTarball());
  tarball = packed.tarball;

  // A spec author: stepforge plus the optional tools for lint, mock --prism and generate.
  mkdirSync(author);
  const tools = Object.fromEntries(
    ["@stoplight/spectral-cli", "@stoplight/prism-cli", "openapi-typescript", "handlebars"].map((p) => [
      p,
      own.devDependencies[p]!,
    ]),
  );
  writeFileSync(join(author, "package.json"), manifest("consumer-author", { stepforge: `file:${tarball}` }, tools));
  authorInstalled = timed("npm install (spec author, in parallel)", () => run("npm", npmInstall, author, env));

  // An application: stepforge, and TypeScript to compile the program.
  mkdirSync(app);
  cpSync(join(root, "test", "consumer", "project"), app, { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    manifest(
      "consumer-app",
      { stepforge: `file:${tarball}` },
      { typescript: own.devDependencies.typescript!, "@types/node": own.devDependencies["@types/node"]! },
    ),
  );
  const install = await timed("npm install (application)", () => run("npm", npmInstall, app, env));
  expect(install.code, install.stderr).toBe(0);

  // The README's TypeScript samples, as the installed package ships them, join the program.
  const readme = readFileSync(join(app, "node_modules", "stepforge", "README.md"), "utf8");
  readmeSamples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  readmeSamples.forEach((code, i) => writeFileSync(join(app, "src", `readme-${i + 1}.ts`), code));
}, 300_000);

function manifest(name: string, dependencies: Record<string, string>, devDependencies: Record<string, string>): string {
  const fields = { name, version: "1.0.0", private: true, type: "module", dependencies, devDependencies };
  return `${JSON.stringify(fields, null, 2)}\n`;
}

afterAll(async () => {
  await authorInstalled?.catch(() => undefined);
  console.log(`consumer figures: ${JSON.stringify(figures)}\nconsumer stage times (s): ${JSON.stringify(times)}`);
  await rm(work, { recursive: true, force: true });
}, 180_000);

describe("the packed tarball", { timeout: 180_000 }, () => {
  it("carries the build, the bin and what generate, lint and the mocks read; not tests, benchmarks or CI", () => {
    const files = packed.files.map((f) => f.path);
    figures.tarball = {
      kB: Math.round(packed.size / 1024),
      unpackedKB: Math.round(packed.unpackedSize / 1024),
      files: packed.entryCount,
    };
    const needed = [
      "bin/stepforge.js",
      "dist/cli/main.js",
      "dist/cli/config/define.js",
      "dist/generated/trello/index.js",
      "dist/generated/trello/index.d.ts",
      "dist/generated/trello/mock.js",
      "dist/runtime/index.d.ts",
      "specs/trello.yaml",
      "templates/service-readme.md.hbs",
      ".spectral.yaml",
      "LICENSE",
      "README.md",
      "package.json",
    ];
    // The per-service READMEs the root README points to (generated/<service>/README.md), nothing else of generated/.
    needed.push(...["contentsnare", "marketo", "trello", "worldnews"].map((id) => `generated/${id}/README.md`));
    for (const path of needed) expect(files, path).toContain(path);
    const unshipped = joinedPattern([
      /^(test|bench|\.ci|scripts\/(?!build-package\.js)|generated\/(?!\w+\/README\.md$))/,
      /|^Makefile$|\.map$|^tsconfig/,
    ]);
    expect(files.filter((f) => unshipped.test(f))).toEqual([]);
  });

  it("publint finds nothing to report", async () => {
    const result = await run(join(root, "node_modules", ".bin", "publint"), ["run", tarball], work, env);
    figures.publint = result.stdout.trim().split("\n").at(-1);
    expect(result.stdout).toContain("All good!");
    expect(result.code).toBe(0);
  });

  it(
    "@arethetypeswrong/cli: only what an ES-module build implies (node16 CommonJS " +
      "resolves to ESM, no node10 resolution)",
    async () => {
      const attw = join(root, "node_modules", ".bin", "attw");
      const json = await runToFile(attw, [tarball, "--format", "json"], work, env, join(work, "attw.json"));
      const problems = (
        JSON.parse(json.stdout) as {
          analysis: { problems: { kind: string; resolutionKind?: string; entrypoint?: string }[] };
        }
      ).analysis.problems;
      const kinds = [...new Set(problems.map((p) => `${p.kind} (${p.resolutionKind})`))].sort();
      figures.attw = kinds;
      // What `attw --profile esm-only` ignores; anything else fails.
      expect(kinds.filter((k) => !/^(NoResolution \(node10\)|CJSResolvesToESM \(node16-cjs\))$/.test(k))).toEqual([]);
      expect(problems.length).toBeGreaterThan(0);
    },
  );
});

describe("an application that imports stepforge/trello", { timeout: 180_000 }, () => {
  it("installs the runtime's dependencies only: no Prism, Spectral, generator or compiler", async () => {
    const size = await installSize(app, env, true);
    figures.applicationInstall = { packages: size.packages, mb: size.mb };
    expect(size.names).toContain("stepforge");
    // npm lists the application's own TypeScript here once it also satisfies stepforge's optional
    // peer; what stepforge itself asks for is its manifest's dependencies.
    const tooling = /^(@stoplight|openapi-typescript$|handlebars$|typescript$|@redocly)/;
    expect(size.names.filter((n) => tooling.test(n) && n !== "typescript")).toEqual([]);
    const installed = JSON.parse(readFileSync(join(app, "node_modules", "stepforge", "package.json"), "utf8"));
    expect(Object.keys(installed.dependencies).filter((n) => tooling.test(n))).toEqual([]);
    // Redis state, file locks and MCP servers are optional peers: installed only by who uses them.
    expect(
      size.names.filter((n) => /^(ioredis|@ioredis\/|proper-lockfile$|graceful-fs$|@modelcontextprotocol\/)/.test(n)),
    ).toEqual([]);
    expect(size.packages).toBeLessThanOrEqual(30);
  });

  it("compiles under strict NodeNext (no skipLibCheck) and under moduleResolution bundler", async () => {
    const [nodenext, bundler] = await timed("tsc NodeNext + bundler (parallel)", () =>
      Promise.all([
        run(process.execPath, [tsc, "-p", "tsconfig.json", "--listFiles"], app, env),
        run(process.execPath, [tsc, "-p", "tsconfig.bundler.json"], app, env),
      ]),
    );
    // --listFiles prints the program's files, one absolute path a line; anything else is a diagnostic.
    const files = nodenext.stdout.split("\n").filter((line) => line.startsWith("/"));
    expect(nodenext.stdout.split("\n").filter((line) => line !== "" && !line.startsWith("/"))).toEqual([]);
    expect(nodenext.stderr).toBe("");
    expect(nodenext.code).toBe(0);
    // The clients', tool steps' and mocks' public declarations name neither zod nor openapi-fetch:
    // with skipLibCheck off their declaration files were most of an application's type-check.
    expect(files.filter((f) => /\/node_modules\/(zod|openapi-fetch|openapi-typescript-helpers)\//.test(f))).toEqual([]);
    figures.programFiles = files.length;
    expect(bundler.stdout + bundler.stderr).toBe("");
    expect(bundler.code).toBe(0);
  });

  it("the README's code samples compiled above, and those that need only the package run", async () => {
    expect(readmeSamples.length).toBeGreaterThanOrEqual(4);
    for (const [i, code] of readmeSamples.entries()) {
      if (code.includes("startPrism")) continue; // needs Prism, the spec author's tool: compiled, not run here
      const result = await run(process.execPath, [join(app, "dist", `readme-${i + 1}.js`)], app, env);
      expectClean(result, `README sample ${i + 1}`);
      expect(result.code, `README sample ${i + 1}: ${result.stderr}`).toBe(0);
    }
  });

  it("runs against the behavioural mocks: typed calls, a tool step, a typed error, paging", async () => {
    const result = await run(process.execPath, [join(app, "dist", "app.js")], app, env);
    expectClean(result, "app");
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.card.name).toBe("Installed from a tarball");
    expect(out.tool).toEqual({ ok: true, idList: out.tool.done, done: out.tool.done });
    expect(out.refused.kind).toBe("invalid_input");
    expect(out.refused.fields.map((f: { path: string }) => f.path).sort()).toEqual(["idList", "name"]);
    expect(out.authError).toBe("auth");
    expect(out.pages).toBe(2);
    expect(out.items).toBe(4);
  });

  it("the installed CLI: --version, --help, help COMMAND, and a behavioural mock", async () => {
    const version = await run(stepforge, ["--version"], app, env);
    expect(version).toEqual({ code: 0, stdout: `${own.version}\n`, stderr: "" });
    const help = await run(stepforge, ["--help"], app, env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("generate");
    const mockHelp = await run(stepforge, ["mock", "--help"], app, env);
    expect(mockHelp.code).toBe(0);
    expect(mockHelp.stdout).toContain("stepforge mock SERVICE|all");

    const port = await freePort();
    const { child } = await startUntil(
      stepforge,
      ["mock", "trello", "--port", String(port)],
      app,
      env,
      `trello mock http://127.0.0.1:${port}`,
      30_000,
    );
    try {
      const auth = "key=0123456789abcdef0123456789abcdef&token=ATTAmocktoken0123456789abcdef0123456789abcdef";
      const answer = await fetch(`http://127.0.0.1:${port}/1/members/me/boards?${auth}`);
      expect(answer.status).toBe(200);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it(
    "lint, mock --prism, generate, mcp and Redis state name the missing package and the " +
      "exact command, in one sentence, exit 1",
    async () => {
      const spec = join(app, "train-travel.json");
      cpSync(join(root, "node_modules", "@readme", "oas-examples", "3.1", "json", "train-travel.json"), spec);
      const cases: Array<[string[], RegExp]> = [
        [
          ["lint"],
          joinedPattern([
            /^stepforge lint: linting with Spectral needs @stoplight\/spectral-cli, which is not installed; /,
            /add it to your project: npm install -D @stoplight\/spectral-cli@\d+\.\d+\.\d+\n$/,
          ]),
        ],
        [
          ["mock", "trello", "--prism", "--port", "1"],
          joinedPattern([
            /^stepforge mock: a Prism contract mock needs @stoplight\/prism-cli, which is not installed; /,
            /add it to your project: npm install -D @stoplight\/prism-cli@\d+\.\d+\.\d+\n$/,
          ]),
        ],
        [
          ["generate", "--spec", spec, "--out", "gen"],
          joinedPattern([
            /^stepforge generate: code generation needs openapi-typescript and handlebars, which are not installed; /,
            /add them to your project: npm install -D openapi-typescript@\S+ handlebars@\S+\n$/,
          ]),
        ],
      ];
      for (const [args, message] of cases) {
        const result = await run(stepforge, args, app, env);
        expect(result.stderr, args.join(" ")).toMatch(message);
        expect(result.code).toBe(1);
        expectClean(result, args.join(" "));
      }
      expect(existsSync(join(app, "gen"))).toBe(false);
      // The runtime's optional peers: an MCP server, and shared state on Redis, without them installed.
      const mcp = await run(stepforge, ["mcp", "--mock"], app, env);
      expect(mcp.stderr).toMatch(
        joinedPattern([
          /^stepforge mcp: an MCP server needs @modelcontextprotocol\/sdk, which is not installed; /,
          /add it to your project: npm install @modelcontextprotocol\/sdk@\d+\.\d+\.\d+\n$/,
        ]),
      );
      expect(mcp.code).toBe(1);
      const redisScript = [
        'import { createStateStore } from "stepforge/runtime";',
        'const store = createStateStore({ redisUrl: "redis://:hunter2@127.0.0.1:1" });',
        "try { await store.get('k'); } catch (error) { console.error(error.message); process.exitCode = 1; }",
      ].join("\n");
      const redis = await run(process.execPath, ["--input-type=module", "-e", redisScript], app, env);
      expect(redis.stderr).toMatch(
        joinedPattern([
          /^shared state on Redis needs ioredis, which is not installed; /,
          /add it to your project: npm install ioredis@\d+\.\d+\.\d+\n$/,
        ]),
      );
      expect(redis.code).toBe(1);
      // Regenerating stepforge's own integrations is a checkout's job, not an installed copy's.
      const own = await run(stepforge, ["generate"], app, env);
      expect(own.code).toBe(2);
      expect(own.stderr).toContain("stepforge generate --spec FILE --out DIR");
    },
  );
});

describe("a fresh checkout installed as a directory (no build, no compiler)", { timeout: 180_000 }, () => {
  it("installs without running a compiler, and its bin says how to get a build instead of crashing", async () => {
    const checkout = join(work, "checkout");
    for (const path of CHECKOUT_PATHS) {
      cpSync(join(root, path), join(checkout, path), { recursive: true });
    }
    const project = join(work, "from-checkout");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), manifest("from-checkout", { stepforge: `file:${checkout}` }, {}));
    const install = await timed("npm install <fresh checkout>", () =>
      run("npm", [...npmInstall, "--foreground-scripts"], project, env),
    );
    expect(install.stderr).not.toContain("tsc: not found");
    expect(install.code, install.stderr).toBe(0);
    const bin = await run(join(project, "node_modules", ".bin", "stepforge"), ["--version"], project, env);
    expect(bin.code).toBe(1);
    expect(bin.stderr).toMatch(
      joinedPattern([
        /^stepforge: this copy has no build \(dist\/ is missing\): /,
        /in a checkout of stepforge run `npm ci && npm run build`; /,
        /to use stepforge in another project install a packed tarball/,
      ]),
    );
  });
});

describe("a spec author who adds the optional tools", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const install = await authorInstalled;
    expect(install.code, install.stderr).toBe(0);
    const size = await installSize(author, env, false);
    figures.specAuthorInstall = {
      packages: size.packages,
      mb: size.mb,
      note: "stepforge + Spectral, Prism, openapi-typescript (with its peer TypeScript), Handlebars",
    };
    cpSync(
      join(root, "node_modules", "@readme", "oas-examples", "3.1", "json", "train-travel.json"),
      join(author, "train-travel.json"),
    );
  }, 300_000);

  it("lints a foreign spec with Spectral and the shipped ruleset", async () => {
    const foreign = await timed("lint", () =>
      run(authorStepforge, ["lint", "--spec", "train-travel.json"], author, env),
    );
    expectClean(foreign, "lint foreign");
    // The stepforge ruleset wants tags and summaries the train-travel spec has; an unknown
    // extension-free spec still gets Spectral's findings as file:line:col.
    expect(foreign.stdout).toMatch(/^train-travel\.json:\d+:\d+ (error|warning) /m);
    expect(foreign.stdout).toMatch(/1 spec linted: \d+ errors?, \d+ warnings?\n$/);
  });

  it(
    "generate --spec on a foreign spec with --package: compiles there, imports the " +
      "installed runtime, passes publint",
    async () => {
      const gen = await timed("generate --spec --package", () =>
        run(
          authorStepforge,
          ["generate", "--spec", "train-travel.json", "--out", "gen", "--package", "@acme/train-travel"],
          author,
          env,
        ),
      );
      expectClean(gen, "generate");
      expect(gen.code, gen.stderr).toBe(0);
      // The service id is the spec file's base name: train-travel.json → traintravel.
      const client = readFileSync(join(author, "gen", "traintravel", "client.ts"), "utf8");
      expect(client).toContain('from "stepforge/runtime"');
      const manifest = JSON.parse(readFileSync(join(author, "gen", "package.json"), "utf8"));
      expect(manifest.dependencies).toEqual({ stepforge: `^${own.version}` });
      const entry = "./dist/traintravel/index.js";
      expect(manifest.exports["./traintravel"]).toEqual({
        types: "./dist/traintravel/index.d.ts",
        import: entry,
        default: entry,
      });

      const build = await timed("tsc generated package", () =>
        run(process.execPath, [authorTsc, "-p", join("gen", "tsconfig.json")], author, env),
      );
      expect(build.stdout + build.stderr).toBe("");
      expect(build.code).toBe(0);
      const load = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'const m = await import("./gen/dist/index.js"); ' +
            'console.log(Object.keys(m).join(","), typeof m.traintravel.TraintravelClient)',
        ],
        author,
        env,
      );
      expectClean(load, "load generated package");
      expect(load.stdout.trim()).toBe("traintravel function");
      const lint = await run(
        join(root, "node_modules", ".bin", "publint"),
        ["run", join(author, "gen"), "--pack", "false"],
        app,
        env,
      );
      expect(lint.stdout).toContain("All good!");
    },
  );

  it("starts a Prism contract mock from the installed copy", async () => {
    const port = await freePort();
    const { child } = await timed("mock --prism start", () =>
      startUntil(
        authorStepforge,
        ["mock", "worldnews", "--prism", "--port", String(port)],
        author,
        env,
        `worldnews prism http://127.0.0.1:${port}`,
        60_000,
      ),
    );
    try {
      const answer = await fetch(
        `http://127.0.0.1:${port}/search-news?text=electric&api-key=mock-worldnews-api-key-0123456789`,
      );
      expect(answer.status).toBe(200);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});
