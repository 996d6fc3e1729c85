/**
 * Operations: each method under `paths` checked and normalised into an OperationModel —
 * operationId (made a method name through the client's name table), parameters (path-item and
 * operation lists merged, `$ref`s resolved, style and explode worked out), body, success response
 * and what the mock validates and answers. Defects with one safe repair (missing, invalid,
 * duplicate or case-colliding operationIds, undeclared path parameters) are repaired in lenient
 * mode and recorded in `typesDocument` too, so the types agree with the client.
 */
import {
  type DelimitedStyle,
  FORM_MEDIA_TYPE,
  type HttpMethod,
  RAW_REQUEST_MEDIA_TYPES,
} from "../../runtime/descriptor.js";
import { OperationExtensionsSchema } from "../../runtime/descriptor-schemas.js";
import { setOwn } from "../../runtime/internal/values.js";
import { MockOperationSchema, type MockOperationSpec } from "../../runtime/mock/model.js";
import type { BodyModel, OperationModel, ParameterModel, RawBodyKind, SuccessModel } from "../model.js";
import { NameTable, startsIdentifier, toIdentifier } from "../names.js";
import { asArray, asObject, type Json, RefResolver } from "../refs.js";
import { kindOf } from "../schema.js";
import { describeValue, reportProtoKeys, reportZod, type CheckContext, type Path } from "./context.js";

export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
/** Methods OpenAPI allows that fetch refuses to send (a TypeError before any request): left out, with SF119. */
const UNSENDABLE_METHODS = ["trace"] as const;
export const OPERATION_EXTENSIONS = Object.keys(OperationExtensionsSchema.shape);
const PARAMETER_LOCATIONS = ["path", "query", "header", "cookie"];
/**
 * What the generated client class declares itself, or what must never be a method: `then` makes a
 * thenable client; the Object.prototype members and `toJSON` are called by the language itself
 * (`${client}`, JSON.stringify, ==), so a method of that name would send a request.
 */
export const CLIENT_RESERVED = [
  "core",
  "constructor",
  "descriptor",
  "then",
  "__proto__",
  "prototype",
  "toJSON",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
];

/** A copy of the document for openapi-typescript, made on the first repair. */
export interface TypesDocument {
  get(): Json;
  patch(edit: (doc: Json) => void): void;
}

export function typesDocument(doc: Json): TypesDocument {
  let copy: Json | undefined;
  return {
    get: () => copy ?? doc,
    patch(edit) {
      copy ??= structuredClone(doc);
      edit(copy);
    },
  };
}

