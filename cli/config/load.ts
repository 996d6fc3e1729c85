/**
 * Finding and reading a project's config: `stepforge.config.{ts,mts,mjs,js,json,yaml,yml}` in the
 * project folder (the working directory, or `--project DIR`). TypeScript and JavaScript configs
 * are loaded with jiti (cli/ts-loader.ts); JSON and YAML are read as data. Whatever the form, the
 * value is checked here, and every problem is reported at once with the key it concerns and the fix.
 *
 * A spec's service id is the config's `id`, else the spec's own `x-stepforge.id`, else the spec
 * file's base name (`specs/library.yaml` → `library`) — never its title, which changes with wording.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type * as Z from "zod";
import { closest } from "../../generator/check/context.js";
import { packageNameProblem } from "../../generator/package-manifest.js";
import type { StepforgeConfig } from "./define.js";

/** `yaml`'s parse, required on first use (its Node entry is CommonJS: the module an import gives). */
const parseYaml = (text: string): unknown => (createRequire(import.meta.url)("yaml") as typeof Yaml).parse(text);

/** The names a config may have, in the order they are looked for (two at once is an error). */
export const CONFIG_FILES = [
  "stepforge.config.ts",
  "stepforge.config.mts",
  "stepforge.config.mjs",
  "stepforge.config.js",
  "stepforge.config.json",
  "stepforge.config.yaml",
  "stepforge.config.yml",
] as const;

export const DEFAULT_OUTPUT = "src/stepforge";

/** A config that cannot be used: the message names the file, the key and the fix. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** One spec of a project, with paths made absolute and its service id settled. */
export interface ProjectSpec {
  file: string;
  id: string;
  /** The id came from the config (not from the spec file's name or its x-stepforge.id). */
  idFromConfig: boolean;
  baseUrl?: string;
  mockPort?: number;
}

export interface ProjectConfig {
  /** The folder the config sits in: relative paths in it start here. */
  root: string;
  /** The config file, absolute. */
  file: string;
  /** The output folder, absolute. */
  output: string;
  package?: string;
  specs: ProjectSpec[];
}

/** Service ids: the extension schema's rule (runtime/descriptor.ts), said in words where refused. */
export const SERVICE_ID = /^[a-z][a-z0-9]{1,30}$/;
export const SERVICE_ID_RULE = "2 to 31 lower-case letters and digits, starting with a letter";

/**
 * The config's schema, built on first use: zod (and `yaml`, for a YAML config) load only when a
 * project has a config, so `generate` in a checkout without one starts its TypeScript thread
 * (cli/generate-thread.ts) before paying for them.
 */
function configSchema() {
  return (schemaOnce ??= import("zod").then(buildSchema));
}

function buildSchema(z: typeof Z) {
  const port = z.number().int().min(0).max(65535);
  const SpecEntry = z.union([
    z.string().min(1),
    z.strictObject({
      file: z.string().min(1),
      id: z.string().regex(SERVICE_ID, SERVICE_ID_RULE).optional(),
      baseUrl: z
        .url({ protocol: /^https?$/, error: "an http(s) address, e.g. https://staging.example.com/v1" })
        .optional(),
      mock: z.strictObject({ port: port.optional() }).optional(),
    }),
  ]);
  return z.strictObject({
    specs: z.array(SpecEntry).min(1, 'list at least one spec: specs: ["specs/my-api.yaml"]'),
    output: z.string().min(1).optional(),
    package: z.string().optional(),
  });
}

let schemaOnce: Promise<ReturnType<typeof buildSchema>> | undefined;

/** One entry of `specs`: a file name, or the file with its settings. */
type SpecEntry = Z.infer<ReturnType<typeof buildSchema>>["specs"][number];

const TOP_KEYS = ["specs", "output", "package"];
const SPEC_KEYS = ["file", "id", "baseUrl", "mock"];

/** The config file in `dir`, if any; two config files there are an error naming both. */
export function findConfig(dir: string): string | undefined {
  const found = CONFIG_FILES.map((name) => join(dir, name)).filter((file) => existsSync(file));
  if (found.length > 1) {
    throw new ConfigError(`${found.map((f) => basename(f)).join(" and ")} are both in ${dir}; keep one`);
  }
  return found[0];
}

/** The project whose config is in `dir`, or undefined when there is none. */
export async function loadProject(dir: string): Promise<ProjectConfig | undefined> {
  const file = findConfig(resolve(dir));
  return file === undefined ? undefined : readConfig(file);
}

