/**
 * The corpus (issue 12): specs nobody here wrote, each run through `stepforge generate --spec FILE
 * --out DIR` (warnings allowed) and the outputs type-checked under the project's strict settings in
 * one tsc program. Cases that do not pass today are `it.fails` with the reason, so the generator
 * work that fixes them has to flip them.
 *
 * - GitHub's REST API description (`@octokit/openapi`, 1,223 operations), fetched from the npm
 *   registry with `npm pack` on first use and kept in node_modules/.cache.
 * - Every OpenAPI 3.0 / 3.1 JSON document of `@readme/oas-examples` (a devDependency).
 * - The World News API's public spec and Atlassian's official Trello spec (255 operations),
 *   fixtures in test/corpus/specs/ (neither is published on npm; provenance in the README there).
 *
 * Cost: generation runs in-process (one module load for all); the single tsc program is most of
 * the time (GitHub's output alone is ~13 MB of TypeScript).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { typecheckGenerated } from "../helpers/tsc.js";
import { DocumentValidator, successSchemas } from "../mock/sample-helpers.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
// Inside the package, so generated code imports the runtime by relative path and tsc resolves it.
const WORK = join(ROOT, "test", ".tmp", "corpus");
const CACHE = join(ROOT, "node_modules", ".cache", "stepforge-corpus");
const EXAMPLES = join(ROOT, "node_modules", "@readme", "oas-examples");
const GITHUB_PACKAGE = "@octokit/openapi@23.0.2";
const GITHUB_FILE = "generated/api.github.com.json";

interface Case {
  /** Stable label, also the output directory name. */
  name: string;
  file: () => string;
  /** Why `generate` refuses it today (the test then expects the refusal to end). */
  generateFails?: string;
  /** Why its output does not type-check today. */
  typecheckFails?: string;
}

/** GitHub's spec from the npm registry, extracted once; the path to the JSON file. */
function githubSpec(): string {
  const file = join(CACHE, "octokit-openapi-23.0.2", "api.github.com.json");
  if (existsSync(file)) return file;
  const dir = join(CACHE, "octokit-openapi-23.0.2");
  mkdirSync(dir, { recursive: true });
  const pack = spawnSync("npm", ["pack", GITHUB_PACKAGE, "--pack-destination", dir, "--silent"], {
    cwd: dir,
    encoding: "utf8",
  });
  const tarball = pack.stdout?.trim().split("\n").at(-1);
  if (pack.status !== 0 || !tarball)
    throw new Error(`npm pack ${GITHUB_PACKAGE} failed (the corpus needs the npm registry): ${pack.stderr}`);
  const untar = spawnSync(
    "tar",
    ["-xzf", join(dir, tarball), "-C", dir, "--strip-components=2", `package/${GITHUB_FILE}`],
    { encoding: "utf8" },
  );
  rmSync(join(dir, tarball), { force: true });
  if (untar.status !== 0 || !existsSync(file))
    throw new Error(`cannot extract ${GITHUB_FILE} from ${tarball}: ${untar.stderr}`);
  return file;
}

/** Known failures of today's generator, by oas-examples file. */
const EXAMPLE_FAILURES: Record<string, Pick<Case, "generateFails" | "typecheckFails">> = {};

function exampleCases(): Case[] {
  return ["3.0", "3.1"].flatMap((version) =>
    readdirSync(join(EXAMPLES, version, "json"))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => {
        const rel = `${version}/json/${f}`;
        return {
          name: `oas-examples-${version}-${f.replace(/\.json$/, "")}`,
          file: () => join(EXAMPLES, rel),
          ...EXAMPLE_FAILURES[rel],
        };
      }),
  );
}

const WORLDNEWS_SPEC = join(ROOT, "test", "corpus", "specs", "world-news-api-openapi-3.json");
/** Atlassian's own Trello spec, not on npm (provenance in test/corpus/specs/README.md). */
const TRELLO_SPEC = join(ROOT, "test", "corpus", "specs", "trello-openapi.json");

const CASES: Case[] = [
  { name: "github-rest", file: githubSpec },
  { name: "worldnews-public", file: () => WORLDNEWS_SPEC },
  { name: "trello-official", file: () => TRELLO_SPEC },
  ...exampleCases(),
];

