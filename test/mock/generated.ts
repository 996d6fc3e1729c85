/**
 * A spec generated in-process into test/.tmp (inside the package, so the generated code imports
 * this runtime relatively), its mock registered, and its spec read back for validating answers.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { Diagnostic } from "../../generator/diagnostics.js";
import type { ServiceModel } from "../../generator/model.js";
import { packageRoot } from "../../generator/package-root.js";
import { generate, write } from "../../generator/pipeline.js";
import { loadMock } from "../../runtime/mock/index.js";
import { DocumentValidator } from "./sample-helpers.js";

export interface GeneratedSpec {
  out: string;
  model: ServiceModel;
  warnings: Diagnostic[];
  /** The spec as data, and a validator of schemas inside it. */
  doc: Record<string, unknown>;
  validator: DocumentValidator;
  /** Imports one of the generated modules (`client`, `descriptor`, …). */
  module<T = Record<string, unknown>>(name: string): Promise<T>;
  remove(): void;
}

export async function generateSpec(specFile: string, label: string, serviceId?: string): Promise<GeneratedSpec> {
  const root = packageRoot();
  const out = join(root, "test", ".tmp", `${label}-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const result = await generate({
    specFiles: [specFile],
    outDir: out,
    projectRoot: root,
    ...(serviceId ? { serviceId } : {}),
  });
  write(out, result.files, { wholeOutDir: false });
  const model = result.models[0]!;
  await loadMock(join(out, model.id, "mock.ts"));
  const text = readFileSync(specFile, "utf8");
  const doc = (specFile.endsWith(".json") ? JSON.parse(text) : parse(text)) as Record<string, unknown>;
  return {
    out,
    model,
    warnings: result.warnings,
    doc,
    validator: new DocumentValidator(doc),
    module: async (name) => (await import(join(out, model.id, `${name}.ts`))) as never,
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}
