/**
 * descriptor.ts, client.ts and index.ts of a service, emitted as TypeScript with ts-morph.
 *
 * The client is a class with one method per operation. Its types come from the openapi-typescript
 * `paths` (so a wrong path, a missing required parameter or a wrong body field is a compile error)
 * and its behaviour from the runtime (`createServiceClient`), which reads the descriptor.
 */
import { Project, Scope, StructureKind, VariableDeclarationKind, type MethodDeclarationStructure, type OptionalKind, type SourceFile } from "ts-morph";
import type { OperationModel, ServiceModel } from "../model.js";
import { codeHeader, pascal, type EmitContext, type Emitter, type GeneratedFile } from "./file.js";

let project: Project | undefined;

/** One in-memory project for the whole run: creating it is the slow part of ts-morph. */
function newSourceFile(path: string): SourceFile {
  project ??= new Project({ useInMemoryFileSystem: true, skipFileDependencyResolution: true });
  return project.createSourceFile(path, "", { overwrite: true });
}

function finish(file: SourceFile, context: EmitContext): string {
  const text = `${codeHeader(context.specLabel)}\n${file.getFullText().trimEnd()}\n`;
  file.forget();
  return text;
}

export const emitDescriptor: Emitter = (model, context) => {
  const file = newSourceFile(`${model.id}/descriptor.ts`);
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport, namedImports: [{ name: "ServiceDescriptor" }], isTypeOnly: true });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Everything the runtime needs to know about ${model.title}: auth, limits, error meanings and operations, from the spec's x-stepforge extensions.`],
    declarations: [{ name: "descriptor", type: "ServiceDescriptor", initializer: JSON.stringify(model.descriptor, null, 2) }],
  });
  return [{ path: `${model.id}/descriptor.ts`, content: finish(file, context) }];
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
  const file = newSourceFile(`${model.id}/client.ts`);
  file.addImportDeclaration({
    moduleSpecifier: context.runtimeImport,
    namedImports: ["createServiceClient"],
  });
  file.addImportDeclaration({
    moduleSpecifier: context.runtimeImport,
    isTypeOnly: true,
    namedImports: ["ClientOptions", "OperationData", "OperationInit", "ServiceClient"],
  });
  file.addImportDeclaration({ moduleSpecifier: "./descriptor.js", namedImports: ["descriptor"] });
  file.addImportDeclaration({ moduleSpecifier: "./types.js", isTypeOnly: true, namedImports: ["paths"] });

  // One insertion for all aliases: ts-morph reparses the file after every insertion, so adding
  // them per operation grows quadratically with the spec (minutes for GitHub's 1,200 operations).
  file.addTypeAliases(
    model.operations.flatMap((op) => {
      const opType = `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method.toLowerCase())}]`;
      return [
        { isExported: true, name: opTypeName(op, "Operation"), type: opType, docs: [`The ${op.operationId} operation as the spec describes it.`] },
        { isExported: true, name: opTypeName(op, "Input"), type: `OperationInit<${opTypeName(op, "Operation")}>`, docs: [`What ${op.operationId} takes: parameters and body.`] },
        { isExported: true, name: opTypeName(op, "Data"), type: `OperationData<${opTypeName(op, "Operation")}>`, docs: [`What ${op.operationId} returns on success.`] },
      ];
    }),
  );

  const methods: OptionalKind<MethodDeclarationStructure>[] = model.operations.map((op) => ({
    kind: StructureKind.Method,
    name: op.operationId,
    docs: [docLines(op)],
    parameters: [
      op.requiresInput
        ? { name: "init", type: opTypeName(op, "Input") }
        : { name: "init", type: opTypeName(op, "Input"), initializer: "{}" },
    ],
    returnType: `Promise<${opTypeName(op, "Data")}>`,
    statements: [`return this.core.call(${JSON.stringify(op.operationId)}, init) as Promise<${opTypeName(op, "Data")}>;`],
  }));

  file.addClass({
    isExported: true,
    name: className,
    docs: [
      `Typed client for ${model.title}: one method per operation of ${context.specLabel}.\n\n` +
        `Calls resolve to the success body or throw a StepforgeError subclass (auth, rate_limited, …).`,
    ],
    properties: [{ name: "core", isReadonly: true, scope: Scope.Public, type: "ServiceClient", docs: ["The untyped service client underneath (descriptor, base address, call by id)."] }],
    ctors: [{ parameters: [{ name: "options", type: "ClientOptions" }], statements: ["this.core = createServiceClient(descriptor, options);"] }],
    methods,
  });
  file.addFunction({
    isExported: true,
    name: `create${className}`,
    docs: [`Creates a ${className} for one named connection.`],
    parameters: [{ name: "options", type: "ClientOptions" }],
    returnType: className,
    statements: [`return new ${className}(options);`],
  });
  return [{ path: `${model.id}/client.ts`, content: finish(file, context) }];
};

/**
 * The service's index, built after the other emitters: it re-exports every module they wrote for
 * the service (client, descriptor, tools, mock, triggers …), and the spec's types as types.
 */
export function emitServiceIndex(model: ServiceModel, context: EmitContext, modules: string[]): GeneratedFile {
  const file = newSourceFile(`${model.id}/index.ts`);
  file.addStatements([`/** ${model.title}: everything generated from its spec. Import from "stepforge/${model.id}". */`]);
  for (const module of modules) file.addExportDeclaration({ moduleSpecifier: `./${module}.js` });
  file.addExportDeclaration({ moduleSpecifier: "./types.js", isTypeOnly: true, namedExports: ["paths", "components"] });
  return { path: `${model.id}/index.ts`, content: finish(file, context) };
}

/** triggers.ts: the spec's x-stepforge-triggers, validated, for the receiver, router and pollers. */
export const emitTriggers: Emitter = (model, context) => {
  if (!model.triggers) return [];
  const file = newSourceFile(`${model.id}/triggers.ts`);
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport, namedImports: [{ name: "TriggersExtension" }], isTypeOnly: true });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`${model.title} triggers: how events arrive (signature, refs, registration) and each trigger's rule and options.`],
    declarations: [{ name: "triggers", type: "TriggersExtension", initializer: JSON.stringify(model.triggers, null, 2) }],
  });
  return [{ path: `${model.id}/triggers.ts`, content: finish(file, context) }];
};

/** The root index: every service as a namespace. Importing one service's module avoids this. */
export function emitRootIndex(models: ServiceModel[], context: EmitContext): GeneratedFile {
  const file = newSourceFile("index.ts");
  for (const model of [...models].sort((a, b) => a.id.localeCompare(b.id))) {
    file.addExportDeclaration({ moduleSpecifier: `./${model.id}/index.js`, namespaceExport: model.id });
  }
  return { path: "index.ts", content: finish(file, context) };
}
