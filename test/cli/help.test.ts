/** The command line explains itself: --help, help COMMAND, COMMAND --help, --version, usage errors. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { COMMAND_NAMES } from "../../cli/main.js";
import { COMMAND_HELP } from "../../cli/usage.js";
import { runCli } from "../helpers/cli.js";

const root = packageRoot();
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;

describe("stepforge help", () => {
  it("every command has exactly one help entry, and every help entry a command", () => {
    expect(Object.keys(COMMAND_HELP).sort()).toEqual(COMMAND_NAMES().sort());
    for (const [name, help] of Object.entries(COMMAND_HELP)) {
      expect(help.summary.length, name).toBeGreaterThan(10);
      for (const line of help.usage) expect(line.startsWith(`stepforge ${name}`), line).toBe(true);
    }
  });

  it("--help and -h list every command with its summary on stdout, exit 0", async () => {
    for (const flag of ["--help", "-h", "help"]) {
      const r = await runCli(flag);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      for (const [name, help] of Object.entries(COMMAND_HELP))
        expect(r.stdout).toMatch(
          new RegExp(`^  ${name} +${help.summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"),
        );
      expect(r.stdout).toContain("stepforge help COMMAND");
    }
  });

  it("no arguments prints the overview on stderr and exits 2", async () => {
    const r = await runCli();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("commands:");
  });

  it.each(Object.keys(COMMAND_HELP))("help %s and %s --help print the same usage and details, exit 0", async (name) => {
    const a = await runCli("help", name);
    const b = await runCli(name, "--help");
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    for (const line of COMMAND_HELP[name]!.usage) expect(a.stdout).toContain(line);
  });

  it("--help after a subcommand or other options still prints help, without running the command", async () => {
    const r = await runCli("webhook", "serve", "--port", "1", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("stepforge webhook serve --port N");
  });

  it("help for an unknown command is a usage error", async () => {
    const r = await runCli("help", "frobnicate");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it("a usage error prints that command's usage and where to find more", async () => {
    const r = await runCli("generate", "--bogus");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("stepforge generate --spec FILE --out DIR");
    expect(r.stderr).toContain("stepforge help generate");
    expect(r.stderr).not.toContain("stepforge mock");
  });

  it("--version prints the package version, in process and from the built bin", async () => {
    const r = await runCli("--version");
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const run = spawnSync(process.execPath, [join(root, "bin", "stepforge.js"), "--version"], { encoding: "utf8" });
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.status).toBe(0);
  });
});