export function checkOperations(context: CheckContext, types: TypesDocument): OperationModel[] {
  const { doc } = context;
  const paths = asObject(doc.paths) ?? {};
  const operations: OperationModel[] = [];
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
      operations.push(operationModel(context, types, { path, method, item, op, at, operationId }));
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

/**
 * The operation at `path` and `method` in the types document, for a repair to be written into. A
 * `$ref`'d path item is copied in first, so the repair does not change the item it shares (and
 * the path gets the parameters its own template needs); the copy's operationIds are dropped, as
 * openapi-typescript refuses two operations with one id (the client types by path and method).
 */
function typesOperation(copy: Json, path: string, method: string): Json | undefined {
  const paths = asObject(copy.paths);
  let item = asObject(paths?.[path]);
  if (paths && item && typeof item.$ref === "string") {
    item = structuredClone(new RefResolver(copy).deref(item));
    for (const m of METHODS) delete asObject(item[m])?.operationId;
    paths[path] = item;
  }
  return asObject(item?.[method]);
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

/** The method name of an operation, repaired (lenient) or reported (strict); undefined when refused outright. */
function operationIdOf(
  context: CheckContext,
  names: NameTable,
  op: Json,
  method: string,
  path: string,
  at: Path,
  types: TypesDocument,
): string | undefined {
  const where = `${method.toUpperCase()} ${path}`;
  if (op.operationId !== undefined && typeof op.operationId !== "string") {
    context.report(
      "SF111",
      [...at, "operationId"],
      `operationId must be a string, not ${describeValue(op.operationId)}; write it in lowerCamelCase`,
    );
    return undefined;
  }
  const written = op.operationId as string | undefined;
  // Public specs often use ids like "get-stations"; the method becomes getStations (a spelling, not a defect).
  const wanted = written !== undefined ? toIdentifier(written) : deriveOperationId(method, path);
  if (written === undefined)
    context.repair("SF117", at, `${where} has no operationId`, "add one in lowerCamelCase", `named it "${wanted}"`);
  else if (!startsIdentifier(written.trim()))
    context.repair(
      "SF111",
      [...at, "operationId"],
      `operationId "${written}" does not make a method name`,
      "rename it in lowerCamelCase",
      `named it "${wanted}"`,
    );
  const holder = names.ownerOf(wanted);
  const claim = names.claim(wanted, `${where} ("${wanted}")`);
  if (claim.name !== wanted) {
    const shown = written ?? wanted;
    const fix = `named this one "${claim.name}"`;
    if (holder === undefined || holder.startsWith("the generated code")) {
      context.repair(
        "SF111",
        [...at, "operationId"],
        `operationId "${shown}" is a name the client cannot use (${claim.changed})`,
        "rename it",
        fix,
      );
    } else if (holder.endsWith(`("${wanted}")`)) {
      context.repair(
        "SF112",
        [...at, "operationId"],
        `operationId "${shown}" is also used by ${holder}; every operation needs its own`,
        "rename one",
        fix,
      );
    } else {
      context.repair(
        "SF118",
        [...at, "operationId"],
        `operationId "${shown}" differs only in case from ${holder}; both would make one type name`,
        "rename one",
        fix,
      );
    }
  }
  if (claim.name !== written) {
    types.patch((copy) => {
      const target = typesOperation(copy, path, method);
      if (target) target.operationId = claim.name;
    });
  }
  return claim.name;
}

interface RawOperation {
  path: string;
  method: string;
  item: Json;
  op: Json;
  at: Path;
  operationId: string;
}

function operationModel(context: CheckContext, types: TypesDocument, raw: RawOperation): OperationModel {
  const { path, method, item, op, at, operationId } = raw;
  const parsedExt = OperationExtensionsSchema.safeParse(pickExtensions(op));
  if (!parsedExt.success) reportZod(parsedExt.error, at, context.report);
  reportProtoKeys(pickExtensions(op), at, context);
  const ext = parsedExt.success ? parsedExt.data : {};

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
    idempotent: ext["x-stepforge-idempotent"] ?? !["POST", "PATCH"].includes(httpMethod),
    limitClass: ext["x-stepforge-limit-class"] ?? (httpMethod === "GET" || httpMethod === "HEAD" ? "read" : "write"),
    paging,
    seed: seed ? { name: seed.name, differs: seed.differs } : undefined,
  };
  return { ...model, mock: mockSpec(model, ext["x-stepforge-mock"], context.refs) };
}

function pickExtensions(op: Json): Json {
  return Object.fromEntries(Object.entries(op).filter(([k]) => OPERATION_EXTENSIONS.includes(k)));
}

/**
 * `parameters` must be a list of objects (or `$ref`s to them) with a string `name` and an `in` of
 * path, query, header or cookie; anything else would be dropped or mis-sent without a word. Such a
 * parameter cannot be sent: a lenient spec is generated without it (a published spec with one
 * nameless header, Notion's, was refused whole), with a warning.
 */
function checkParameterList(context: CheckContext, list: unknown, at: Path): void {
  if (list === undefined) return;
  const leftOut = "left it out";
  if (!Array.isArray(list)) {
    context.repair(
      "SF115",
      [...at, "parameters"],
      `parameters must be a list, not ${describeValue(list)}`,
      "write a list",
      leftOut,
    );
    return;
  }
  list.forEach((raw, i) => {
    const where = [...at, "parameters", i];
    const resolved = context.refs.target(raw);
    // A $ref that points at nothing is SF106/SF107 already.
    if (resolved === undefined && typeof asObject(raw)?.$ref === "string") return;
    const p = asObject(resolved);
    if (!p) {
      const problem = `a parameter must be an object with name and in, not ${describeValue(resolved)}`;
      context.repair("SF115", where, problem, "write one", leftOut);
      return;
    }
    if (typeof p.name !== "string" || p.name.length === 0) {
      context.repair("SF115", where, "parameter has no name", "add name: <the parameter's name>", leftOut);
    } else if (typeof p.in !== "string" || !PARAMETER_LOCATIONS.includes(p.in)) {
      const problem = `parameter "${p.name}" has in: ${JSON.stringify(p.in ?? null)}`;
      const fix = `it must be one of ${PARAMETER_LOCATIONS.join(", ")} (a body is a requestBody in OpenAPI 3)`;
      context.repair("SF115", where, problem, fix, `${fix}; ${leftOut}`);
    }
  });
}

/** OpenAPI serialisation: style defaults to form (query, cookie) or simple; explode to true for form only. */
function collectParameters(context: CheckContext, shared: unknown[], own: unknown[]): ParameterModel[] {
  const byKey = new Map<string, ParameterModel>();
  for (const raw of [...shared, ...own]) {
    const p = context.refs.deref(raw);
    // Malformed parameters are reported by checkParameterList.
    if (
      typeof p.name !== "string" ||
      p.name.length === 0 ||
      typeof p.in !== "string" ||
      !PARAMETER_LOCATIONS.includes(p.in)
    )
      continue;
    const where = p.in as ParameterModel["in"];
    const style = typeof p.style === "string" ? p.style : where === "query" || where === "cookie" ? "form" : "simple";
    const explode = typeof p.explode === "boolean" ? p.explode : style === "form";
    // A parameter with `content` (instead of a schema) travels in that media type: JSON is encoded as JSON.
    const content = asObject(p.content);
    const contentType = content ? Object.keys(content)[0] : undefined;
    const contentSchema = contentType !== undefined ? asObject(content![contentType])?.schema : undefined;
    byKey.set(`${where}:${p.name}`, {
      name: p.name,
      in: where,
      required: p.required === true || where === "path",
      deprecated: p.deprecated === true,
      description: typeof p.description === "string" ? p.description.trim() : "",
      schema: p.schema ?? contentSchema ?? { type: "string" },
      style,
      explode,
      ...(contentType !== undefined && /json/i.test(contentType) ? { json: true as const } : {}),
      ...(p.example !== undefined ? { example: p.example } : {}),
      ...(p.explode === false || (p.style !== undefined && p.style !== "form")
        ? { explodeWritten: p.explode === true }
        : {}),
    });
  }
  return [...byKey.values()];
}

function checkPathParameters(
  context: CheckContext,
  types: TypesDocument,
  raw: RawOperation,
  parameters: ParameterModel[],
): void {
  const { path, method, at } = raw;
  const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const declared = parameters.filter((p) => p.in === "path").map((p) => p.name);
  for (const name of inTemplate) {
    if (declared.includes(name)) continue;
    context.repair(
      "SF113",
      at,
      `path parameter "{${name}}" is not declared`,
      `add a parameter with in: path, name: ${name}, required: true`,
      `added it as a required string`,
    );
    parameters.push({
      name,
      in: "path",
      required: true,
      deprecated: false,
      description: "",
      schema: { type: "string" },
      style: "simple",
      explode: false,
    });
    types.patch((copy) => {
      const target = typesOperation(copy, path, method);
      if (target)
        target.parameters = [
          ...asArray(target.parameters),
          { name, in: "path", required: true, schema: { type: "string" } },
        ];
    });
  }
  for (const name of declared) {
    if (!inTemplate.includes(name))
      context.report("SF114", at, `parameter "${name}" is declared in: path but "${path}" has no {${name}}`);
  }
}

function preferJson(content: Json): string | undefined {
  const types = Object.keys(content);
  return types.find((t) => /json/i.test(t)) ?? types[0];
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
      `${where} (${raw.operationId}) takes its request body as ${body.contentTypes.join(", ")}, not JSON: ${client}, ${step}`,
      "warning",
    );
  }
  for (const p of parameters.filter((x) => x.in === "cookie")) {
    context.report(
      "SF173",
      [...raw.at, "parameters"],
      `${where} (${raw.operationId}) has the cookie parameter "${p.name}"${p.required ? " (required)" : ""}: neither the client nor the tool step sends cookies; set a Cookie header on the call`,
      "warning",
    );
  }
}

