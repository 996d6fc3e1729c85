/**
 * descriptor.ts, client.ts, triggers.ts and index.ts of a service, written as plain text. (They
 * were built with ts-morph once; loading it, and the second TypeScript compiler it bundles, cost a
 * third of a second per run for files this regular.)
 *
 * The client is a class with one method per operation. Its types come from the openapi-typescript
 * `paths` (so a wrong path, a missing required parameter or a wrong body field is a compile error)
 * and its behaviour from the runtime (`createServiceClient`), which reads the descriptor.
 */
import type { OperationModel, ServiceModel } from "../model.js";
import { codeHeader, pascal, type EmitContext, type Emitter, type GeneratedFile } from "./file.js";

/** A JSDoc comment at `indent`: one line when the text is one line, else a block. */
function doc(text: string, indent = ""): string {
  const lines = text.split("\n");
  if (lines.length === 1) return `${indent}/** ${text} */`;
  return [`${indent}/**`, ...lines.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)), `${indent} */`].join("\n");
}

/** A generated module: the header, then its statements separated as given. */
function moduleText(context: EmitContext, body: string[]): string {
  return `${codeHeader(context.specLabel)}\n${body.join("\n").trimEnd()}\n`;
}

export const emitDescriptor: Emitter = (model, context) => {
  const body = [
    `import type { ServiceDescriptor } from ${JSON.stringify(context.runtimeImport)};`,
    "",
    doc(`Everything the runtime needs to know about ${model.title}: auth, limits, error meanings and operations, from the spec's x-stepforge extensions.`),
    `export const descriptor: ServiceDescriptor = ${JSON.stringify(model.descriptor, null, 2)};`,
  ];
  return [{ path: `${model.id}/descriptor.ts`, content: moduleText(context, body) }];
};

function opTypeName(op: OperationModel, suffix: string): string {
  return `${pascal(op.operationId)}${suffix}`;
}

function docLines(op: OperationModel): string {
  const lines = [op.summary, "", `\`${op.method} ${op.path}\``];
  if (op.description) lines.push("", op.description);
  if (op.seed?.differs) lines.push("", `Seed: "${op.seed.name}". ${op.seed.differs}`);
  if (op.deprecated) lines.push("", "@deprecated The service marks this operation deprecated.");
  // A "*/" inside a description would end the doc comment early.
  return lines.join("\n").replace(/\*\//g, "*\\/");
}

export const emitClient: Emitter = (model, context) => {
  const className = `${pascal(model.id)}Client`;
  const runtime = JSON.stringify(context.runtimeImport);
  const body = [
    `import { createServiceClient } from ${runtime};`,
    `import type { ClientOptions, OperationData, OperationInit, ServiceClient } from ${runtime};`,
    `import { descriptor } from "./descriptor.js";`,
    `import type { paths } from "./types.js";`,
    "",
  ];
  for (const op of model.operations) {
    const opType = `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method.toLowerCase())}]`;
    body.push(
      doc(`The ${op.operationId} operation as the spec describes it.`),
      `export type ${opTypeName(op, "Operation")} = ${opType};`,
      doc(`What ${op.operationId} takes: parameters and body.`),
      `export type ${opTypeName(op, "Input")} = OperationInit<${opTypeName(op, "Operation")}>;`,
      doc(`What ${op.operationId} returns on success.`),
      `export type ${opTypeName(op, "Data")} = OperationData<${opTypeName(op, "Operation")}>;`,
    );
  }
  const methods = model.operations.map((op) => {
    const input = opTypeName(op, "Input");
    const data = opTypeName(op, "Data");
    return [
      doc(docLines(op), "    "),
      `    ${op.operationId}(init: ${input}${op.requiresInput ? "" : " = {}"}): Promise<${data}> {`,
      `        return this.core.call(${JSON.stringify(op.operationId)}, init) as Promise<${data}>;`,
      "    }",
    ].join("\n");
  });
  body.push(
    "",
    doc(
      `Typed client for ${model.title}: one method per operation of ${context.specLabel}.\n\n` +
        `Calls resolve to the success body or throw a StepforgeError subclass (auth, rate_limited, …).`,
    ),
    `export class ${className} {`,
    doc("The untyped service client underneath (descriptor, base address, call by id).", "    "),
    "    public readonly core: ServiceClient;",
    "",
    "    constructor(options: ClientOptions) {",
    "        this.core = createServiceClient(descriptor, options);",
    "    }",
    ...methods.flatMap((method) => ["", method]),
    "}",
    "",
    doc(`Creates a ${className} for one named connection.`),
    `export function create${className}(options: ClientOptions): ${className} {`,
    `    return new ${className}(options);`,
    "}",
  );
  return [{ path: `${model.id}/client.ts`, content: moduleText(context, body) }];
};

/**
 * The service's index, built after the other emitters: it re-exports every module they wrote for
 * the service (client, descriptor, tools, mock, triggers …), and the spec's types as types.
 */
export function emitServiceIndex(model: ServiceModel, context: EmitContext, modules: string[]): GeneratedFile {
  const body = [
    doc(`${model.title}: everything generated from its spec. Import from "stepforge/${model.id}".`),
    ...modules.map((module) => `export * from "./${module}.js";`),
    `export type { paths, components } from "./types.js";`,
  ];
  return { path: `${model.id}/index.ts`, content: moduleText(context, body) };
}

/** triggers.ts: the spec's x-stepforge-triggers, validated, for the receiver, router and pollers. */
export const emitTriggers: Emitter = (model, context) => {
  if (!model.triggers) return [];
  const body = [
    `import type { TriggersExtension } from ${JSON.stringify(context.runtimeImport)};`,
    "",
    doc(`${model.title} triggers: how events arrive (signature, refs, registration) and each trigger's rule and options.`),
    `export const triggers: TriggersExtension = ${JSON.stringify(model.triggers, null, 2)};`,
  ];
  return [{ path: `${model.id}/triggers.ts`, content: moduleText(context, body) }];
};

/** The root index: every service as a namespace. Importing one service's module avoids this. */
export function emitRootIndex(models: ServiceModel[], context: EmitContext): GeneratedFile {
  const body = [...models].sort((a, b) => a.id.localeCompare(b.id)).map((model) => `export * as ${model.id} from "./${model.id}/index.js";`);
  return { path: "index.ts", content: moduleText(context, body) };
}
