/**
 * lint = generate: both commands, run as the CLI runs them (in-process `main`), over one spec per
 * defect (test/lint/fixtures.ts). For every spec they must give the same verdict (lint reports an
 * error exactly when generate exits 1 and writes nothing) and the same check-stage findings (the
 * same set of code and JSON pointer); Spectral's findings about the same defects are left out of
 * lint, and what Spectral alone finds is a warning.
 */
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { packageRoot } from "../../generator/package-root.js";
import { fixtures, writeFixtures } from "./fixtures.js";

interface Line {
  file: string;
  severity: "error" | "warning";
  code: string;
  message: string;
  pointer?: string;
}

const LINE = /^(.+?):(\d+):(\d+) (error|warning) (\S+) (.*)$/;

function parse(output: string): Line[] {
  const lines: Line[] = [];
  for (const text of output.split("\n")) {
    const m = LINE.exec(text);
    if (!m) continue;
    const pointer = /\(at (\/.*)\)$/.exec(m[6]!)?.[1];
    lines.push({
      file: basename(m[1]!),
      severity: m[4] as Line["severity"],
      code: m[5]!,
      message: m[6]!,
      ...(pointer ? { pointer } : {}),
    });
  }
  return lines;
}

async function run(argv: string[]): Promise<{ code: number; output: string }> {
  let output = "";
  const sink = { write: (chunk: string) => ((output += chunk), true) } as unknown as NodeJS.WritableStream;
  const code = await main(argv, sink, sink);
  return { code, output };
}

const checkStage = (lines: Line[]) =>
  lines
    .filter((l) => /^SF\d{3}$/.test(l.code))
    .map((l) => `${l.severity} ${l.code} ${l.pointer ?? ""}`)
    .sort();

/** What each fixture must give: the verdict, and the codes lint must (and must not) print. */
const EXPECTED: Record<string, { fails: boolean; codes: string[]; absent?: string[]; only?: boolean }> = {
  clean: { fails: false, codes: ["stepforge-service-extension"], only: true },
  "path-param-not-required": { fails: false, codes: ["SF191"], absent: ["path-params", "oas3-schema"] },
  "enum-example": { fails: false, codes: ["SF192"], absent: ["oas3-valid-media-example"] },
  "no-version": { fails: false, codes: ["oas3-schema"] },
  "undeclared-path-param": { fails: true, codes: ["SF114"], absent: ["path-params"] },
  "strict-missing-operation-id": { fails: true, codes: ["SF117"], absent: ["operation-operationId"] },
  "ref-typo": { fails: true, codes: ["SF107"], only: true },
  misindented: { fails: true, codes: ["SF002"], only: true },
  "limits-only": { fails: false, codes: [], only: true },
  "five-problems": { fails: true, codes: ["SF120", "SF121", "SF126"] },
};

describe("lint and generate give one verdict on every spec", () => {
  let files: Map<string, string>;
  let lint: { code: number; output: string };
  let linted: Line[];

  beforeAll(async () => {
    files = writeFixtures();
    lint = await run(["lint", ...[...files.values()].flatMap((f) => ["--spec", f])]);
    linted = parse(lint.output);
  });

  it("lint lints every fixture in one run and fails it (exit 1), as some fixtures have errors", () => {
    expect(lint.output).toContain(`${files.size} specs linted:`);
    expect(lint.code).toBe(1);
  });

  it.each(fixtures().map((f) => [f.name, f.about]))(
    "%s (%s): same verdict and same check-stage findings",
    async (name) => {
      const file = files.get(name)!;
      const out = join(packageRoot(), "test", ".tmp", "lint", "out", name);
      const generated = await run(["generate", "--spec", file, "--out", out, "--no-cache"]);
      const fromGenerate = parse(generated.output);
      const fromLint = linted.filter((l) => l.file === basename(file));
      const expected = EXPECTED[name]!;

      expect(generated.code).toBe(expected.fails ? 1 : 0);
      expect(fromLint.some((l) => l.severity === "error")).toBe(expected.fails);
      expect(checkStage(fromLint)).toEqual(checkStage(fromGenerate));
      if (expected.fails) expect(generated.output).toContain("nothing was written");

      const codes = [...new Set(fromLint.map((l) => l.code))];
      if (expected.only) expect(codes.sort()).toEqual([...expected.codes].sort());
      else for (const code of expected.codes) expect(codes).toContain(code);
      for (const code of expected.absent ?? []) expect(codes).not.toContain(code);
      // What Spectral alone finds never decides the verdict.
      expect(fromLint.filter((l) => !/^SF\d{3}$/.test(l.code) && l.severity === "error")).toEqual([]);
    },
  );
});
