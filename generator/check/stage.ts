/**
 * Stage 2: check. The one check stage `lint` and `generate` share: it checks an OpenAPI document
 * and its `x-stepforge` extensions (tool steps included) and builds the normalised model. Every
 * problem becomes a diagnostic at its place (file:line:col and a JSON pointer); the stage
 * collects them all before giving up, so an author fixes a spec in one pass.
 *
 * Specs with `x-stepforge` (the project's) and `--strict` runs are strict: every defect is an
 * error. A foreign spec is lenient: defects with one safe repair are repaired, each reported as a
 * warning with its place, and unknown schema keywords are warnings.
 *
 * What reads the extensions with zod and what builds the mock come in as parts (parts.ts):
 * checkSpec (index.ts) gives every part; `stepforge diff` of a plain spec gives none and so loads
 * neither zod nor the mock's modules.
 */
import type { OperationDescriptor } from "../../runtime/descriptor.js";
import type { OperationTool } from "../../runtime/tools/extension.js";
import { SpecError, type Diagnostic } from "../diagnostics.js";
import type { LoadedSpec } from "../load.js";
import type { ServiceModel, SurfaceModel, SurfaceOperation } from "../model.js";
import { asObject, isObject, RefResolver } from "../refs.js";
import type { CheckContext, Path } from "./context.js";
import { deriveExtension } from "./derive.js";
import { checkExamples } from "./examples.js";
import { checkUnknownExtensions, ROOT_EXTENSION } from "./extension-keys.js";
import { sentMediaTypeOf } from "./bodies.js";
import { checkOperations } from "./operations.js";
import type { ExtensionParts } from "./parts.js";
import { typesDocument } from "./types-document.js";
import { serializationOf } from "./serialization.js";
import { operationServer } from "./servers.js";
import { checkPathParametersRequired } from "./path-parameters.js";
import { reportBrokenRef } from "./suggest.js";
import { normaliseDocument } from "./normalise.js";
import { addWriteVariants, needsWriteVariants } from "./request-types.js";
import { bareDiscriminatorNames, checkSchemaKeywords } from "./schemas.js";
import { checkToolSteps } from "./tools.js";
import { checkTriggers } from "./triggers.js";

export interface CheckOptions {
  /** Service id for a spec without `x-stepforge` (a foreign spec); derived from the title if absent. */
  serviceId?: string;
  /** Refuse defects a foreign spec would have repaired. */
  strict?: boolean;
  /**
   * Whether a lenient check validates examples (a strict one always does). Off for `stepforge diff`:
   * in a lenient check a mismatch is only a warning, which diff does not show, and nothing is repaired.
   */
  lenientExamples?: boolean;
}

/**
 * For `stepforge diff` (surfaceOnly): the model without what only the behavioural mock uses — its
 * inference (about a sixth of checking a large foreign spec), the examples it serves, and, in a
 * lenient check, the route conflicts of its router (there only warnings, which diff does not
 * show). None of them reports an error diff would miss: inference and example picking report
 * nothing, and a strict check still looks for route conflicts. See SurfaceModel.
 */
export interface SurfaceOnly {
  surfaceOnly: true;
}

