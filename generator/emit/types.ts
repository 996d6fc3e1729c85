/**
 * types.ts: the spec's paths, operations and components as TypeScript types, by openapi-typescript,
 * from the model's `typesDocument` (the spec with the check stage's repairs), re-indented to the
 * two spaces every other generated module uses. Schemas that reach themselves through a union or
 * array get a named alias first (recursive-types.ts), or TypeScript reports TS2502 and types them `any`.
 */
import { createRequire } from "node:module";
import type * as OpenapiTypescript from "openapi-typescript";
import { SpecError } from "../diagnostics.js";
import type { SurfaceModel } from "../model.js";
import { codeHeader, type Emitter } from "./file.js";
import { nameRecursiveSchemas } from "./recursive-types.js";

/**
 * openapi-typescript's CommonJS build (its package's `require` entry, the same code): its ES build
 * imports `typescript`, which makes Node 20 scan the compiler's 9 MB for its module format and
 * export names (about 0.5 s of CPU) before running it; required, it is run as it is (compiler.ts).
 */
const { default: openapiTS, astToString }: typeof OpenapiTypescript = createRequire(import.meta.url)(
  "openapi-typescript",
);

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