/** A body's media type when it has no JSON one (the descriptor's requestMediaType): one the client can send, else the first. */
export function requestMediaTypeOf(body: BodyModel | undefined): string | undefined {
  if (!body || body.mediaType) return undefined;
  return body.contentTypes.find((t) => RAW_REQUEST_MEDIA_TYPES.includes(t.toLowerCase())) ?? body.contentTypes[0];
}

function bodyOf(context: CheckContext, raw: unknown): BodyModel | undefined {
  if (raw === undefined) return undefined;
  const body = asObject(context.refs.target(raw));
  if (!body) return undefined;
  const content = asObject(body.content) ?? {};
  const mediaType = Object.keys(content).find((t) => /json/i.test(t));
  const schema = mediaType ? asObject(content[mediaType])?.schema : undefined;
  const model: BodyModel = {
    required: body.required === true,
    description: typeof body.description === "string" ? body.description : "",
    contentTypes: Object.keys(content),
    ...(mediaType ? { mediaType } : {}),
    ...(schema !== undefined ? { schema } : {}),
  };
  const sent = requestMediaTypeOf(model);
  if (sent !== undefined) {
    const media = asObject(content[sent]) ?? {};
    const partTypes: Record<string, string> = {};
    for (const [part, encoding] of Object.entries(asObject(media.encoding) ?? {})) {
      const type = asObject(encoding)?.contentType;
      if (typeof type === "string") setOwn(partTypes, part, type);
    }
    model.raw = {
      mediaType: sent,
      kind: rawBodyKind(context, sent, media.schema),
      ...(media.schema !== undefined ? { schema: media.schema } : {}),
      partTypes,
    };
  }
  return model;
}

