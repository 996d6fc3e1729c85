/**
 * Whole-project checks that CI relies on: the specs lint clean, generated/ is fresh, everything
 * type-checks (including the type tests in test/types/), and the specs hold every seed endpoint.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { staleCompiledModules } from "../cli/compile-generated.js";
import { stronglyConnected } from "../generator/graph.js";
import { packageRoot } from "../generator/package-root.js";
import { runCli } from "./helpers/cli.js";
import { SEED_ENDPOINTS, SEED_SECTIONS } from "./fixtures/seed-endpoints.js";
import { typecheck } from "./helpers/tsc.js";

const root = packageRoot();
/** The folders tsconfig.build.json compiles into dist/ (the rest of tsconfig.json's are tests, bench, scripts). */
const SOURCES = ["runtime", "generator", "cli", "generated"];

/** A tsconfig for what tsconfig.json holds beyond the built sources: the tests, bench and scripts. */
function restOfProgram(root: string): string {
  const dir = join(root, "test", ".tmp", "project-typecheck");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "tsconfig.json");
  const project = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")) as { exclude: string[] };
  writeFileSync(
    file,
    JSON.stringify({
      extends: join(root, "tsconfig.json"),
      compilerOptions: { rootDir: root, noEmit: true },
      include: ["test", "bench", "scripts"].map((folder) => join(root, folder)),
      exclude: project.exclude.map((path) => join(root, path)),
    }),
  );
  return file;
}
const seedFile = join(root, "..", "shared", "seed", "000_2f5e8f1b598fe6f9.txt");

describe("project", () => {
  it("the sources are formatted and linted as biome.json says (biome ci: 120 columns, recommended rules)", () => {
    const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
    const run = spawnSync(process.execPath, [biome, "ci", "--diagnostic-level=error", "--colors=off", "."], {
      cwd: root,
      encoding: "utf8",
    });
    // The file names and rules it reports are the fix: `npx biome format --write .`, or the rule's advice.
    expect(run.status, `${run.stdout}\n${run.stderr}`.slice(0, 4000)).toBe(0);
  });

  it(
    "stepforge lint: the four specs have no errors and no warnings (Spectral's findings " +
      "and stepforge's conventions are warnings)",
    async () => {
      const result = await runCli("lint");
      expect(result.stdout).toContain("4 specs linted: 0 errors, 0 warnings");
      expect(result.code).toBe(0);
    },
  );

  it("no source line is over 120 characters (generated/ and text vitest writes in inline snapshots aside)", () => {
    const files = execFileSync("git", ["ls-files", "*.ts", "*.js", "*.mjs"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter((file) => file !== "" && !file.startsWith("generated/"));
    const long: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8").replace(/InlineSnapshot\(\s*`[\s\S]*?`\s*\)/g, (snapshot) =>
        snapshot.replace(/[^\n]/g, ""),
      );
      text.split("\n").forEach((line, i) => {
        // Characters, not bytes: "→" or "×" is one column.
        if ([...line].length > 120) long.push(`${file}:${i + 1} (${[...line].length})`);
      });
    }
    expect(long).toEqual([]);
  });

  it("stepforge generate --check: generated/ and the exports map are fresh", async () => {
    const result = await runCli("generate", "--check");
    expect(result.stdout).toContain("generated code is fresh");
    expect(result.code).toBe(0);
  });

  it("the built command runs (bin/stepforge.js → dist/)", () => {
    const run = spawnSync(process.execPath, [join(root, "bin", "stepforge.js"), "generate", "--check"], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("generated code is fresh");
    expect(run.status).toBe(0);
  });

  // The whole program with the tests in it: 60 s of CPU on a quiet 2-core machine. Under `make test`
  // the build has just checked the sources with the same settings (tsc exits 2 on an error, and make
  // stops before the tests), so the tests, bench and scripts are checked against the declarations it
  // wrote (23 s). Anywhere else, or once a source is newer than what dist/ holds for it, the whole program.
  it("everything type-checks under strict settings, and the type tests hold", { timeout: 240_000 }, () => {
    const checkedByBuild =
      process.env.STEPFORGE_BUILD_CHECKED === "1" &&
      SOURCES.every((folder) => staleCompiledModules(root, folder).length === 0);
    const result = checkedByBuild
      ? typecheck(restOfProgram(root), { againstBuilt: SOURCES })
      : typecheck(join(root, "tsconfig.json"));
    expect(result.output).toBe("");
    expect(result.ok).toBe(true);
  });

  it("package exports load one service without the others", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(Object.keys(pkg.exports).sort()).toEqual([
      ".",
      "./config",
      "./contentsnare",
      "./contentsnare/mock",
      "./marketo",
      "./marketo/mock",
      "./runtime",
      "./runtime/code",
      "./runtime/mcp",
      "./runtime/mock",
      "./runtime/observe",
      "./runtime/state",
      "./runtime/tools",
      "./runtime/triggers",
      "./runtime/zod",
      "./trello",
      "./trello/mock",
      "./worldnews",
      "./worldnews/mock",
    ]);
    // `default` is what require() resolves to from CommonJS: the same ES build (Node >= 20.19).
    const trello = "./dist/generated/trello/index.js";
    expect(pkg.exports["./trello"]).toEqual({
      types: "./dist/generated/trello/index.d.ts",
      import: trello,
      default: trello,
    });
    const index = readFileSync(join(root, "generated", "trello", "index.ts"), "utf8");
    expect(index).not.toMatch(/marketo|worldnews|contentsnare/);
    // The mock (HTTP server, JSON Schema validator) is its own entry, not part of the client's import.
    expect(index).not.toContain("mock");
  });
});

