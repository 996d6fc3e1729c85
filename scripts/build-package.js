// Builds dist/ for the package. Plain JavaScript (not .ts): it runs from npm's lifecycle scripts,
// before anything is compiled and where tsx may not be installed.
//
//   --clean (prepack: `npm pack`, `npm publish`): a fresh dist/ without source maps, so the tarball
//     holds exactly what the sources compile to today. Fails when TypeScript is missing.
//   no flag (prepare: `npm install` inside a checkout, and a git-URL install, where npm installs
//     the checkout's devDependencies in its own clone first): builds when TypeScript is there and
//     otherwise says why dist/ was not built, without failing the install of a fresh checkout.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const clean = process.argv.includes("--clean");

// `npm pack` runs prepack and then prepare: prepack has already built. A packed copy (a tarball
// install whose prepare script npm was allowed to run) has its build and no sources to compile.
if (!clean && ["pack", "publish"].includes(process.env.npm_command ?? "")) process.exit(0);
if (!existsSync(join(root, "tsconfig.build.json"))) process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch {
  const why = "the TypeScript compiler is not installed in this checkout (run `npm ci` in it first)";
  if (clean) {
    process.stderr.write(`stepforge: cannot build the package: ${why}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `stepforge: dist/ not built: ${why}; to use stepforge in another project, install a ` +
      `packed tarball (\`npm pack\`) instead\n`,
  );
  process.exit(0);
}

if (clean) rmSync(join(root, "dist"), { recursive: true, force: true });
const args = [tsc, "-p", join(root, "tsconfig.build.json"), ...(clean ? ["--sourceMap", "false"] : [])];
const run = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
process.exit(run.status ?? 1);
