/**
 * The optional peer dependencies each command needs (package.json `peerDependenciesMeta`): one
 * table, read by the commands that require them and by `init`, which tells a new project at once
 * which of them it still has to install instead of letting it meet them one command at a time.
 */
import { installCommand, missingPackages } from "../runtime/internal/package-bin.js";

interface CommandPackages {
  /** The commands, as a user types them. */
  readonly use: string;
  readonly packages: readonly string[];
  /** "dev" for build tools (`npm install -D`), "runtime" for what the application runs with. */
  readonly dependency: "dev" | "runtime";
}

export const GENERATE_PACKAGES = ["openapi-typescript", "handlebars"] as const;

const COMMAND_PACKAGES: readonly CommandPackages[] = [
  { use: "generate", packages: GENERATE_PACKAGES, dependency: "dev" },
  { use: "lint", packages: ["@stoplight/spectral-cli"], dependency: "dev" },
  { use: "diff, migrate", packages: ["typescript", "ts-morph"], dependency: "dev" },
  { use: "mcp", packages: ["@modelcontextprotocol/sdk"], dependency: "runtime" },
  { use: "mcp --code", packages: ["quickjs-emscripten", "typescript"], dependency: "runtime" },
];

/**
 * A line per command whose packages are not all installed: the command and the npm command that
 * adds what is missing (at the versions stepforge is tested with). Empty when nothing is missing.
 */
export function packagesToInstall(isMissing: (names: readonly string[]) => string[] = missingPackages): string[] {
  return COMMAND_PACKAGES.flatMap(({ use, packages, dependency }) => {
    const missing = isMissing(packages);
    return missing.length > 0 ? [`  ${use}: ${installCommand(missing, dependency)}`] : [];
  });
}