/** How a tool step takes a body of `mediaType` (not JSON). */
function rawBodyKind(context: CheckContext, mediaType: string, schema: unknown): RawBodyKind {
  const type = mediaType.toLowerCase().split(";")[0]!.trim();
  // Fields come from an object schema (one without properties is an empty form: nothing to take).
  const fields = () => kindOf(context.refs, schema) === "object";
  if (type === FORM_MEDIA_TYPE) return fields() ? "form" : "other";
  if (type.startsWith("multipart/")) return fields() ? "multipart" : "other";
  if (
    type.startsWith("text/") ||
    /[/+]xml$/.test(type) ||
    type === "application/csv" ||
    type === "application/x-ndjson"
  )
    return "text";
  // Any other media type is bytes when its schema is one string (or none): images, PDFs, archives, octet-stream.
  const s = context.refs.deref(schema);
  return schema === undefined || (s.type === "string" && s.properties === undefined) || Object.keys(s).length === 0
    ? "bytes"
    : "other";
}

/** The lowest 2xx response: its status, description, preferred media type, schema and example. */
function successOf(context: CheckContext, raw: unknown): SuccessModel {
  const responses = asObject(raw) ?? {};
  const code = Object.keys(responses)
    .filter((c) => /^2\d\d$/.test(c))
    .sort()[0];
  if (code === undefined) return { status: 200, description: "" };
  const response = context.refs.deref(responses[code]);
  const content = asObject(response.content) ?? {};
  const mediaType = preferJson(content);
  const media = mediaType ? asObject(content[mediaType]) : undefined;
  let example = media?.example;
  if (example === undefined && media && asObject(media.examples))
    example = asObject(context.refs.target(Object.values(asObject(media.examples)!)[0]))?.value;
  return {
    status: Number(code),
    description: typeof response.description === "string" ? response.description : "",
    ...(mediaType ? { mediaType } : {}),
    ...(media?.schema !== undefined ? { schema: media.schema } : {}),
    ...(mediaType && example !== undefined ? { example } : {}),
  };
}

const DOC_KEYS = new Set([
  "description",
  "summary",
  "example",
  "examples",
  "externalDocs",
  "title",
  "x-stepforge-seed",
]);
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/** A schema without its prose and examples (the mock validates with it; it does not print it). */
export function lean(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n));
  const obj = asObject(node);
  if (!obj) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (!namesHere && (DOC_KEYS.has(k) || k.startsWith("x-"))) continue;
    out[k] = namesHere ? lean(v) : lean(v, NAME_MAPS.has(k));
  }
  return out;
}

/** A prefix no reference starts with: `inlineOutside` then writes out every reference. */
const INLINE_ALL = "\u0000";

function mockSpec(op: Omit<OperationModel, "mock">, ext: unknown, refs: RefResolver): MockOperationSpec {
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

export function deriveOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((seg) => seg.replace(/[{}]/g, "").replace(/\.[a-z]+$/i, ""))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  const id = method.toLowerCase() + camel;
  return /^[A-Za-z_$]/.test(id) ? id : `op${id}`;
}