const generated = new Map<string, CliResult>();
let tscOutput = "";

describe("corpus: generated outputs", () => {
  beforeAll(async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    for (const c of CASES)
      generated.set(c.name, await runCli("generate", "--spec", c.file(), "--out", join(WORK, c.name)));
    tscOutput = typecheckGenerated(join(WORK, "tsconfig.json"), [WORK]).output;
  }, 600_000);

  /** tsc's errors in one case's output directory. */
  function errorsOf(name: string): string[] {
    const prefix = `${relative(ROOT, join(WORK, name))}/`;
    return tscOutput.split("\n").filter((line) => line.startsWith(prefix) && / error TS\d+/.test(line));
  }

  describe("corpus: generate --spec FILE --out DIR", () => {
    for (const c of CASES) {
      const check = () => {
        const result = generated.get(c.name)!;
        expect(result.stderr.split("\n").filter((l) => / error /.test(l))).toEqual([]);
        expect(result.code).toBe(0);
      };
      if (c.generateFails) it.fails(`${c.name} generates (fails today: ${c.generateFails})`, check);
      else it(`${c.name} generates`, check);
    }
  });

  describe("corpus: the official Trello spec", () => {
    it("is repaired with one warning per defect, at its place, and sends key and token together", () => {
      const warnings = generated
        .get("trello-official")!
        .stdout.split("\n")
        .filter((l) => / warning /.test(l));
      expect(warnings.map((l) => / warning (SF\d+) /.exec(l)![1])).toEqual(["SF113", "SF112", "SF112"]);
      expect(warnings[0]).toMatch(
        joinedPattern([
          /trello-openapi\.json:1:114779 warning SF113 path parameter "\{idCard\}" is not declared; /,
          /added it as a required string \(at \/paths\/~1cards~1\{idCard\}~1customFields\/put\)/,
        ]),
      );
      const descriptor = readFileSync(
        join(
          WORK,
          "trello-official",
          "trelloopenapi",
          "descriptor.ts",
        ) /* the id is the file name: trello-openapi.json */,
        "utf8",
      );
      expect(descriptor).toContain(`default: [
        { in: "query", name: "key", value: "{apiKey}" },
        { in: "query", name: "token", value: "{apiToken}" },
      ],`);
    });
  });

  describe("corpus: the outputs type-check under strict", () => {
    it("ran tsc over every output that was generated", () => {
      expect(CASES.filter((c) => !c.generateFails).every((c) => existsSync(join(WORK, c.name)))).toBe(true);
      // every line tsc printed belongs to a case's output (nothing from the runtime itself)
      const foreign = tscOutput
        .split("\n")
        .filter(
          (l) => / error TS\d+/.test(l) && !CASES.some((c) => l.startsWith(`${relative(ROOT, join(WORK, c.name))}/`)),
        );
      expect(foreign).toEqual([]);
    });
    for (const c of CASES.filter((x) => !x.generateFails)) {
      const check = () => expect(errorsOf(c.name)).toEqual([]);
      if (c.typecheckFails) it.fails(`${c.name} type-checks (fails today: ${c.typecheckFails})`, check);
      else it(`${c.name} type-checks`, check);
    }
  });
});

describe("corpus: mock data from GitHub's schemas", () => {
  it("samples every 4th JSON success response of the GitHub spec validly (Ajv 2020-12 with formats)", () => {
    const spec = JSON.parse(readFileSync(githubSpec(), "utf8")) as Record<string, unknown>;
    const validator = new DocumentValidator(spec);
    const resolve = pointerResolver(spec);
    const responses = successSchemas(spec);
    expect(responses.length).toBeGreaterThan(900);
    const invalid: string[] = [];
    // every 4th keeps Ajv's compile time (most of this test's cost) in the budget; all 954 pass too
    for (const { where, schema } of responses.filter((_, i) => i % 4 === 0)) {
      const value = sampleFromSchema(schema, { seed: where, resolve });
      const validate = validator.compile(schema);
      if (!validate(value)) invalid.push(`${where}: ${JSON.stringify(validate.errors?.[0])}`);
    }
    expect(invalid).toEqual([]);
  }, 300_000);
});
