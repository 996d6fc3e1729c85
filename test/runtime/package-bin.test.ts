/** Optional tools: found where Node would find them, or one sentence naming the package and the command to add it. */
import { describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import {
  installedPackageDir,
  MissingPackageError,
  packageBin,
  requirePackages,
} from "../../runtime/internal/package-bin.js";

describe("optional peer dependencies", () => {
  it("finds an installed tool's bin script", () => {
    expect(installedPackageDir("@stoplight/spectral-cli")).toMatch(/node_modules\/@stoplight\/spectral-cli$/);
    expect(packageBin("@stoplight/prism-cli", "prism")).toMatch(/prism-cli\/.+\.js$/);
  });

  it("a missing package is one sentence with the exact install command and the tested version", () => {
    expect(() => packageBin("@example/not-installed-tool", "tool", "a demo feature")).toThrow(
      new MissingPackageError("a demo feature", ["@example/not-installed-tool"]),
    );
    const one = new MissingPackageError("linting with Spectral", ["@stoplight/spectral-cli"]);
    expect(one.message).toBe(
      "linting with Spectral needs @stoplight/spectral-cli, which is not installed; add it " +
        "to your project: npm install -D @stoplight/spectral-cli@6.16.3",
    );
    const two = new MissingPackageError("code generation", ["openapi-typescript", "handlebars"]);
    expect(two.message).toBe(
      "code generation needs openapi-typescript and handlebars, which are not installed; " +
        "add them to your project: npm install -D openapi-typescript@7.13.0 " +
        "handlebars@4.7.10",
    );
    expect(two.message.split(/[.;] /).length).toBeLessThanOrEqual(2);
    // What must come first (the overrides entry next to TypeScript 7) leads the same sentence.
    const first = new MissingPackageError("code generation", ["openapi-typescript"], "dev", "add X to package.json");
    expect(first.message).toBe(
      "code generation needs openapi-typescript, which is not installed; add it to your project: " +
        "first add X to package.json, then npm install -D openapi-typescript@7.13.0",
    );
  });

  it("requirePackages names only the missing ones, and passes when all are there", () => {
    expect(() => requirePackages("x", ["openapi-typescript", "handlebars"])).not.toThrow();
    const asked: string[][] = [];
    const firstStep = (missing: readonly string[]) => {
      asked.push([...missing]);
      return "do this";
    };
    expect(() => requirePackages("x", ["handlebars", "@example/absent-a"], "dev", firstStep)).toThrow(
      "add it to your project: first do this, then npm install -D @example/absent-a@latest",
    );
    expect(asked).toEqual([["@example/absent-a"]]);
    expect(() => requirePackages("x", ["openapi-typescript", "@example/absent-a", "@example/absent-b"])).toThrow(
      joinedPattern([
        /^x needs @example\/absent-a and @example\/absent-b, which are not installed; /,
        /add them to your project: npm install -D @example\/absent-a@latest @example\/absent-b@latest$/,
      ]),
    );
  });
});
