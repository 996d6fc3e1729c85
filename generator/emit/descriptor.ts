/**
 * descriptor.ts and triggers.ts of a service: data the runtime reads, printed as object literals.
 * The descriptor is what every client ships (auth, limits, error meanings, operations); the mock
 * section lives in mock.ts, which only the mock imports.
 */
import { constStatement, jsdoc, literal, str } from "../print.js";
import { moduleText, type Emitter } from "./file.js";

export const emitDescriptor: Emitter = (model, context) => {
  const body = [
    `import type { ServiceDescriptor } from ${str(context.runtimeImport)};`,
    "",
    jsdoc(
      `Everything the runtime needs to know about ${model.title}: auth, limits, error ` +
        `meanings and operations, from the spec's x-stepforge extensions.`,
    ),
    constStatement("descriptor", literal(model.descriptor), { exported: true, type: "ServiceDescriptor" }),
  ];
  return [{ path: `${model.id}/descriptor.ts`, content: moduleText(context.specLabel, body) }];
};

/** triggers.ts: the spec's x-stepforge-triggers, validated, for the receiver, router and pollers. */
export const emitTriggers: Emitter = (model, context) => {
  if (!model.triggers) return [];
  const body = [
    `import type { TriggersExtension } from ${str(context.runtimeImport)};`,
    "",
    jsdoc(
      `${model.title} triggers: how events arrive (signature, refs, registration) and each trigger's rule and options.`,
    ),
    constStatement("triggers", literal(model.triggers), { exported: true, type: "TriggersExtension" }),
  ];
  return [{ path: `${model.id}/triggers.ts`, content: moduleText(context.specLabel, body) }];
};
