/**
 * What the mock gets of an operation (MockOperationSpec): its parameters, body and success answer
 * with schemas made lean (no prose, no examples) and written out where they point outside the
 * components, plus the operation's `x-stepforge-mock`. The mock validates and answers with it.
 */
import { MockOperationSchema, type MockOperationSpec } from "../../runtime/mock/extension.js";
import type { OperationModel } from "../model.js";
import type { RefResolver } from "../refs.js";
import { lean } from "../schema.js";

/** A prefix no reference starts with: `inlineOutside` then writes out every reference. */
const INLINE_ALL = "\u0000";

export function mockSpec(op: Omit<OperationModel, "mock">, ext: unknown, refs: RefResolver): MockOperationSpec {
  const body = op.body;
  // The mock ships only the components: refs elsewhere in the document are inlined.
  const mockSchema = (schema: unknown) => lean(refs.inlineOutside(schema));
  // A parameter's value arrives as text, and the mock reads it as the schema's type says (an
  // integer, a list of them): a `$ref`ed schema (`{ $ref: Limit }`) is written out, or "3" stays a
  // string and fails its own integer check. Parameter schemas are small; a cycle becomes `{}`.
  const parameterSchema = (schema: unknown) => lean(refs.inlineOutside(schema, INLINE_ALL));
  return {
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    parameters: op.parameters.map((p) => {
      const explode = p.explodeWritten;
      return {
        name: p.name,
        in: p.in,
        required: p.required,
        ...(p.schema !== undefined ? { schema: parameterSchema(p.schema) } : {}),
        ...(explode !== undefined ? { explode } : {}),
      };
    }),
    ...(body
      ? {
          body: {
            required: body.required,
            contentTypes: body.contentTypes,
            ...(body.schema !== undefined ? { schema: mockSchema(body.schema) } : {}),
          },
        }
      : {}),
    success: {
      status: op.success.status,
      ...(op.success.mediaType ? { contentType: op.success.mediaType, example: op.success.example } : {}),
      // Without an example the mock answers a sample generated from the schema (runtime/mock/sample.ts).
      ...(op.success.mediaType && op.success.schema !== undefined ? { schema: mockSchema(op.success.schema) } : {}),
    },
    ...(ext !== undefined ? { mock: MockOperationSchema.parse(ext) } : {}),
  } as MockOperationSpec;
}
