/**
 * The commands around the change report: `stepforge diff` on files and git revisions (text and
 * --json), its usage errors, `generate --changelog`, and the names surface.json carries from one
 * generation to the next (what migrate reads).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { codeCacheDir } from "../../generator/code-cache.js";
import { packageRoot } from "../../generator/package-root.js";
import { runCli } from "../helpers/cli.js";

const root = packageRoot();
const fixture = join(import.meta.dirname, "fixtures", "widgets.yaml");
const work = mkdtempSync(join(tmpdir(), "stepforge-diff-"));

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: work,
    encoding: "utf8",
  });

describe("stepforge diff", { timeout: 120_000 }, () => {
  it("compares a git revision with the working file, as text and as JSON", () => {
    const spec = join(work, "api.yaml");
    copyFileSync(fixture, spec);
    git("init", "-q");
    git("add", "api.yaml");
    git("commit", "-qm", "spec");
    writeFileSync(spec, readFileSync(spec, "utf8").replace("operationId: getWidget", "operationId: fetchWidget"));
    const bin = join(root, "bin", "stepforge.js");
    const text = spawnSync(process.execPath, [bin, "diff", "HEAD:api.yaml", "api.yaml", "--service", "widgets"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^widgets: 2 API changes, 2 breaking — suggested version 2\.0\.0 \(major; was 1\.2\.0\)$/m,
    );
    expect(text.stdout).toMatch(/breaking +operation-renamed +fetchWidget: getWidget → fetchWidget/);

    const json = spawnSync(
      process.execPath,
      [bin, "diff", "HEAD:api.yaml", "api.yaml", "--service", "widgets", "--json"],
      { cwd: work, encoding: "utf8" },
    );
    expect(json.status, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      breaking: boolean;
      services: Array<{
        service: string;
        bump: string;
        suggestedVersion: string;
        changes: Array<{ kind: string; breaking: boolean; decidedBy: string; migratable?: boolean }>;
      }>;
    };
    expect(parsed.breaking).toBe(true);
    expect(parsed.services[0]).toMatchObject({ service: "widgets", bump: "major", suggestedVersion: "2.0.0" });
    expect(parsed.services[0]!.changes.map((c) => [c.kind, c.breaking, c.decidedBy, c.migratable ?? false])).toEqual([
      ["operation-renamed", true, "declarations", true],
      ["tool-renamed", true, "model", true],
    ]);

    // A schema change: the built CLI runs the checker pass on its worker thread (checker-thread.ts),
    // which then keeps the compiler's V8 code cache for the next diff (code-cache.ts).
    const diffCache = codeCacheDir("diff");
    rmSync(diffCache, { recursive: true, force: true });
    writeFileSync(spec, readFileSync(spec, "utf8").replace("enum: [red, green, blue]", "enum: [red, green]"));
    const checked = spawnSync(
      process.execPath,
      [bin, "diff", "HEAD:api.yaml", "api.yaml", "--service", "widgets", "--json"],
      { cwd: work, encoding: "utf8" },
    );
    expect(checked.status, checked.stderr).toBe(0);
    const changes = (JSON.parse(checked.stdout) as typeof parsed).services[0]!.changes;
    expect(changes).toContainEqual(
      expect.objectContaining({
        kind: "parameter-enum-value-removed",
        breaking: true,
        decidedBy: "checker",
        target: "listWidgets",
      }),
    );
    const cached = readdirSync(diffCache).filter((name) => name.endsWith(".bin"));
    expect(cached).toHaveLength(1);
    expect(readFileSync(join(diffCache, cached[0]!), "latin1")).toMatch(
      /^stepforge-code-cache 1 \{"filename":".*typescript/,
    );
  });

  it("a revision git does not have, or a missing file, fails with exit 1 naming it", () => {
    const bin = join(root, "bin", "stepforge.js");
    const missing = spawnSync(process.execPath, [bin, "diff", "HEAD~5:api.yaml", "api.yaml"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("HEAD~5:api.yaml:1:1 error SF001 cannot read the spec from git");
    const nofile = spawnSync(process.execPath, [bin, "diff", "nope.yaml", "api.yaml"], { cwd: work, encoding: "utf8" });
    expect(nofile.status).toBe(1);
    expect(nofile.stderr).toContain("nope.yaml:1:1 error SF001 cannot read the spec: no such file");
  });

  it("one spec, or an unknown flag, is a usage error (exit 2)", async () => {
    const one = await runCli("diff", fixture);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("name two specs, the old then the new");
    const flag = await runCli("diff", fixture, fixture, "--jsn");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("stepforge diff OLD NEW [--json] [--service ID]");
  });

  it("--fail-on-breaking: exit 0 on a compatible edit, 1 on a breaking one, with the report printed", async () => {
    const edited = (name: string, colors: string) => {
      const file = join(work, name);
      writeFileSync(file, readFileSync(fixture, "utf8").replace("enum: [red, green, blue]", colors));
      return file;
    };
    const widened = edited("widened.yaml", "enum: [red, green, blue, yellow]");
    const narrowed = edited("narrowed.yaml", "enum: [red, green]");
    const gate = ["--service", "widgets", "--fail-on-breaking"];

    const compatible = await runCli("diff", fixture, widened, ...gate);
    expect(compatible.code, compatible.stderr).toBe(0);
    expect(compatible.stdout).toMatch(/^widgets: 2 API changes, 0 breaking/m);
    expect(compatible.stderr).toBe("");

    const breaking = await runCli("diff", fixture, narrowed, ...gate);
    expect(breaking.code).toBe(1);
    expect(breaking.stdout).toMatch(/^widgets: \d+ API changes?, [1-9]\d* breaking/m);
    expect(breaking.stdout).toMatch(/breaking +\S+ +.*blue/);
    const listed = breaking.stdout.split("\n").filter((line) => line.startsWith("  breaking ")).length;
    expect(breaking.stderr).toBe(
      `stepforge diff: ${listed} breaking change${listed === 1 ? "" : "s"} (listed above) (--fail-on-breaking)\n`,
    );

    const json = await runCli("diff", fixture, narrowed, ...gate, "--json");
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { breaking: boolean }).breaking).toBe(true);
    expect(json.stderr).toContain('those with "breaking": true in the report');

    // Without the flag the same breaking edit is a successful comparison.
    expect((await runCli("diff", fixture, narrowed, "--service", "widgets")).code).toBe(0);
  });

  it("the same spec twice: no API changes", async () => {
    const same = await runCli("diff", fixture, fixture, "--service", "widgets");
    expect(same).toEqual({ code: 0, stdout: "widgets: no API changes\n", stderr: "" });
  });
});

describe("generate --changelog and surface.json", { timeout: 300_000 }, () => {
  it("writes a Keep a Changelog section per run with changes, and carries former names forward", async () => {
    const spec = join(work, "changelog.yaml");
    const out = join(work, "pkg");
    copyFileSync(fixture, spec);
    const gen = (...flags: string[]) =>
      runCli("generate", "--spec", spec, "--out", out, "--service", "widgets", ...flags);
    expect((await gen()).code).toBe(0);
    writeFileSync(join(out, "package.json"), JSON.stringify({ name: "@acme/widgets", version: "1.4.2" }));

    writeFileSync(spec, readFileSync(spec, "utf8").replace("operationId: getWidget", "operationId: fetchWidget"));
    const first = await gen("--changelog");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`changelog: ${join(out, "CHANGELOG.md")} [2.0.0]`);
    const changelog = readFileSync(join(out, "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(
      joinedPattern([
        /^# Changelog\n[\s\S]*Keep a Changelog[\s\S]*\n## \[2\.0\.0\] - \d{4}-\d{2}-\d{2}\n\n### Changed\n\n/,
        /- \*\*Breaking:\*\* widgets: `fetchWidget`: getWidget → fetchWidget \(GET \/widgets\/\{id\}\)\n/,
      ]),
    );

    writeFileSync(spec, readFileSync(spec, "utf8").replace("operationId: fetchWidget", "operationId: readWidget"));
    expect((await gen("--changelog")).code).toBe(0);
    const surface = JSON.parse(readFileSync(join(out, "widgets", "surface.json"), "utf8")) as {
      operations: Array<{ operationId: string; formerly?: string[] }>;
      tools: Array<{ name: string; formerly?: string[] }>;
    };
    expect(surface.operations.find((o) => o.operationId === "readWidget")!.formerly).toEqual([
      "getWidget",
      "fetchWidget",
    ]);
    expect(surface.tools.find((t) => t.name === "widgets_read_widget")!.formerly).toEqual([
      "widgets_get_widget",
      "widgets_fetch_widget",
    ]);
    // Still unreleased (package.json says 1.4.2): the entries join the 2.0.0 section.
    const twice = readFileSync(join(out, "CHANGELOG.md"), "utf8");
    expect(twice.match(/^## \[2\.0\.0\]/gm)).toHaveLength(1);
    expect(twice).toContain("- **Breaking:** widgets: `readWidget`: fetchWidget → readWidget (GET /widgets/{id})");
    expect(twice).toContain("- **Breaking:** widgets: `fetchWidget`: getWidget → fetchWidget (GET /widgets/{id})");

    const unchanged = await gen("--changelog", "--no-cache");
    expect(unchanged.stdout).toContain("widgets: no API changes");
    expect(unchanged.stdout).toContain("changelog: no API changes, CHANGELOG.md left as it was");
    expect(readFileSync(join(out, "CHANGELOG.md"), "utf8")).toBe(twice);
  });
});
