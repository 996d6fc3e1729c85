/**
 * `stepforge init [--spec FILE]... [--out DIR] [--package NAME] [--format ts|json|yaml] [--force]`
 *
 * Writes the project's config: `stepforge.config.ts` (typed with `defineConfig` from
 * `stepforge/config`), or `.json`/`.yaml` with --format. Without --spec it takes the OpenAPI
 * documents it finds in the folder, specs/, openapi/ and api/. An existing config is never
 * overwritten unless --force (and then only by one of the same format); each spec's service id is
 * shown, taken from its file name unless the spec declares one.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { stringify } from "yaml";
import { packageNameProblem } from "../../generator/package-manifest.js";
import { toPosix } from "../../generator/files.js";
import { CONFIG_FILES, DEFAULT_OUTPUT, declaredId, idFromFileName, SERVICE_ID_RULE } from "../config/load.js";
import { UsageError } from "../usage.js";
import { flagsOf } from "../flags.js";
import { packagesToInstall } from "../command-packages.js";

const FORMATS = { ts: "stepforge.config.ts", json: "stepforge.config.json", yaml: "stepforge.config.yaml" } as const;
type Format = keyof typeof FORMATS;

/** Folders where a project usually keeps its specs, looked through (not below) when no --spec is given. */
const SPEC_FOLDERS = [".", "specs", "openapi", "api"];

export async function initCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = flagsOf(argv, {
    spec: { type: "string", multiple: true },
    out: { type: "string" },
    package: { type: "string" },
    format: { type: "string", default: "ts" },
    force: { type: "boolean", default: false },
    project: { type: "string" },
  });
  const dir = resolve(values.project ?? ".");
  if (!(values.format in FORMATS))
    throw new UsageError(`--format must be one of ${Object.keys(FORMATS).join(", ")}, got "${values.format}"`);
  const format = values.format as Format;
  const target = join(dir, FORMATS[format]);
  const existing = CONFIG_FILES.map((name) => join(dir, name)).filter((file) => existsSync(file));
  if (existing.length > 0 && !values.force) {
    throw new UsageError(
      `${existing.map((f) => basename(f)).join(" and ")} already exists; edit it, or pass --force to replace it`,
    );
  }
  const other = existing.filter((file) => file !== target);
  if (other.length > 0) {
    throw new UsageError(
      `--force replaces a config with one of the same format only; ${basename(other[0]!)} exists ` +
        `(use --format ${formatOf(other[0]!)})`,
    );
  }
  if (values.package !== undefined) {
    const problem = packageNameProblem(values.package);
    if (problem) throw new UsageError(`--package "${values.package}": a package name ${problem}`);
  }
  const specs = values.spec?.length ? values.spec.map((file) => checkedSpec(dir, file)) : foundSpecs(dir);
  if (specs.length === 0) {
    throw new UsageError(
      `no OpenAPI document found in ${SPEC_FOLDERS.map((f) => (f === "." ? "this folder" : `${f}/`)).join(", ")}; ` +
        "name yours with --spec FILE",
    );
  }
  const ids = specs.map((file) => ({ file, id: declaredId(join(dir, file)) ?? idFromFileName(file) }));
  const nameless = ids.find((s) => s.id === undefined);
  if (nameless)
    throw new UsageError(
      `--spec ${nameless.file}: no service id can be made from its file name; rename it (${SERVICE_ID_RULE})`,
    );
  const twice = ids.find((s, i) => ids.findIndex((o) => o.id === s.id) !== i);
  if (twice)
    throw new UsageError(
      `two specs would both be service "${twice.id}"; rename one file, or write the config and give one an id`,
    );

  const config = {
    specs,
    output: toPosix(values.out ?? DEFAULT_OUTPUT),
    ...(values.package !== undefined ? { package: values.package } : {}),
  };
  writeFileSync(target, render(format, config));
  out.write(
    `wrote ${relative(process.cwd(), target) || target}: ` +
      `${ids.map((s) => `${s.id} (${s.file})`).join(", ")} → ${config.output}/\n`,
  );
  const toInstall = packagesToInstall();
  if (toInstall.length > 0) out.write(`not installed yet, for the commands that need them:\n${toInstall.join("\n")}\n`);
  out.write("next: npx stepforge generate   (then lint, mock, call --mock, tools list, mcp --mock)\n");
  return 0;
}

function formatOf(file: string): Format {
  return file.endsWith(".json") ? "json" : /\.ya?ml$/.test(file) ? "yaml" : "ts";
}

/** A --spec as the config writes it: relative to the config's folder, with forward slashes. */
function checkedSpec(dir: string, file: string): string {
  const abs = resolve(file);
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new UsageError(`--spec ${file}: no such file`);
  if (!/\.(ya?ml|json)$/i.test(abs))
    throw new UsageError(`--spec ${file}: expected a .yaml, .yml or .json OpenAPI document`);
  return toPosix(relative(dir, abs));
}

/** OpenAPI documents (a top-level `openapi: 3.…`) in the usual folders, sorted. */
function foundSpecs(dir: string): string[] {
  const found: string[] = [];
  for (const folder of SPEC_FOLDERS) {
    const at = join(dir, folder);
    if (!existsSync(at) || !statSync(at).isDirectory()) continue;
    for (const name of readdirSync(at).sort()) {
      const file = join(at, name);
      if (!/\.(ya?ml|json)$/i.test(name) || CONFIG_FILES.includes(name as never) || !statSync(file).isFile()) continue;
      if (/^\s*["']?openapi["']?\s*:\s*["']?3\./m.test(readFileSync(file, "utf8").slice(0, 4096)))
        found.push(toPosix(relative(dir, file)));
    }
  }
  return found;
}

function render(format: Format, config: { specs: string[]; output: string; package?: string }): string {
  if (format === "json") return `${JSON.stringify(config, null, 2)}\n`;
  if (format === "yaml") return `# stepforge project config (stepforge help init)\n${stringify(config)}`;
  const lines = [
    `import { defineConfig } from "stepforge/config";`,
    "",
    "export default defineConfig({",
    "  // Each spec: a file, or { file, id, baseUrl, mock: { port } }; the id defaults to the file's base name.",
    `  specs: [${config.specs.map((s) => JSON.stringify(s)).join(", ")}],`,
    `  output: ${JSON.stringify(config.output)},`,
    ...(config.package !== undefined ? [`  package: ${JSON.stringify(config.package)},`] : []),
    "});",
    "",
  ];
  return lines.join("\n");
}