export async function readConfig(file: string): Promise<ProjectConfig> {
  const raw = await readRaw(file);
  const name = basename(file);
  const parsed = (await configSchema()).safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(`${name}: ${parsed.error.issues.map((i) => describeIssue(i, raw)).join("; ")}`);
  const config = parsed.data as StepforgeConfig;
  const root = dirname(file);
  if (config.package !== undefined) {
    const problem = packageNameProblem(config.package);
    if (problem) throw new ConfigError(`${name}: package: "${config.package}" is not a package name: it ${problem}`);
  }
  const specs = config.specs.map((entry, i) => projectSpec(root, name, entry, i));
  const problems: string[] = [];
  specs.forEach((spec, i) => {
    if (!existsSync(spec.file))
      problems.push(`specs[${i}]: ${spec.file} does not exist; fix the path (it is relative to ${name})`);
    const other = specs.findIndex((s) => s.id === spec.id);
    if (other < i)
      problems.push(
        `specs[${i}]: service id "${spec.id}" is also the id of specs[${other}]; give one of them another id`,
      );
  });
  if (problems.length) throw new ConfigError(`${name}: ${problems.join("; ")}`);
  return {
    root,
    file,
    output: resolve(root, config.output ?? DEFAULT_OUTPUT),
    ...(config.package !== undefined ? { package: config.package } : {}),
    specs,
  };
}

async function readRaw(file: string): Promise<unknown> {
  const name = basename(file);
  if (/\.(json|ya?ml)$/.test(file)) {
    const text = readFileSync(file, "utf8");
    try {
      return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
      throw new ConfigError(`${name} cannot be read: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  try {
    const { importModule } = await import("../ts-loader.js");
    const module = await importModule<{ default?: unknown }>(file);
    return module && typeof module === "object" && "default" in module ? module.default : module;
  } catch (error) {
    throw new ConfigError(`${name} cannot be loaded: ${(error as Error).message.split("\n")[0]}`);
  }
}

function projectSpec(root: string, configName: string, entry: SpecEntry, i: number): ProjectSpec {
  const spec = typeof entry === "string" ? { file: entry } : entry;
  const file = resolve(root, spec.file);
  const declared = declaredId(file);
  if (spec.id !== undefined && declared !== undefined && spec.id !== declared) {
    throw new ConfigError(
      `${configName}: specs[${i}].id "${spec.id}" differs from the x-stepforge.id "${declared}" of ${spec.file}; ` +
        "remove one of them",
    );
  }
  const id = spec.id ?? declared ?? idFromFileName(file);
  if (id === undefined) {
    throw new ConfigError(
      `${configName}: specs[${i}]: no service id can be made from the file name "${basename(file)}"; ` +
        `add id: "myservice" to this spec (${SERVICE_ID_RULE})`,
    );
  }
  return {
    file,
    id,
    idFromConfig: spec.id !== undefined,
    ...(spec.baseUrl !== undefined ? { baseUrl: spec.baseUrl.replace(/\/+$/, "") } : {}),
    ...(spec.mock?.port !== undefined ? { mockPort: spec.mock.port } : {}),
  };
}

/**
 * The service id a spec file's name gives: its base name without the extension, lower case,
 * letters and digits only (`my-api.v2.yaml` → `myapiv2`); undefined when that is not an id.
 */
export function idFromFileName(file: string): string | undefined {
  const stem = basename(file).replace(/\.(ya?ml|json)$/i, "");
  const id = stem
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "")
    .slice(0, 31);
  return SERVICE_ID.test(id) ? id : undefined;
}

/**
 * The spec's own `x-stepforge.id`, when it declares one. Only a file that mentions x-stepforge is
 * parsed: a plain spec (most public ones, some megabytes long) is not read twice for nothing.
 */
export function declaredId(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  if (!text.includes("x-stepforge")) return undefined;
  try {
    const doc = (file.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown> | null;
    const id = (doc?.["x-stepforge"] as { id?: unknown } | undefined)?.id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined; // the spec's own errors are reported where it is checked
  }
}

/** One zod issue in words: the key path as written in the config, what is wrong, and near names. */
function describeIssue(issue: Z.core.$ZodIssue, raw: unknown): string {
  const at = issue.path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
    .join("");
  if (issue.code === "unrecognized_keys") {
    const known = issue.path.length === 0 ? TOP_KEYS : issue.path.at(-1) === "mock" ? ["port"] : SPEC_KEYS;
    return issue.keys
      .map((key) => {
        const near = closest(key, known);
        const hint = near ? `; did you mean "${near}"?` : "";
        return `${at ? `${at}.` : ""}${key}: unknown key${hint} (known: ${known.join(", ")})`;
      })
      .join("; ");
  }
  if (issue.code === "invalid_union" && issue.path.length === 2) {
    return `${at}: expected a spec file name ("specs/my-api.yaml") or { file, id?, baseUrl?, mock? }`;
  }
  if (issue.path.length === 0 && (raw === null || typeof raw !== "object" || Array.isArray(raw))) {
    return 'expected an object such as { specs: ["specs/my-api.yaml"] } (a .ts or .js config exports it as default)';
  }
  return `${at || "(config)"}: ${issue.message}`;
}
