/** `init`'s advice: which optional peers each command still needs, with the npm command that adds them. */
import { describe, expect, it } from "vitest";
import { packagesToInstall } from "../../cli/command-packages.js";

describe("packages a new project still has to install", () => {
  it("names each command whose packages are missing, with the pinned versions and -D for build tools", () => {
    const absent = new Set(["handlebars", "ts-morph", "quickjs-emscripten"]);
    const lines = packagesToInstall((names) => names.filter((n) => absent.has(n)));
    expect(lines).toEqual([
      "  generate: npm install -D handlebars@4.7.10",
      "  migrate: npm install -D ts-morph@27.0.2",
      "  mcp --code: npm install quickjs-emscripten@0.32.0",
    ]);
  });

  it("says nothing where everything is installed (this checkout has every peer as a dev dependency)", () => {
    expect(packagesToInstall()).toEqual([]);
  });
});
