/**
 * types.ts: the spec's paths, operations and components as TypeScript types, by openapi-typescript,
 * from the model's `typesDocument` (the spec with the check stage's repairs), re-indented to the
 * two spaces every other generated module uses. Schemas that reach themselves through a union or
 * array get a named alias first (recursive-types.ts), or TypeScript reports TS2502 and types them `any`.
 */
import openapiTS, { astToString } from "openapi-typescript";
import { SpecError } from "../diagnostics.js";
import type { SurfaceModel } from "../model.js";
import { codeHeader, type Emitter } from "./file.js";
import { nameRecursiveSchemas } from "./recursive-types.js";

/** openapi-typescript prints four spaces per level; its strings never hold a raw line break. */
function reindent(text: string): string {
  return text.replace(/^((?: {4})+)/gm, (lead: string) => " ".repeat(lead.length / 2));
}

export const emitTypes: Emitter<SurfaceModel> = async (model, context) => {
  let ast;
  try {
    ast = await openapiTS(structuredClone(model.typesDocument) as never, { silent: true, defaultNonNullable: false });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "unknown error";
    throw new SpecError([
      {
        code: "SF201",
        severity: "error",
        message: `types could not be generated: ${message}`,
        file: model.spec.file,
        line: 1,
        column: 1,
      },
    ]);
  }
  const text = reindent(astToString(nameRecursiveSchemas(ast)));
  return [{ path: `${model.id}/types.ts`, content: `${codeHeader(context.specLabel)}\n${text}` }];
};
