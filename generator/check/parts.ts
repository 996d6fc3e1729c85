/**
 * The parts of the check stage that read the `x-stepforge` extensions with their zod schemas, or
 * build the behavioural mock. The stage (stage.ts) reaches them through its context, not through
 * imports: zod (~0.1 s to load, and as much again for the extension schemas), the mock's inference,
 * router and sampler stay out of its module graph. checkSpec (index.ts) gives it every part
 * (zod-parts.ts); `stepforge diff` of documents that write no extension and build no mock gives
 * NO_PARTS and loads none of it, since its check stage is on the path to its result.
 */
import type { ServiceExtension } from "../../runtime/descriptor.js";
import type { OperationExtensionsSchema } from "../../runtime/descriptor-schemas.js";
import type { MockOperationSpec } from "../../runtime/mock/model.js";
import type { OperationTool } from "../../runtime/tools/model.js";
import type { TriggersExtension } from "../../runtime/triggers/model.js";
import type { OperationModel, ServiceModel } from "../model.js";
import type { Json } from "../refs.js";
import type { CheckContext, Path } from "./context.js";

export type OperationExtensions = ReturnType<typeof OperationExtensionsSchema.parse>;

export interface ExtensionParts {
  /** `x-stepforge` checked, with what it leaves out derived (extension.ts); undefined when it has errors. */
  serviceExtension(context: CheckContext, serviceId: string | undefined): ServiceExtension | undefined;
  /** An operation's `x-stepforge-*` keys (some written) parsed; `{}` when they do not match (reported). */
  operationExtensions(context: CheckContext, written: Json, at: Path): OperationExtensions;
  /** A written `x-stepforge-tool`, or undefined when it does not match its schema (checkToolSteps reports it). */
  operationTool(raw: unknown): OperationTool | undefined;
  /** A written `x-stepforge-triggers`, or undefined when it does not match its schema (reported). */
  triggers(context: CheckContext, raw: unknown, at: Path): TriggersExtension | undefined;
  /** SF193: operations the mock's router cannot tell apart (routes.ts). */
  routeConflicts(context: CheckContext, operations: OperationModel[], baseUrl: string): void;
  /** What the mock gets of an operation (mock-operation.ts). */
  mockSpec(op: Omit<OperationModel, "mock">, ext: unknown, context: CheckContext): MockOperationSpec;
  /** The mock of a checked spec: its examples picked, and what the spec does not declare inferred. */
  mock(
    context: CheckContext,
    modelDoc: Json,
    extension: ServiceExtension,
    operations: OperationModel[],
  ): Pick<ServiceModel, "mock" | "mockExplain">;
}

/**
 * For a lenient, surface-only check of a document where writesExtensions (extension-keys.ts) finds
 * no key: the stage asks for no part then, so asking is a caller's mistake, said as one.
 */
export const NO_PARTS: ExtensionParts = {
  serviceExtension: () => missing("x-stepforge"),
  operationExtensions: () => missing("an operation's x-stepforge-* keys"),
  operationTool: () => missing("x-stepforge-tool"),
  triggers: () => missing("x-stepforge-triggers"),
  routeConflicts: () => missing("the mock's routes"),
  mockSpec: () => missing("the mock"),
  mock: () => missing("the mock"),
};

function missing(what: string): never {
  throw new Error(`the check was given no parts for ${what}: check this document with checkSpec (check/index.ts)`);
}