export function checkStage(spec: LoadedSpec, options: CheckOptions & SurfaceOnly, parts: ExtensionParts): SurfaceModel;
export function checkStage(spec: LoadedSpec, options: CheckOptions, parts: ExtensionParts): ServiceModel;
export function checkStage(
  spec: LoadedSpec,
  options: CheckOptions & Partial<SurfaceOnly>,
  parts: ExtensionParts,
): ServiceModel | SurfaceModel {
  const surfaceOnly = options.surfaceOnly === true;
  const doc = spec.data;
  const diagnostics: Diagnostic[] = [];
  const declared = doc[ROOT_EXTENSION] !== undefined;
  const strict = declared || options.strict === true;
  const context: CheckContext = {
    spec,
    doc,
    refs: new RefResolver(doc),
    strict,
    diagnostics,
    parts,
    report: (code, path, message, severity = "error") =>
      void diagnostics.push(spec.diagnostic(code, path, message, severity)),
    repair: (code, path, problem, fix, repaired) =>
      void diagnostics.push(
        strict
          ? spec.diagnostic(code, path, `${problem}; ${fix}${declared ? "" : " (refused: --strict)"}`)
          : spec.diagnostic(code, path, `${problem}; ${repaired}`, "warning"),
      ),
  };
  const fail = () => new SpecError(diagnostics);
  const errors = () => diagnostics.some((d) => d.severity === "error");

  const version = doc.openapi;
  if (typeof version !== "string" || !/^3\.[01]\.\d+$/.test(version)) {
    const found = typeof doc.swagger === "string" ? `Swagger ${doc.swagger}` : JSON.stringify(version ?? null);
    // A newer 3.x is not "not OpenAPI 3": say which versions are read instead of asking for a conversion.
    const fix =
      typeof version === "string" && /^3\./.test(version)
        ? "stepforge reads OpenAPI 3.0.x and 3.1.x; write the document as 3.1"
        : "convert the document to OpenAPI 3 first";
    context.report("SF101", ["openapi"], `expected "openapi: 3.1.x" (or 3.0.x), found ${found}; ${fix}`);
    throw fail();
  }
  const info = asObject(doc.info);
  if (!info || typeof info.title !== "string")
    context.report("SF102", ["info"], "info.title is required: it names the service in generated code and docs");
  // OpenAPI 3.1 makes paths optional (a document may describe only webhooks or components).
  const pathsOptional =
    !strict &&
    version.startsWith("3.1") &&
    (asObject(doc.webhooks) !== undefined || asObject(doc.components) !== undefined);
  if (!asObject(doc.paths) && !(pathsOptional && doc.paths === undefined)) {
    context.report("SF103", ["paths"], "the spec has no `paths` object; add the operations to generate a client for");
    throw fail();
  }

  checkRefs(context, doc, []);
  checkUnknownExtensions(context);
  const patterns = checkSchemaKeywords(context);
  // Defects Spectral's OpenAPI rules report in lint, checked here so generate says the same (on the
  // document as written: their places are the author's).
  checkPathParametersRequired(context);
  if (strict || options.lenientExamples !== false) checkExamples(context);
  // From here on the model reads the document with one pattern reading and references by name.
  const modelDoc = normaliseDocument(doc, patterns);
  context.doc = modelDoc;
  context.refs = new RefResolver(modelDoc);
  const extension = declared
    ? parts.serviceExtension(context, options.serviceId)
    : deriveExtension(context, options.serviceId);

  const types = typesDocument(modelDoc);
  // Spellings openapi-typescript does not follow, rewritten in the document it types (same meaning).
  const replace = (path: Path, value: unknown) =>
    types.patch((copy) => {
      let node: unknown = copy;
      for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
      (node as Record<string | number, unknown>)[path.at(-1)!] = value;
    });
  for (const { path, ref } of bareDiscriminatorNames(modelDoc)) replace(path, ref);
  if (needsWriteVariants(modelDoc)) types.patch(addWriteVariants);
  // Each operation's mock spec is for the mock and its route conflicts (refused in a strict spec).
  const mocked = strict || !surfaceOnly ? checkOperations(context, types, true) : undefined;
  const operations: SurfaceOperation[] = mocked ?? checkOperations(context, types, false);
  if (mocked) parts.routeConflicts(context, mocked, extension?.connection.baseUrl ?? "");
  if (operations.length === 0 && !errors()) {
    const message = "the spec has no operations; add at least one method under `paths`";
    if (strict) context.report("SF104", ["paths"], message);
    else context.report("SF104", ["paths"], `${message} (generating types and an empty client)`, "warning");
  }
  const triggers = checkTriggers(context, operations);

  // Tool steps are checked here, not while printing, so lint and generate agree (SF301).
  const overrides = new Map<string, OperationTool>();
  for (const op of operations) {
    const raw = asObject(asObject(asObject(doc.paths)?.[op.path])?.[op.method.toLowerCase()])?.["x-stepforge-tool"];
    const parsed = raw === undefined ? undefined : parts.operationTool(raw);
    if (parsed) overrides.set(op.operationId, parsed);
  }
  const tools =
    extension && !errors() ? checkToolSteps(context, extension.id, operations, extension.tools, overrides) : undefined;

  if (errors() || !extension || !tools) throw fail();

  // The mock: the example it answers picked (invalid ones are SF192); a mock the spec does not declare inferred,
  // with the paging of its lists, before the descriptor takes each operation's paging.
  const mockParts = surfaceOnly || !mocked ? undefined : parts.mock(context, modelDoc, extension, mocked);

  const descriptorOperations: Record<string, OperationDescriptor> = {};
  for (const op of operations) {
    const serialization = serializationOf(op.parameters);
    const server = operationServer(doc, op.path, op.method);
    descriptorOperations[op.operationId] = {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      idempotent: op.idempotent,
      limitClass: op.limitClass,
      ...(op.paging ? { paging: op.paging } : {}),
      ...(serialization ? { serialization } : {}),
      ...(server ? { server } : {}),
      ...(sentMediaTypeOf(op.body) ? { requestMediaType: sentMediaTypeOf(op.body) } : {}),
    };
  }
  const { tools: _tools, mock: _mock, ...serviceExtension } = extension;
  const model: SurfaceModel & Partial<Pick<ServiceModel, "mock" | "mockExplain">> = {
    spec,
    id: extension.id,
    title: extension.title,
    version: typeof info?.version === "string" ? info.version : "",
    description: typeof info?.description === "string" ? info.description.trim() : "",
    declared,
    descriptor: { ...serviceExtension, operations: descriptorOperations },
    operations,
    toolSteps: tools.steps,
    apiCall: tools.apiCall,
    toolsets: tools.toolsets,
    ...(tools.toolsetsFromTags && tools.toolsets.length > 0 ? { toolsetsFromTags: true } : {}),
    ...mockParts,
    components: asObject(modelDoc.components) ?? {},
    refs: context.refs,
    ...(triggers ? { triggers } : {}),
    typesDocument: types.get(),
    warnings: diagnostics.filter((d) => d.severity === "warning"),
  };
  return model;
}

function checkRefs(context: CheckContext, node: unknown, at: Path): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => checkRefs(context, child, [...at, i]));
    return;
  }
  if (!isObject(node)) return;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    if (!ref.startsWith("#/"))
      context.report(
        "SF106",
        [...at, "$ref"],
        `external reference "${ref}" is not supported; bundle the spec into one file first`,
      );
    else if (context.refs.pointer(ref) === undefined) reportBrokenRef(context, [...at, "$ref"], ref);
  }
  for (const [key, child] of Object.entries(node)) {
    // Examples are data, not schema: a "$ref" key inside an example is just a value.
    if (key === "example" || (key === "examples" && at.at(-1) !== "components")) continue;
    checkRefs(context, child, [...at, key]);
  }
}
