/**
 * types.ts: the spec's paths, operations and components as TypeScript types, by openapi-typescript,
 * from the model's `typesDocument` (the spec with the check stage's repairs), re-indented to the
 * two spaces every other generated module uses. Schemas that reach themselves through a union or
 * array get a named alias first (recursive-types.ts), or TypeScript reports TS2502 and types them `any`.
 *
 * openapi-typescript and the compiler are loaded by the first call, not by importing this module:
 * a cold `generate` from the built CLI runs this emitter on a thread of its own (cli/generate-thread.ts)
 * and the main thread then never loads them.
 */
import { createRequire } from "node:module";
import type * as OpenapiTypescript from "openapi-typescript";
import { lendCompilerApi } from "../../runtime/internal/compiler-api.js";
import { SpecError } from "../diagnostics.js";
import type { SurfaceModel } from "../model.js";
import { codeHeader, type Emitter, type GeneratedFile } from "./file.js";

/** What the types emitter reads of a model (plain data, so it can be sent to another thread). */
export interface TypesInput {
  id: string;
  typesDocument: SurfaceModel["typesDocument"];
  specFile: string;
  specLabel: string;
}

/**
 * openapi-typescript's CommonJS build (its package's `require` entry, the same code): its ES build
 * imports `typescript`, which makes Node 20 scan the compiler's 9 MB for its module format and
 * export names (about 0.5 s of CPU) before running it; required, it is run as it is (compiler.ts).
 */
let openapiTypescript: typeof OpenapiTypescript | undefined;

/** openapi-typescript prints four spaces per level; its strings never hold a raw line break. */
function reindent(text: string): string {
  return text.replace(/^((?: {4})+)/gm, (lead: string) => " ".repeat(lead.length / 2));
}

export async function typesFile(input: TypesInput): Promise<GeneratedFile> {
  if (!openapiTypescript) {
    // A project on TypeScript 7 (no JavaScript API): openapi-typescript gets ts-morph's copy.
    lendCompilerApi("openapi-typescript", "code generation (openapi-typescript)");
    openapiTypescript = createRequire(import.meta.url)("openapi-typescript") as typeof OpenapiTypescript;
  }
  const { default: openapiTS, astToString } = openapiTypescript;
  const { nameRecursiveSchemas } = await import("./recursive-types.js");
  let ast;
  try {
    ast = await openapiTS(structuredClone(input.typesDocument) as never, { silent: true, defaultNonNullable: false });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "unknown error";
    throw new SpecError([
      {
        code: "SF201",
        severity: "error",
        message: `types could not be generated: ${message}`,
        file: input.specFile,
        line: 1,
        column: 1,
      },
    ]);
  }
  const text = reindent(astToString(nameRecursiveSchemas(ast)));
  return { path: `${input.id}/types.ts`, content: `${codeHeader(input.specLabel)}\n${text}` };
}

/** The model's parts the types emitter reads. */
export function typesInput(model: SurfaceModel, specLabel: string): TypesInput {
  return { id: model.id, typesDocument: model.typesDocument, specFile: model.spec.file, specLabel };
}

export const emitTypes: Emitter<SurfaceModel> = async (model, context) => [
  await typesFile(typesInput(model, context.specLabel)),
];
