/**
 * What the commands run on, per service: its descriptor, tool steps and toolsets, triggers and
 * mock. A bundled service comes from this package's compiled generated/ (found by id, so no command
 * names a service); a project's service or a `--spec FILE` is built from its spec in this process
 * (cli/spec-services.ts) and loaded with jiti.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import type { ServiceCatalog } from "../runtime/mcp/catalog.js";
import type { MockDefinition } from "../runtime/mock/index.js";
import type { ToolDefinition, Toolset } from "../runtime/tools/index.js";
import type { TriggersExtension } from "../runtime/triggers/extension.js";
import { bundledServices, type ServiceSource } from "./project.js";

export interface LoadedService {
  id: string;
  source: ServiceSource;
  descriptor: ServiceDescriptor;
  tools: readonly ToolDefinition[];
  toolsets: readonly Toolset[];
  triggers?: TriggersExtension;
}

/** Kept for callers that want the bundled services only (the package's own four). */
export type GeneratedService = LoadedService;

interface ServiceModule {
  descriptor?: ServiceDescriptor;
  tools?: readonly ToolDefinition[];
  toolsets?: readonly Toolset[];
  triggers?: TriggersExtension;
  mockDefinition?: MockDefinition;
}

/** A module of this package's generated/ (compiled beside dist/cli, or the sources under tsx). */
function bundledModule(id: string, module: string): string | undefined {
  const dir = fileURLToPath(new URL(`../generated/${id}/`, import.meta.url));
  const file = ["js", "ts"].map((ext) => join(dir, `${module}.${ext}`)).find((f) => existsSync(f));
  // The .js specifier works for the sources too: tsx and vitest map it to the .ts file.
  return file && pathToFileURL(join(dir, `${module}.js`)).href;
}

async function importBundled(id: string, module: string): Promise<ServiceModule> {
  const href = bundledModule(id, module);
  if (!href)
    throw new Error(
      `${id}: this copy of stepforge has no generated ${module} module; run \`stepforge generate\` in the checkout`,
    );
  return (await import(href)) as ServiceModule;
}

async function importBuilt(source: ServiceSource, module: string, projectDir: string): Promise<ServiceModule> {
  const { buildSpecService } = await import("./spec-services.js");
  const built = await buildSpecService(source, projectDir);
  const file = join(built.dir, built.id, `${module}.ts`);
  if (!existsSync(file)) return {};
  try {
    // A host that runs TypeScript itself (tsx, vitest) imports it; Node 20 cannot, and jiti does.
    return (await import(pathToFileURL(file).href)) as ServiceModule;
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
  }
  const { importModule } = await import("./ts-loader.js");
  return importModule<ServiceModule>(file);
}

function moduleOf(source: ServiceSource, module: string, projectDir: string): Promise<ServiceModule> {
  return source.origin === "bundled" ? importBundled(source.id, module) : importBuilt(source, module, projectDir);
}

/** Which parts a command needs: each one not needed is a module graph not loaded. */
export interface Parts {
  tools?: boolean;
  triggers?: boolean;
}

export async function loadService(
  source: ServiceSource,
  projectDir = process.cwd(),
  parts: Parts = { tools: true, triggers: true },
): Promise<LoadedService> {
  const none = Promise.resolve({} as ServiceModule);
  const [descriptorModule, toolsModule, triggersModule] = await Promise.all([
    moduleOf(source, "descriptor", projectDir),
    parts.tools ? moduleOf(source, "tools", projectDir) : none,
    !parts.triggers || (source.origin === "bundled" && !bundledModule(source.id, "triggers"))
      ? none
      : moduleOf(source, "triggers", projectDir),
  ]);
  if (!descriptorModule.descriptor)
    throw new Error(`${source.id}: its generated descriptor module exports no descriptor`);
  return {
    id: descriptorModule.descriptor.id,
    source,
    descriptor: descriptorModule.descriptor,
    tools: toolsModule.tools ?? [],
    toolsets: toolsModule.toolsets ?? [],
    ...(triggersModule.triggers ? { triggers: triggersModule.triggers } : {}),
  };
}

export async function loadServices(
  sources: readonly ServiceSource[],
  projectDir = process.cwd(),
  parts?: Parts,
): Promise<LoadedService[]> {
  const loaded: LoadedService[] = [];
  // One after another: building a large spec is CPU work, and parallel builds only interleave it.
  for (const source of sources) loaded.push(await loadService(source, projectDir, parts));
  return loaded;
}

/** The mock of a service, registered so `startMock(id)` (and `mcp --mock`) find it by id. */
export async function loadMockDefinition(source: ServiceSource, projectDir = process.cwd()): Promise<MockDefinition> {
  const module = await moduleOf(source, "mock", projectDir);
  if (!module.mockDefinition) throw new Error(`${source.id}: its generated mock module exports no mockDefinition`);
  // Registered in this process's registry (a module loaded by jiti may hold its own copy). The mock
  // engine loads only here: a command that runs no mock does not pay for it.
  const { registerMock } = await import("../runtime/mock/index.js");
  return registerMock(module.mockDefinition);
}

/** Tool catalogues (for `tools`, `call` and `mcp`): services without steps are left out. */
export function catalogsOf(services: readonly LoadedService[]): ServiceCatalog[] {
  return services
    .filter((s) => s.tools.length > 0)
    .map((s) => ({ id: s.id, title: s.descriptor.title, tools: s.tools, toolsets: s.toolsets }));
}

/** The bundled services, loaded (the package's own four). */
export async function generatedServices(): Promise<GeneratedService[]> {
  return loadServices(bundledServices());
}
