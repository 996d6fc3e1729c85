/**
 * types.ts: the spec's paths, operations and components as TypeScript types, by openapi-typescript.
 */
import openapiTS, { astToString } from "openapi-typescript";
import { SpecError } from "../diagnostics.js";
import { codeHeader, type Emitter } from "./file.js";

export const emitTypes: Emitter = async (model, context) => {
  let ast;
  try {
    // The model already checked references; openapi-typescript gets a copy without our extensions'
    // influence on types (x- keys are ignored by it).
    ast = await openapiTS(structuredClone(model.spec.data) as never, { silent: true });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "unknown error";
    throw new SpecError([{ code: "SF201", severity: "error", message: `types could not be generated: ${message}`, file: model.spec.file, line: 1, column: 1 }]);
  }
  return [{ path: `${model.id}/types.ts`, content: `${codeHeader(context.specLabel)}\n${astToString(ast)}` }];
};
