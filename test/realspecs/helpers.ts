/**
 * Small specs of real-world shapes taken the whole way: generated in-process into a folder inside
 * the package (so generated code imports this runtime by relative path), its modules imported, its
 * mock started on 127.0.0.1, and calls made through the typed client and the tool steps.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createSharedState } from "../../runtime/index.js";
import type { MockOptions, RunningMock } from "../../runtime/mock/index.js";
import { executeTool, type ToolDefinition, type ToolResult, type Toolset } from "../../runtime/tools/index.js";
import { canonicalSchema } from "../../runtime/tools/export.js";
import { SpecError, type Diagnostic } from "../../generator/diagnostics.js";
import { packageRoot } from "../../generator/package-root.js";
import { generate, write } from "../../generator/pipeline.js";
import type { ServiceModel } from "../../generator/model.js";

export const ROOT = packageRoot();

/** A folder under test/.tmp for one test file; removed by `clean`. */
export function workDir(name: string): { dir: string; clean: () => void } {
  const dir = join(ROOT, "test", ".tmp", `realspecs-${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return { dir, clean: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Generated {
  model: ServiceModel;
  warnings: Diagnostic[];
  out: string;
}

/** Generates `doc` (written as JSON, as most published specs are) into `dir/<name>/`. */
export async function generateSpec(
  dir: string,
  name: string,
  doc: object,
  options: { strict?: boolean } = {},
): Promise<Generated> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc));
  const out = join(dir, `${name}-out`);
  const result = await generate({
    specFiles: [file],
    outDir: out,
    projectRoot: ROOT,
    ...options,
  });
  write(out, result.files, { wholeOutDir: true });
  return { model: result.models[0]!, warnings: result.warnings, out };
}

/** The diagnostics `generate` refuses `doc` with (none: it generated). */
export async function refusal(
  dir: string,
  name: string,
  doc: object,
  options: { strict?: boolean } = {},
): Promise<Diagnostic[]> {
  try {
    await generateSpec(dir, name, doc, options);
    return [];
  } catch (error) {
    if (error instanceof SpecError) return error.diagnostics;
    throw error;
  }
}

export interface Service {
  client: Record<string, (init?: unknown) => Promise<unknown>>;
  tools: readonly ToolDefinition[];
  toolsets: readonly Toolset[];
  mock: RunningMock;
  /** Runs a step by name against the mock. */
  step(name: string, input: unknown): Promise<ToolResult>;
}

/** Imports a generated service, starts its mock and makes a client of it; `close` stops the mock. */
export async function startService(generated: Generated): Promise<Service & { close(): Promise<void> }> {
  const id = generated.model.id;
  const load = (module: string) =>
    import(pathToFileURL(join(generated.out, id, `${module}.ts`)).href) as Promise<Record<string, unknown>>;
  const [clientModule, toolsModule, mockModule] = await Promise.all([load("client"), load("tools"), load("mock")]);
  const pascal = id[0]!.toUpperCase() + id.slice(1);
  const mock = await (mockModule[`start${pascal}Mock`] as (options: MockOptions) => Promise<RunningMock>)({
    limits: { off: true },
  });
  const connection = { name: "test", fields: {} };
  const shared = createSharedState();
  const retry = { attempts: 0 };
  const create = clientModule[`create${pascal}Client`] as (options: object) => Service["client"];
  const tools = toolsModule.tools as readonly ToolDefinition[];
  return {
    client: create({ connection, baseUrl: mock.url, shared, retry }),
    tools,
    toolsets: toolsModule.toolsets as readonly Toolset[],
    mock,
    step: (name, input) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no step ${name}; the steps are ${tools.map((t) => t.name).join(", ")}`);
      return executeTool(tool, input, {
        connection,
        baseUrl: mock.url,
        shared,
        retry,
      });
    },
    close: () => mock.close(),
  };
}

/** A step's input schema as the agent platforms receive it (JSON Schema). */
export function inputSchema(tool: ToolDefinition): {
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
} {
  return canonicalSchema(tool.input, "input") as never;
}

/** The tool step refused its input before sending (naming `field` when given), as invalid_input. */
export function expectInvalidInput(result: ToolResult, field?: string): void {
  const error = field === undefined ? { kind: "invalid_input" } : { kind: "invalid_input", fields: [{ path: field }] };
  expect(result).toMatchObject({ ok: false, error });
}

/** What a test file of one spec works with: its folder, what generate made of it, and the service itself. */
export interface ServedSpec extends Service {
  work: { dir: string; clean: () => void };
  generated: Generated;
  close(): Promise<void>;
}

/** The schema components of the model generate built, in order (the spec's own, then those it hoisted). */
export function schemaNames(served: ServedSpec): string[] {
  return Object.keys(served.generated.model.components.schemas as object);
}

/**
 * Generates `doc` as service `id` into the folder `name` before the file's tests and serves it (the
 * service's members are set on the returned object by the time a test runs); stops it and removes
 * the folder after.
 */
export function serveSpecForFile(name: string, id: string, doc: object): ServedSpec {
  const served = { work: workDir(name) } as ServedSpec;
  beforeAll(async () => {
    served.generated = await generateSpec(served.work.dir, id, doc);
    Object.assign(served, await startService(served.generated));
  }, 60_000);
  afterAll(async () => {
    await served.close?.();
    served.work.clean();
  });
  return served;
}