describe("seed coverage", () => {
  it.runIf(existsSync(seedFile))("the fixture lists exactly the seed's endpoint tables", () => {
    const seed = readFileSync(seedFile, "utf8");
    const endpoints = seed.slice(seed.indexOf("## Endpoints"), seed.indexOf("## Authentication"));
    for (const [service, section] of Object.entries(SEED_SECTIONS)) {
      const start = endpoints.indexOf(`### ${section}`);
      const end = endpoints.indexOf("###", start + 4);
      const rows = [
        ...endpoints
          .slice(start, end === -1 ? undefined : end)
          .matchAll(/^\| ([^|]+) \| (GET|POST|PUT|DELETE) (\S+) \|/gm),
      ];
      expect(rows.map((r) => [r[2], r[3], r[1]!.trim()])).toEqual(SEED_ENDPOINTS[service]);
    }
  });

  it.each(Object.entries(SEED_ENDPOINTS))(
    "specs/%s.yaml holds every seed endpoint with its method, path and seed name",
    (service, endpoints) => {
      const doc = parse(readFileSync(join(root, "specs", `${service}.yaml`), "utf8"));
      for (const [method, path, name] of endpoints) {
        const op = doc.paths?.[path]?.[method.toLowerCase()];
        expect(op, `${method} ${path}`).toBeDefined();
        expect(op["x-stepforge-seed"]?.name?.toLowerCase(), `${method} ${path} seed name`).toBe(name.toLowerCase());
        for (const code of Object.keys(op.responses)) {
          const refName =
            String(op.responses[code].$ref ?? "")
              .split("/")
              .pop() ?? "";
          const content = op.responses[code].content ?? doc.components?.responses?.[refName]?.content;
          for (const media of Object.values<any>(content ?? {}))
            expect(media.example ?? media.examples, `${method} ${path} ${code} example`).toBeDefined();
        }
      }
    },
  );
});

describe("the commands that repair generated/ do not depend on it", () => {
  /** The project files a module imports statically (relative imports, as source paths). */
  function importsOf(file: string): string[] {
    return [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)].map((m) =>
      join(file, "..", m[1]!.replace(/\.js$/, ".ts")),
    );
  }

  /** Every project file a module imports statically, transitively. */
  function importGraph(entry: string): Set<string> {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file) || !existsSync(file)) return;
      seen.add(file);
      for (const target of importsOf(file)) visit(target);
    };
    visit(entry);
    return seen;
  }

  it.each(["generate", "lint"])("stepforge %s never imports generated code", (command) => {
    const graph = [
      ...importGraph(join(root, "cli", "commands", `${command}.ts`)),
      ...importGraph(join(root, "cli", "main.ts")),
    ];
    expect(graph.length).toBeGreaterThan(5);
    expect(graph.filter((f) => f.includes(`${join(root, "generated")}/`))).toEqual([]);
  });

  it("no emitter imports the check stage: emitters read the model (and generator/schema.ts), not check/", () => {
    const emitters = readdirSync(join(root, "generator", "emit"))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(root, "generator", "emit", f));
    expect(emitters.length).toBeGreaterThan(5);
    const reaching = emitters.filter((file) =>
      importsOf(file).some((target) => target.startsWith(join(root, "generator", "check") + "/")),
    );
    expect(reaching.map((f) => f.slice(root.length + 1))).toEqual([]);
  });

  it(
    "no import circles in cli/, generator/ and runtime/ (type imports count: the request pipeline's " +
      "context declares the shapes of the stages it holds)",
    () => {
      const files = ["cli", "generator", "runtime"].flatMap((dir) => sourcesBelow(join(root, dir)));
      const edges = new Map(
        files.map((file) => [file, importsOf(file).filter((target) => target !== file && existsSync(target))]),
      );
      const circles = stronglyConnected(edges)
        .filter((group) => group.length > 1)
        .map((group) =>
          group
            .map((f) => f.slice(root.length + 1))
            .sort()
            .join(" ↔ "),
        )
        .sort();
      expect(circles).toEqual([]);
    },
  );

  // No command imports generated/ statically any more (cli/services.ts finds the bundled services by
  // folder at run time); this shows the walk above would see such an import if one came back.
  it("the graph walk follows imports into generated code", () => {
    const graph = [...importGraph(join(root, "generated", "index.ts"))];
    expect(graph).toContain(join(root, "generated", "trello", "tools.ts"));
    expect(graph).toContain(join(root, "generated", "trello", "descriptor.ts"));
  });
});

/** The .ts sources below a folder (not declaration files). */
function sourcesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}
