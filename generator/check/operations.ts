/**
 * Operations: each method under `paths` checked and normalised into an OperationModel —
 * operationId (made a method name through the client's name table), parameters (path-item and
 * operation lists merged, `$ref`s resolved, style and explode worked out), body, success response
 * and what the mock validates and answers. Defects with one safe repair (missing, invalid,
 * duplicate or case-colliding operationIds, undeclared path parameters) are repaired in lenient
 * mode and recorded in `typesDocument` too, so the types agree with the client.
 *
 * This module walks `paths` and puts each operation together; its parts are operation-ids.ts,
 * parameters.ts, bodies.ts (request body, success response) and mock-operation.ts (what the mock
 * gets), with methods.ts and types-document.ts beneath them.
 */
import { type HttpMethod, idempotentByMethod, limitClassByMethod } from "../../runtime/descriptor.js";
import type { BodyModel, OperationModel, ParameterModel, SurfaceOperation } from "../model.js";
import { NameTable } from "../names.js";
import { asArray, asObject, type Json } from "../refs.js";
import { bodyOf, requestMediaTypeOf, successOf } from "./bodies.js";
import { describeValue, type CheckContext, type Path } from "./context.js";
import { OPERATION_EXTENSIONS } from "./extension-keys.js";
import { METHODS, UNSENDABLE_METHODS } from "./methods.js";
import { CLIENT_RESERVED, operationIdOf } from "./operation-ids.js";
import { checkParameterList, checkPathParameters, collectParameters } from "./parameters.js";
import type { TypesDocument } from "./types-document.js";

/** The operations of the document; with `mocks`, each with what the mock validates and answers. */
export function checkOperations(context: CheckContext, types: TypesDocument, mocks: true): OperationModel[];
export function checkOperations(context: CheckContext, types: TypesDocument, mocks: boolean): SurfaceOperation[];
export function checkOperations(context: CheckContext, types: TypesDocument, mocks: boolean): SurfaceOperation[] {
  const { doc } = context;
  const paths = asObject(doc.paths) ?? {};
  const operations: SurfaceOperation[] = [];
  const names = new NameTable(CLIENT_RESERVED);
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!path.startsWith("/")) context.report("SF110", ["paths", path], `path "${path}" must start with "/"`);
    if (/%(?![0-9A-Fa-f]{2})/.test(path))
      context.report(
        "SF110",
        ["paths", path],
        `path "${path}" has a "%" that starts no %-escape; write a literal % as %25`,
      );
    const item = pathItemOf(context, path, rawItem);
    if (!item) continue;
    checkParameterList(context, item.parameters, ["paths", path]);
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (!op) {
        if (item[method] !== undefined)
          context.report(
            "SF116",
            ["paths", path, method],
            `operation ${method.toUpperCase()} ${path} must be an object, not ${describeValue(item[method])}`,
          );
        continue;
      }
      const at: Path = ["paths", path, method];
      checkParameterList(context, op.parameters, at);
      const operationId = operationIdOf(context, names, op, method, path, at, types);
      if (operationId === undefined) continue;
      operations.push(operationModel(context, types, { path, method, item, op, at, operationId }, mocks));
    }
    reportUnsendable(context, item, path);
  }
  return operations;
}

/**
 * The path item at `path`, its `$ref` followed with the one resolver (3.1
 * `#/components/pathItems/…`, or another path's item) so its operations are not lost; reported
 * and undefined when it is not an object of operations.
 */
function pathItemOf(context: CheckContext, path: string, raw: unknown): Json | undefined {
  const at: Path = ["paths", path];
  const ref = asObject(raw)?.$ref;
  if (typeof ref !== "string") {
    if (!asObject(raw))
      context.report(
        "SF116",
        at,
        `path item "${path}" must be an object of operations (get, post, ...), not ${describeValue(raw)}`,
      );
    return asObject(raw);
  }
  // An external or dangling $ref is SF106/SF107 already, at this path's $ref.
  if (!ref.startsWith("#/") || context.refs.pointer(ref) === undefined) return undefined;
  const target = context.refs.target(raw);
  if (!asObject(target)) {
    const found = target === undefined ? "a chain of $refs that never ends" : describeValue(target);
    context.report(
      "SF116",
      [...at, "$ref"],
      `path item "${path}" refers to "${ref}", which must be an object of operations (get, post, ...), not ${found}`,
    );
    return undefined;
  }
  return context.refs.deref(raw);
}

/** Said, not silently dropped: the operation is in the spec, but no client method could send it. */
function reportUnsendable(context: CheckContext, item: Json, path: string): void {
  for (const method of UNSENDABLE_METHODS) {
    if (item[method] === undefined) continue;
    const where = `${method.toUpperCase()} ${path}`;
    context.repair(
      "SF119",
      ["paths", path, method],
      `${where} cannot be sent: fetch refuses the ${method.toUpperCase()} method`,
      "remove the operation",
      "left it out of the client, the tool steps and the mock",
    );
  }
}

