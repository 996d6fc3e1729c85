// Type-checks a tsconfig's program with the runtime's imports resolved to its built declarations
// in dist/ (cli/built-runtime-host.ts), printing diagnostics as tsc does. Plain JavaScript so that
// node runs it without a loader. Usage: node tsc-built-runtime.mjs TSCONFIG PACKAGE_ROOT
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [tsconfig, root] = process.argv.slice(2);
const ts = createRequire(import.meta.url)("typescript");
const { againstBuiltRuntime } = await import(pathToFileURL(join(root, "dist", "cli", "built-runtime-host.js")).href);

const fail = (diagnostics) => {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => "\n" };
  process.stdout.write(ts.formatDiagnostics(diagnostics, host));
  process.exit(2);
};
const parsed = ts.getParsedCommandLineOfConfigFile(
  tsconfig,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
);
if (parsed.errors.length > 0) fail(parsed.errors);
const program = ts.createProgram({
  rootNames: parsed.fileNames,
  options: parsed.options,
  host: againstBuiltRuntime(ts, root, parsed.options),
});
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) fail(diagnostics);
