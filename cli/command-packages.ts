/**
 * The optional peer dependencies each command needs (package.json `peerDependenciesMeta`): one
 * table, read by the commands that require them and by `init`, which tells a new project at once
 * which of them it still has to install instead of letting it meet them one command at a time.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  installedTypeScriptMajor,
  installedTypeScriptVersion,
  NATIVE_MAJOR,
} from "../runtime/internal/compiler-api.js";
import { installCommand, missingPackages } from "../runtime/internal/package-bin.js";

interface CommandPackages {
  /** The command, as a user types it. */
  readonly use: string;
  readonly packages: readonly string[];
  /** "dev" for build tools (`npm install -D`), "runtime" for what the application runs with. */
  readonly dependency: "dev" | "runtime";
}

export const COMMAND_PACKAGES = {
  generate: { use: "generate", packages: ["openapi-typescript", "handlebars"], dependency: "dev" },
  lint: { use: "lint", packages: ["@stoplight/spectral-cli"], dependency: "dev" },
  diff: { use: "diff", packages: ["openapi-typescript", "typescript"], dependency: "dev" },
  migrate: { use: "migrate", packages: ["ts-morph"], dependency: "dev" },
  mcp: { use: "mcp", packages: ["@modelcontextprotocol/sdk"], dependency: "runtime" },
  // The sandbox (QuickJS), the agent code's type check, and the declarations of a project's own specs.
  code: {
    use: "mcp --code",
    packages: ["quickjs-emscripten", "typescript", "openapi-typescript"],
    dependency: "runtime",
  },
} as const satisfies Record<string, CommandPackages>;

/**
 * A line per command whose packages are not all installed: the command and the npm command that
 * adds what is missing (at the versions stepforge is tested with). Empty when nothing is missing.
 */
export function packagesToInstall(isMissing: (names: readonly string[]) => string[] = missingPackages): string[] {
  const lines = Object.values(COMMAND_PACKAGES).flatMap(({ use, packages, dependency }) => {
    const missing = isMissing(packages);
    return missing.length > 0 ? [`  ${use}: ${installCommand(missing, dependency)}`] : [];
  });
  return [...lines, ...compilerApiLine(isMissing), ...overridesLine(isMissing)];
}

/**
 * openapi-typescript asks for typescript ^5 as a peer, so npm refuses to install it next to
 * TypeScript 6 or 7 unless the project's package.json says it uses the project's compiler (the
 * README's `overrides` entry); said before the user meets npm's ERESOLVE.
 */
function overridesLine(isMissing: (names: readonly string[]) => string[], projectDir = process.cwd()): string[] {
  const step = overridesFirst(isMissing(["openapi-typescript"]), projectDir);
  return step ? [`  generate, next to typescript ${installedTypeScriptVersion()}: first ${step}`] : [];
}

/**
 * The step before `npm install` of `missing` (for requirePackages): the same `overrides` entry, when
 * openapi-typescript is among them, the project is on TypeScript 6 or 7 and its package.json lacks it.
 */
export function overridesFirst(missing: readonly string[], projectDir = process.cwd()): string | undefined {
  if (!missing.includes("openapi-typescript")) return undefined;
  const major = installedTypeScriptMajor();
  if (major === undefined || major < 6 || hasOpenapiTypescriptOverride(projectDir)) return undefined;
  return ADD_OVERRIDE;
}

const ADD_OVERRIDE =
  `add "overrides": { "openapi-typescript": { "typescript": "$typescript" } } to package.json ` +
  "(openapi-typescript asks for typescript ^5)";

function hasOpenapiTypescriptOverride(projectDir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as {
      overrides?: Record<string, unknown>;
    };
    const scoped = manifest.overrides?.["openapi-typescript"];
    return (
      manifest.overrides?.typescript !== undefined ||
      (typeof scoped === "object" && scoped !== null && "typescript" in scoped)
    );
  } catch {
    return false;
  }
}

/** A project on TypeScript 7 (no compiler API) without ts-morph: what generate, diff and the code mode lack. */
function compilerApiLine(isMissing: (names: readonly string[]) => string[]): string[] {
  const major = installedTypeScriptMajor();
  if (major === undefined || major < NATIVE_MAJOR || isMissing(["ts-morph"]).length === 0) return [];
  return [`  generate, diff, mcp --code (TypeScript 7 has no compiler API): ${installCommand(["ts-morph"], "dev")}`];
}
