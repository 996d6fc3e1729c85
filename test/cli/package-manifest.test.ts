/** `generate --spec FILE --out DIR --package NAME`: DIR becomes a package of its own. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageManifest, packageNameProblem } from "../../generator/package-manifest.js";
import { packageRoot } from "../../generator/package-root.js";
import { runCli } from "../helpers/cli.js";

const root = packageRoot();
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;
const work = mkdtempSync(join(tmpdir(), "stepforge-manifest-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const petstore = join(root, "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json");

describe("generate --package", () => {
  it(
    "writes package.json with one export per service and per own-entry module, and " + "stepforge as a dependency",
    async () => {
      const out = join(work, "pets");
      const result = await runCli("generate", "--spec", petstore, "--out", out, "--package", "@acme/pets");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8"));
      expect(pkg.name).toBe("@acme/pets");
      expect(pkg.type).toBe("module");
      expect(pkg.dependencies).toEqual({ stepforge: `^${version}` });
      expect(pkg.files).toEqual(["dist/"]);
      // The service id is the spec file's base name (petstore.json), not its title (Swagger Petstore).
      expect(Object.keys(pkg.exports)).toEqual([".", "./petstore", "./petstore/mock"]);
      const mock = "./dist/petstore/mock.js";
      expect(pkg.exports["./petstore/mock"]).toEqual({
        types: "./dist/petstore/mock.d.ts",
        import: mock,
        default: mock,
      });
      const tsconfig = JSON.parse(readFileSync(join(out, "tsconfig.json"), "utf8"));
      expect(tsconfig.compilerOptions).toMatchObject({
        module: "NodeNext",
        strict: true,
        declaration: true,
        outDir: "dist",
      });
      // Deterministic: a rerun changes nothing.
      const before = readFileSync(join(out, "package.json"), "utf8");
      expect((await runCli("generate", "--spec", petstore, "--out", out, "--package", "@acme/pets")).code).toBe(0);
      expect(readFileSync(join(out, "package.json"), "utf8")).toBe(before);
    },
  );

  it("keeps what the user set in an existing package.json and tsconfig.json", async () => {
    const out = join(work, "kept");
    await runCli("generate", "--spec", petstore, "--out", out, "--package", "pets");
    const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8"));
    writeFileSync(
      join(out, "package.json"),
      JSON.stringify({
        ...pkg,
        version: "3.1.4",
        description: "mine",
        dependencies: { zod: "4.6.7", stepforge: "0.0.1" },
        exports: {},
      }),
    );
    writeFileSync(join(out, "tsconfig.json"), '{ "compilerOptions": { "strict": true } }\n');
    expect((await runCli("generate", "--spec", petstore, "--out", out, "--package", "pets")).code).toBe(0);
    const after = JSON.parse(readFileSync(join(out, "package.json"), "utf8"));
    expect(after).toMatchObject({
      version: "3.1.4",
      description: "mine",
      dependencies: { zod: "4.6.7", stepforge: `^${version}` },
    });
    expect(Object.keys(after.exports)).toContain("./petstore");
    expect(readFileSync(join(out, "tsconfig.json"), "utf8")).toBe('{ "compilerOptions": { "strict": true } }\n');
  });

  it("refuses a name npm would refuse, and --package without --spec, as usage errors naming the flag", async () => {
    const bad = await runCli("generate", "--spec", petstore, "--out", join(work, "bad"), "--package", "Not A Name");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--package "Not A Name": a package name must be');
    const alone = await runCli("generate", "--package", "x");
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--package goes with --spec");
    expect(packageNameProblem("@scope/ok-name.js")).toBeUndefined();
    expect(packageNameProblem("../escape")).toBeDefined();
    expect(packageNameProblem("x".repeat(215))).toBeDefined();
  });

  it(
    "an existing package.json that is not a JSON object is an error that says what to do; " + "nothing is overwritten",
    async () => {
      const out = join(work, "broken");
      mkdirSync(out);
      writeFileSync(join(out, "package.json"), "{ not json");
      const result = await runCli("generate", "--spec", petstore, "--out", out, "--package", "pets");
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "stepforge generate: the existing package.json in the output folder is not a JSON " +
          "object; fix it or remove it, then run generate again\n",
      );
      expect(readdirSync(out)).toEqual(["package.json"]);
      expect(readFileSync(join(out, "package.json"), "utf8")).toBe("{ not json");
    },
  );

  it("maps only the files it is given (no root entry without a root index)", () => {
    const text = packageManifest({
      packageName: "p",
      serviceIds: ["b", "a"],
      files: [{ path: "a/index.ts" }, { path: "b/mock.ts", ownEntry: true }],
      stepforgeVersion: "1.2.3",
      typescriptVersion: "5.9.3",
    });
    const pkg = JSON.parse(text);
    expect(Object.keys(pkg.exports)).toEqual(["./a", "./b", "./b/mock"]);
    expect(pkg.devDependencies).toEqual({ typescript: "^5.9.3" });
  });
});
