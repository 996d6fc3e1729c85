/**
 * descriptor.ts and triggers.ts of a service: data the runtime reads, printed as object literals.
 * The descriptor is what every client ships (auth, limits, error meanings, operations); the mock
 * section lives in mock.ts, which only the mock imports.
 */
import {
  type DeclaredDescriptor,
  idempotentByMethod,
  limitClassByMethod,
  type OperationDescriptor,
  type ShippedOperation,
} from "../../runtime/descriptor.js";
import { call, type Code, constStatement, jsdoc, key, literal, obj, str } from "../print.js";
import { moduleText, type Emitter } from "./file.js";

/** Drops `description` from each rule or limit: the texts stay in the spec and its docs (ShippedLimit). */
const undescribed = <T extends { description?: string | undefined }>(item: T): Omit<T, "description"> => {
  const { description: _text, ...rest } = item;
  return rest;
};

/** An operation without what withOperationDefaults fills in: its id, and what its method gives. */
function shippedOperation(op: OperationDescriptor): ShippedOperation {
  const { operationId: _id, idempotent, limitClass, ...rest } = op;
  return {
    ...rest,
    ...(idempotent === idempotentByMethod(op.method) ? {} : { idempotent }),
    ...(limitClass === limitClassByMethod(op.method) ? {} : { limitClass }),
  };
}

/**
 * The descriptor as clients ship it (runtime/descriptor.ts ServiceDescriptor): without the texts
 * of limits and error rules, each operation's id given once, as its key, and its idempotence and
 * limit class only when the spec's differ from its method's (`withOperationDefaults` fills them in
 * when the module loads).
 */
export function shippedDescriptor(descriptor: DeclaredDescriptor): Code {
  const { limits, errors, operations, ...rest } = descriptor;
  const rules = (byKey: Record<string, { description?: string | undefined }>) =>
    Object.fromEntries(Object.entries(byKey).map(([k, rule]) => [k, undescribed(rule)]));
  const shipped = {
    ...rest,
    limits: limits.map(undescribed),
    errors: { ...errors, codes: rules(errors.codes), statuses: rules(errors.statuses) },
  };
  const entries = (value: object) =>
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, Code] => [key(k), literal(v)]);
  const ops = Object.fromEntries(Object.entries(operations).map(([id, op]) => [id, shippedOperation(op)]));
  return obj([...entries(shipped), ["operations", call("withOperationDefaults", obj(entries(ops)))]]);
}

export const emitDescriptor: Emitter = (model, context) => {
  const body = [
    `import { type ServiceDescriptor, withOperationDefaults } from ${str(context.runtimeImport)};`,
    "",
    jsdoc(
      `Everything the runtime needs to know about ${model.title}: auth, limits, error ` +
        `meanings and operations, from the spec's x-stepforge extensions.`,
    ),
    constStatement("descriptor", shippedDescriptor(model.descriptor), { exported: true, type: "ServiceDescriptor" }),
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
