/**
 * The generated declarations (`client.ts` and `types.ts`) of a service built from its spec in this
 * process, for `mcp --code`: the code mode type-checks and documents a program against them. A
 * project's service is built from its spec like every other command's (cli/spec-services.ts), not
 * read from the output folder, which may not exist yet or may be older than the spec.
 *
 * The two files are added to the service's build folder (named by the spec's hash), so they are
 * made once per spec version. `types.ts` comes from openapi-typescript (an optional peer): it is
 * imported here, only when the code mode runs, so other commands never need it.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { EmitContext } from "../generator/emit/file.js";
import { toPosix } from "../generator/files.js";
import { loadSpecFile } from "../generator/load.js";
import { checkProjectSpec } from "../generator/project-spec.js";
import type { ServiceSource } from "./project.js";
import { buildSpecService } from "./spec-services.js";

const DECLARATIONS = ["types.ts", "client.ts"] as const;

/** The folder holding `<id>/client.ts` and `<id>/types.ts` of a project's (or `--spec`) service. */
export async function buildSpecDeclarations(source: ServiceSource, projectDir = process.cwd()): Promise<string> {
  const built = await buildSpecService(source, projectDir);
  const serviceDir = join(built.dir, built.id);
  if (DECLARATIONS.every((name) => existsSync(join(serviceDir, name)))) return built.dir;
  const [{ emitTypes }, { emitClient }] = await Promise.all([
    import("../generator/emit/types.js"),
    import("../generator/emit/client.js"),
  ]);
  const overrides = { id: source.id, ...(source.baseUrl !== undefined ? { baseUrl: source.baseUrl } : {}) };
  const model = checkProjectSpec(loadSpecFile(source.specFile), overrides);
  const runtime = fileURLToPath(new URL("../runtime/index.js", import.meta.url));
  const context: EmitContext = {
    runtimeImport: toPosix(relative(serviceDir, runtime)),
    specLabel: toPosix(relative(projectDir, source.specFile)),
  };
  const files = [...(await emitTypes(model, context)), ...(await emitClient(model, context))];
  // types.ts first, client.ts last, each renamed into place: a reader that finds both finds them whole.
  for (const name of DECLARATIONS) {
    const file = files.find((f) => f.path.endsWith(name));
    if (!file) throw new Error(`${source.id}: the generator wrote no ${name}`);
    const target = join(built.dir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, file.content);
    renameSync(temp, target);
  }
  return built.dir;
}
