/**
 * Every part of the check stage that parts.ts keeps out of its module graph: the `x-stepforge`
 * extensions read with their zod schemas, and the behavioural mock built. checkSpec (index.ts)
 * checks with these.
 */
import { OperationExtensionsSchema } from "../../runtime/descriptor-schemas.js";
import type { ServiceExtension } from "../../runtime/descriptor.js";
import type { MockService } from "../../runtime/mock/extension.js";
import { pointerResolver } from "../../runtime/mock/sample.js";
import { schemaChecker } from "../../runtime/mock/schema-conforms.js";
import { OperationToolSchema } from "../../runtime/tools/extension.js";
import { TriggersExtensionSchema } from "../../runtime/triggers/extension.js";
import type { OperationModel, ServiceModel } from "../model.js";
import type { Json } from "../refs.js";
import { reportProtoKeys, reportZod, type CheckContext } from "./context.js";
import { checkServiceExtension } from "./extension.js";
import { checkMockExamples } from "./mock-examples.js";
import { declaredExplain, inferMock } from "./mock-infer.js";
import { mockSpec } from "./mock-operation.js";
import { checkRouteConflicts } from "./routes.js";
import type { ExtensionParts } from "./parts.js";

export const EXTENSION_PARTS: ExtensionParts = {
  serviceExtension: checkServiceExtension,
  operationExtensions: (context, written, at) => {
    const parsed = OperationExtensionsSchema.safeParse(written);
    if (!parsed.success) reportZod(parsed.error, at, context.report);
    reportProtoKeys(written, at, context);
    return parsed.success ? parsed.data : {};
  },
  operationTool: (raw) => {
    const parsed = OperationToolSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  },
  triggers: (context, raw, at) => {
    const parsed = TriggersExtensionSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    reportZod(parsed.error, at, context.report);
    return undefined;
  },
  routeConflicts: checkRouteConflicts,
  mockSpec: (op, ext, context) => mockSpec(op, ext, context.refs),
  mock: checkMock,
};

/** The mock of a checked spec: the examples it serves picked, and what the spec does not declare inferred. */
function checkMock(
  context: CheckContext,
  modelDoc: Json,
  extension: ServiceExtension,
  operations: OperationModel[],
): Pick<ServiceModel, "mock" | "mockExplain"> {
  checkMockExamples(context, operations);
  const checker = schemaChecker({ resolve: pointerResolver(modelDoc) });
  const accepts = (schema: unknown, value: unknown) => {
    try {
      return checker.conforms(schema, value);
    } catch {
      return true; // a schema the checker cannot read judges nothing
    }
  };
  const declaredMock = extension.mock as Partial<MockService> | undefined;
  const whole = declaredMock !== undefined && MOCK_KEYS.every((key) => key in declaredMock);
  const inferred = whole ? undefined : inferMock(context.refs, modelDoc, extension, operations, accepts);
  return {
    mock: extension.mock ? completeMock(extension.mock, inferred?.mock) : inferred!.mock,
    mockExplain: inferred?.explain ?? declaredExplain(extension, operations),
  };
}

/** The keys a declared mock may leave out (the others have defaults): any missing is inferred. */
const MOCK_KEYS = ["credentials", "error", "answers"] as const;

/**
 * A declared mock with what it leaves out inferred, as for a plain spec. What it declares keeps
 * its place (and the output its order). Declared credentials are the only ones accepted: the
 * inferred "any well-formed credential" does not widen them.
 */
function completeMock(declared: MockService, inferred: MockService | undefined): MockService {
  if (!inferred) return declared;
  const fill = Object.entries(inferred).filter(
    ([key]) => !(key in declared) && !(key === "anyCredential" && "credentials" in declared),
  );
  return { ...declared, ...Object.fromEntries(fill) } as MockService;
}