interface RawOperation {
  path: string;
  method: string;
  item: Json;
  op: Json;
  at: Path;
  operationId: string;
}

function operationModel(
  context: CheckContext,
  types: TypesDocument,
  raw: RawOperation,
  mocks: boolean,
): SurfaceOperation {
  const { path, method, item, op, at, operationId } = raw;
  const written = pickExtensions(op);
  // Nothing written parses as nothing: a plain operation asks no part for its extensions.
  const ext = Object.keys(written).length > 0 ? context.parts.operationExtensions(context, written, at) : {};

  const parameters = collectParameters(context, asArray(item.parameters), asArray(op.parameters));
  checkPathParameters(context, types, raw, parameters);
  const body = bodyOf(context, op.requestBody);
  reportUnsent(context, raw, body, parameters);
  const success = successOf(context, op.responses);
  const httpMethod = method.toUpperCase() as HttpMethod;
  const paging = ext["x-stepforge-paging"];
  if (paging) {
    const known = new Set(parameters.map((p) => p.name));
    const need =
      paging.style === "token"
        ? [
            ["tokenParam", paging.tokenParam],
            ["sizeParam", paging.sizeParam],
          ]
        : paging.style === "page"
          ? [
              ["pageParam", paging.pageParam],
              ["sizeParam", paging.sizeParam],
            ]
          : [
              ["offsetParam", paging.offsetParam],
              ["limitParam", paging.limitParam],
            ];
    for (const [key, name] of need) {
      if (name !== undefined && !known.has(name))
        context.report(
          "SF131",
          [...at, "x-stepforge-paging", key!],
          `${key} "${name}" is not a parameter of this operation; declare it under parameters or fix the name`,
        );
    }
  }
  const seed = ext["x-stepforge-seed"];
  const model: Omit<OperationModel, "mock"> = {
    operationId,
    method: httpMethod,
    path,
    summary: typeof op.summary === "string" && op.summary.trim() ? op.summary.trim() : operationId,
    description: typeof op.description === "string" ? op.description.trim() : "",
    tags: asArray(op.tags).filter((t): t is string => typeof t === "string"),
    deprecated: op.deprecated === true,
    parameters,
    body,
    hasBody: body !== undefined,
    bodyRequired: body?.required === true,
    success,
    requiresInput: body?.required === true || parameters.some((p) => p.required),
    idempotent: ext["x-stepforge-idempotent"] ?? idempotentByMethod(httpMethod),
    limitClass: ext["x-stepforge-limit-class"] ?? limitClassByMethod(httpMethod),
    paging,
    seed: seed ? { name: seed.name, differs: seed.differs } : undefined,
  };
  return mocks ? { ...model, mock: context.parts.mockSpec(model, ext["x-stepforge-mock"], context) } : model;
}

function pickExtensions(op: Json): Json {
  return Object.fromEntries(Object.entries(op).filter(([k]) => OPERATION_EXTENSIONS.includes(k)));
}

/**
 * Warnings for what the client would mis-send or leave out, rather than silence: a request body
 * with no JSON media type (the client serialises a body as JSON) and cookie parameters.
 */
function reportUnsent(
  context: CheckContext,
  raw: RawOperation,
  body: BodyModel | undefined,
  parameters: ParameterModel[],
): void {
  const where = `${raw.method.toUpperCase()} ${raw.path}`;
  const mediaType = requestMediaTypeOf(body);
  // Said only where something is still not sent as the spec says: form fields and bytes go right
  // through the client and the tool step; the step takes multipart parts and text too.
  // The client sends every media type (runtime/client/request.ts rawBody): form and multipart from
  // an object, any other from the string or bytes the call gives.
  const clientSends = mediaType !== undefined;
  const stepTakes = body?.raw !== undefined && body.raw.kind !== "other";
  if (body && mediaType && !(clientSends && stepTakes)) {
    const client = clientSends
      ? `the client sends it as ${mediaType}`
      : "the client sends a body as JSON unless the call passes FormData or sets its Content-Type header";
    const step = stepTakes ? `the tool step sends it as ${mediaType}` : "the tool step leaves the body out";
    context.report(
      "SF172",
      [...raw.at, "requestBody"],
      `${where} (${raw.operationId}) takes its request body as ${body.contentTypes.join(", ")}, not JSON: ` +
        `${client}, ${step}`,
      "warning",
    );
  }
  for (const p of parameters.filter((x) => x.in === "cookie")) {
    context.report(
      "SF173",
      [...raw.at, "parameters"],
      `${where} (${raw.operationId}) has the cookie parameter "${p.name}"${p.required ? " (required)" : ""}: ` +
        "neither the client nor the tool step sends cookies; set a Cookie header on the call",
      "warning",
    );
  }
}
