/** The diagnostic catalogue and docs/diagnostics.md list the same codes with the same meaning. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../../generator/catalogue.js";
import { packageRoot } from "../../generator/package-root.js";
import { filesBelow } from "../../generator/files.js";

const docs = readFileSync(join(packageRoot(), "docs", "diagnostics.md"), "utf8");
const documented = new Map(
  [...docs.matchAll(/^\| (SF\d{3}) \| (\w+) \| (.+) \|$/gm)].map((m) => [m[1]!, { stage: m[2]!, summary: m[3]! }]),
);

describe("diagnostic catalogue", () => {
  it("every code in the catalogue is documented with its stage and meaning, and nothing else is", () => {
    expect(Object.fromEntries(documented)).toEqual(CATALOGUE);
  });

  it("every code the generator reports is in the catalogue", () => {
    const used = new Set<string>();
    for (const file of filesBelow(join(packageRoot(), "generator")).filter(
      (f) => f.endsWith(".ts") && !f.endsWith("catalogue.ts"),
    )) {
      for (const m of readFileSync(file, "utf8").matchAll(/"(SF\d{3})"/g)) used.add(m[1]!);
    }
    expect([...used].filter((code) => !(code in CATALOGUE))).toEqual([]);
    expect(used.size).toBeGreaterThan(30);
  });
});
