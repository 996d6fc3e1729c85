/**
 * client.ts of a service: a class with one method per operation. Its types come from the
 * openapi-typescript `paths` (so a wrong path, a missing required parameter or a wrong body field
 * is a compile error) and its behaviour from the runtime (`createServiceClient`), which reads the
 * descriptor. Method names are the model's operationIds (made safe by the check stage's name
 * table); the type names beside them go through this module's own table.
 */
import type { OperationModel } from "../model.js";
import { NameTable } from "../names.js";
import { ident, jsdoc, str } from "../print.js";
import { moduleText, pascal, type Emitter } from "./file.js";

/** Names this module imports or declares besides the per-operation ones. */
const IMPORTED = ["createServiceClient", "ClientOptions", "OperationData", "OperationInit", "ServiceClient", "descriptor", "paths"];

function docLines(op: OperationModel): string {
  const lines = [op.summary, "", `\`${op.method} ${op.path}\``];
  if (op.description) lines.push("", op.description);
  if (op.seed?.differs) lines.push("", `Seed: "${op.seed.name}". ${op.seed.differs}`);
  if (op.deprecated) lines.push("", "@deprecated The service marks this operation deprecated.");
  return lines.join("\n");
}

export const emitClient: Emitter = (model, context) => {
  const className = `${pascal(model.id)}Client`;
  const names = new NameTable([...IMPORTED, className, `create${className}`]);
  const runtime = str(context.runtimeImport);
  const body = [
    `import { createServiceClient } from ${runtime};`,
    `import type { ClientOptions, OperationData, OperationInit, ServiceClient } from ${runtime};`,
    `import { descriptor } from "./descriptor.js";`,
    `import type { paths } from "./types.js";`,
    "",
  ];
  const methods: string[] = [];
  for (const op of model.operations) {
    const base = pascal(op.operationId);
    const [operation, input, data] = ["Operation", "Input", "Data"].map((suffix) => ident(names.claim(`${base}${suffix}`, op.operationId).name));
    body.push(
      jsdoc(`The ${op.operationId} operation as the spec describes it.`),
      `export type ${operation} = paths[${str(op.path)}][${str(op.method.toLowerCase())}];`,
      jsdoc(`What ${op.operationId} takes: parameters and body.`),
      `export type ${input} = OperationInit<${operation}>;`,
      jsdoc(`What ${op.operationId} returns on success.`),
      `export type ${data} = OperationData<${operation}>;`,
    );
    methods.push(
      [
        jsdoc(docLines(op), "  "),
        `  ${ident(op.operationId)}(init: ${input}${op.requiresInput ? "" : " = {}"}): Promise<${data}> {`,
        `    return this.core.call(${str(op.operationId)}, init) as Promise<${data}>;`,
        "  }",
      ].join("\n"),
    );
  }
  body.push(
    "",
    jsdoc(`Typed client for ${model.title}: one method per operation of ${context.specLabel}.\n\nCalls resolve to the success body or throw a StepforgeError subclass (auth, rate_limited, …).`),
    `export class ${className} {`,
    jsdoc("The untyped service client underneath (descriptor, base address, call by id).", "  "),
    "  public readonly core: ServiceClient;",
    "",
    "  constructor(options: ClientOptions) {",
    "    this.core = createServiceClient(descriptor, options);",
    "  }",
    ...methods.flatMap((method) => ["", method]),
    "}",
    "",
    jsdoc(`Creates a ${className} for one named connection.`),
    `export function create${className}(options: ClientOptions): ${className} {`,
    `  return new ${className}(options);`,
    "}",
  );
  return [{ path: `${model.id}/client.ts`, content: moduleText(context.specLabel, body) }];
};
