/**
 * The index modules: one per service, re-exporting every module the emitters wrote for it (client,
 * descriptor, tools, triggers …) and the spec's types as types; and the root index, every service
 * as a namespace. Importing one service's module avoids the root.
 */
import type { ServiceModel } from "../model.js";
import { jsdoc, str } from "../print.js";
import { moduleText, type EmitContext, type GeneratedFile } from "./file.js";

export function emitServiceIndex(model: ServiceModel, context: EmitContext, modules: string[]): GeneratedFile {
  const body = [
    jsdoc(
      `${model.title}: everything generated from its spec. Import from "` +
        `${context.moduleImport ?? `stepforge/${model.id}`}".`,
    ),
    ...modules.map((module) => `export * from ${str(`./${module}.js`)};`),
    `export type { paths, components } from "./types.js";`,
  ];
  return { path: `${model.id}/index.ts`, content: moduleText(context.specLabel, body) };
}

export function emitRootIndex(models: ServiceModel[], context: EmitContext): GeneratedFile {
  // Service ids are lower-case letters and digits (the extension schema), valid export names.
  const body = [...models]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((model) => `export * as ${model.id} from ${str(`./${model.id}/index.js`)};`);
  return { path: "index.ts", content: moduleText(context.specLabel, body) };
}
