/**
 * Stage 2: validate. Checks an OpenAPI document and its `x-stepforge` extensions and builds the
 * service model. Every problem becomes a diagnostic at its place in the file; the stage collects
 * them all before giving up, so an author fixes a spec in one pass.
 */
import type { z } from "zod";
import {
  type DelimitedStyle,
  OperationExtensionsSchema,
  ServiceExtensionSchema,
  type HttpMethod,
  type OperationDescriptor,
  type ServiceExtension,
} from "../runtime/descriptor.js";
import { templateFields } from "../runtime/template.js";
import { checkTimeZone } from "../runtime/time.js";
import { protoKeyPaths } from "../runtime/values.js";
import { TriggersExtensionSchema, type TriggersExtension } from "../runtime/triggers/model.js";
import { SpecError, toPointer, type Diagnostic } from "./diagnostics.js";
import type { LoadedSpec } from "./load.js";
import type { OperationModel, ParameterModel, ServiceModel } from "./model.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
const ROOT_EXTENSION = "x-stepforge";
const TRIGGERS_EXTENSION = "x-stepforge-triggers";
const OPERATION_EXTENSIONS = Object.keys(OperationExtensionsSchema.shape);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// Names a generated client class already uses, so an operation may not take them.
const RESERVED_OPERATION_NAMES = new Set(["core", "constructor", "descriptor"]);

type Json = Record<string, unknown>;

export interface ValidateOptions {
  /** Service id for a spec without `x-stepforge` (a foreign spec); derived from the title if absent. */
  serviceId?: string;
}

export function validateSpec(spec: LoadedSpec, options: ValidateOptions = {}): ServiceModel {
  const diagnostics: Diagnostic[] = [];
  const report = (code: string, path: Array<string | number>, message: string) => diagnostics.push(spec.diagnostic(code, path, message));
  const doc = spec.data;

  const version = doc.openapi;
  if (typeof version !== "string" || !/^3\.[01]\.\d+$/.test(version)) {
    const found = typeof doc.swagger === "string" ? `Swagger ${doc.swagger}` : JSON.stringify(version ?? null);
    report("SF101", ["openapi"], `expected "openapi: 3.1.x" (or 3.0.x), found ${found}; convert the document to OpenAPI 3 first`);
    throw new SpecError(diagnostics);
  }
  const info = asObject(doc.info);
  if (!info || typeof info.title !== "string") report("SF102", ["info"], "info.title is required: it names the service in generated code and docs");
  const paths = asObject(doc.paths);
  if (!paths) {
    report("SF103", ["paths"], "the spec has no `paths` object; add the operations to generate a client for");
    throw new SpecError(diagnostics);
  }

  checkRefs(spec, doc, [], report);
  checkUnknownExtensions(spec, doc, report);

  let extension: ServiceExtension | undefined;
  const declared = doc[ROOT_EXTENSION] !== undefined;
  if (declared) {
    const parsed = ServiceExtensionSchema.safeParse(doc[ROOT_EXTENSION]);
    if (parsed.success) {
      extension = parsed.data;
      checkServiceExtension(extension, report);
      checkLimitVocabulary(extension, Object.keys(paths), report);
    } else {
      reportZod(parsed.error, [ROOT_EXTENSION], report);
    }
  } else {
    extension = deriveExtension(doc, options.serviceId, report);
  }
  reportProtoKeys(doc[ROOT_EXTENSION], [ROOT_EXTENSION], report, diagnostics);

  const operations: OperationModel[] = [];
  const seenIds = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = asObject(rawItem);
    if (!path.startsWith("/")) report("SF110", ["paths", path], `path "${path}" must start with "/"`);
    if (!item) {
      report("SF116", ["paths", path], `path item "${path}" must be an object of operations (get, post, ...), not ${describeValue(rawItem)}`);
      continue;
    }
    const shared = asArray(item.parameters);
    checkParameterList(doc, item.parameters, ["paths", path], report);
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (!op) {
        if (item[method] !== undefined) report("SF116", ["paths", path, method], `operation ${method.toUpperCase()} ${path} must be an object, not ${describeValue(item[method])}`);
        continue;
      }
      const at = ["paths", path, method];
      checkParameterList(doc, op.parameters, at, report);
      if (op.operationId !== undefined && typeof op.operationId !== "string") {
        report("SF111", [...at, "operationId"], `operationId must be a string, not ${describeValue(op.operationId)}; write it in lowerCamelCase`);
        continue;
      }
      // Public specs often use ids like "get-stations"; the method becomes getStations.
      const written = typeof op.operationId === "string" ? op.operationId : undefined;
      const operationId = written !== undefined ? identifierOf(written) : deriveOperationId(method, path);
      if (!IDENTIFIER.test(operationId) || RESERVED_OPERATION_NAMES.has(operationId)) {
        report("SF111", [...at, "operationId"], `operationId "${written}" does not make a usable method name (need letters or digits, not ${[...RESERVED_OPERATION_NAMES].join(", ")}); rename it in lowerCamelCase`);
        continue;
      }
      const previous = seenIds.get(operationId);
      if (previous) {
        const as = written !== operationId ? ` (as "${operationId}")` : "";
        report("SF112", [...at, "operationId"], `operationId "${written ?? operationId}"${as} is also used by ${previous}; every operation needs its own`);
        continue;
      }
      seenIds.set(operationId, `${method.toUpperCase()} ${path}`);

      const parsedExt = OperationExtensionsSchema.safeParse(pickExtensions(op));
      if (!parsedExt.success) reportZod(parsedExt.error, at, report);
      reportProtoKeys(pickExtensions(op), at, report, diagnostics);
      const ext = parsedExt.success ? parsedExt.data : {};

      const parameters = collectParameters(doc, shared, asArray(op.parameters));
      checkPathParameters(path, parameters, at, report);
      const body = asObject(resolveRef(doc, op.requestBody));
      const hasBody = body !== undefined;
      const bodyRequired = body?.required === true;
      const httpMethod = method.toUpperCase() as HttpMethod;
      const paging = ext["x-stepforge-paging"];
      if (paging) checkPaging(paging, parameters, [...at, "x-stepforge-paging"], report);
      const seed = ext["x-stepforge-seed"];

      operations.push({
        operationId,
        method: httpMethod,
        path,
        summary: typeof op.summary === "string" ? op.summary.trim() : operationId,
        description: typeof op.description === "string" ? op.description.trim() : "",
        tags: asArray(op.tags).filter((t): t is string => typeof t === "string"),
        deprecated: op.deprecated === true,
        parameters,
        hasBody,
        bodyRequired,
        requiresInput: bodyRequired || parameters.some((p) => p.required),
        idempotent: ext["x-stepforge-idempotent"] ?? !["POST", "PATCH"].includes(httpMethod),
        limitClass: ext["x-stepforge-limit-class"] ?? (httpMethod === "GET" || httpMethod === "HEAD" ? "read" : "write"),
        paging,
        seed: seed ? { name: seed.name, differs: seed.differs } : undefined,
        tool: ext["x-stepforge-tool"],
      });
    }
  }
  if (operations.length === 0 && diagnostics.length === 0) {
    report("SF104", ["paths"], "the spec has no operations; add at least one method under `paths`");
  }

  const triggers = validateTriggers(doc[TRIGGERS_EXTENSION], new Set(operations.map((o) => o.operationId)), report);
  reportProtoKeys(doc[TRIGGERS_EXTENSION], [TRIGGERS_EXTENSION], report, diagnostics);

  if (diagnostics.length > 0 || !extension) throw new SpecError(diagnostics);

  const descriptorOperations: Record<string, OperationDescriptor> = {};
  for (const op of operations) {
    descriptorOperations[op.operationId] = {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      idempotent: op.idempotent,
      limitClass: op.limitClass,
      ...(op.paging ? { paging: op.paging } : {}),
      ...(op.parameters.some((p) => p.delimitedStyle) ? { delimitedQuery: Object.fromEntries(op.parameters.filter((p) => p.delimitedStyle).map((p) => [p.name, p.delimitedStyle!])) } : {}),
    };
  }
  const { tools, ...serviceExtension } = extension;
  return {
    spec,
    id: extension.id,
    title: extension.title,
    version: typeof info?.version === "string" ? info.version : "",
    description: typeof info?.description === "string" ? info.description.trim() : "",
    declared,
    descriptor: { ...serviceExtension, operations: descriptorOperations },
    operations,
    tools,
    ...(triggers ? { triggers } : {}),
  };
}

/** `x-stepforge-triggers`: its schema, and every operation it names must exist in this spec. */
function validateTriggers(raw: unknown, operationIds: Set<string>, report: (code: string, path: Array<string | number>, message: string) => void): TriggersExtension | undefined {
  if (raw === undefined) return undefined;
  const parsed = TriggersExtensionSchema.safeParse(raw);
  if (!parsed.success) {
    reportZod(parsed.error, [TRIGGERS_EXTENSION], report);
    return undefined;
  }
  const ext = parsed.data;
  const need = (id: string, path: Array<string | number>) => {
    if (!operationIds.has(id)) report("SF151", [TRIGGERS_EXTENSION, ...path], `operation "${id}" does not exist in this spec; name an operationId from paths`);
  };
  const reg = ext.delivery.register;
  need(reg.create, ["delivery", "register", "create"]);
  need(reg.list, ["delivery", "register", "list"]);
  need(reg.remove, ["delivery", "register", "remove"]);
  const names = new Set<string>();
  ext.triggers.forEach((t, i) => {
    if (names.has(t.name)) report("SF152", [TRIGGERS_EXTENSION, "triggers", i, "name"], `trigger "${t.name}" is declared twice`);
    names.add(t.name);
    if (t.kind !== "webhook") need(t.listOperation, ["triggers", i, "listOperation"]);
    if (t.kind === "webhook") {
      t.filters.forEach((f, j) => {
        if (!(f.option in t.options)) report("SF153", [TRIGGERS_EXTENSION, "triggers", i, "filters", j, "option"], `filter option "${f.option}" is not declared under options of ${t.name}`);
      });
    }
  });
  return ext;
}

/**
 * Limit settings that would silently do nothing: a reset zone Intl does not know, a `per: path:`
 * parameter no operation's path has, a penalty on a quota (refused until its reset anyway).
 */
function checkLimitVocabulary(ext: ServiceExtension, pathTemplates: string[], report: (code: string, path: Array<string | number>, message: string) => void) {
  ext.limits.forEach((limit, i) => {
    if ("resetTimeZone" in limit) {
      try {
        checkTimeZone(limit.resetTimeZone);
      } catch (error) {
        report("SF125", [ROOT_EXTENSION, "limits", i, "resetTimeZone"], `limit "${limit.id}": ${(error as Error).message}`);
      }
    }
    if (limit.per.startsWith("path:")) {
      const name = limit.per.slice("path:".length);
      if (!pathTemplates.some((p) => p.includes(`{${name}}`))) {
        report("SF126", [ROOT_EXTENSION, "limits", i, "per"], `limit "${limit.id}" counts per path parameter "${name}", but no operation's path has {${name}}; name a path parameter (for example path:idBoard) or use per: connection`);
      }
    }
    if (limit.penaltySeconds !== undefined && limit.kind !== "window" && limit.kind !== "concurrency") {
      report("SF127", [ROOT_EXTENSION, "limits", i, "penaltySeconds"], `limit "${limit.id}" (${limit.kind}) is refused until its reset anyway, so penaltySeconds would do nothing; remove it`);
    }
  });
}

/** Cross-field rules zod cannot see: every name the extension refers to must exist. */
function checkServiceExtension(ext: ServiceExtension, report: (code: string, path: Array<string | number>, message: string) => void) {
  const fields = new Set(Object.keys(ext.connection.fields));
  const known = [...fields].join(", ") || "(none)";
  const needField = (name: string, path: Array<string | number>) => {
    if (!fields.has(name)) report("SF121", [ROOT_EXTENSION, ...path], `"${name}" is not a connection field; declare it under x-stepforge.connection.fields (known: ${known})`);
  };
  for (const name of templateFields(ext.connection.baseUrl)) needField(name, ["connection", "baseUrl"]);
  const auth = ext.auth;
  const tokenPlaceholders = new Set(["accessToken"]);
  const checkPlacementValue = (value: string, path: Array<string | number>) => {
    for (const name of templateFields(value)) if (!tokenPlaceholders.has(name)) needField(name, path);
  };
  if (auth.kind === "api-key") {
    if (!auth.modes[auth.defaultMode]) report("SF122", [ROOT_EXTENSION, "auth", "defaultMode"], `defaultMode "${auth.defaultMode}" is not one of the modes (${Object.keys(auth.modes).join(", ")})`);
    for (const [mode, placements] of Object.entries(auth.modes)) {
      placements.forEach((p, i) => {
        for (const name of templateFields(p.value)) needField(name, ["auth", "modes", mode, i, "value"]);
      });
    }
  } else if (auth.kind !== "none") {
    needField(auth.clientIdField, ["auth", "clientIdField"]);
    needField(auth.clientSecretField, ["auth", "clientSecretField"]);
    checkPlacementValue(auth.send.value, ["auth", "send", "value"]);
    if (auth.kind === "oauth2-client-credentials") {
      for (const name of templateFields(auth.tokenUrl)) needField(name, ["auth", "tokenUrl"]);
    } else {
      needField(auth.accessTokenField, ["auth", "accessTokenField"]);
      needField(auth.refreshTokenField, ["auth", "refreshTokenField"]);
      if (auth.expiresAtField) needField(auth.expiresAtField, ["auth", "expiresAtField"]);
    }
  }
  ext.limits.forEach((limit, i) => {
    if (limit.per.startsWith("field:")) needField(limit.per.slice("field:".length), ["limits", i, "per"]);
  });
  const ids = new Set<string>();
  ext.limits.forEach((limit, i) => {
    if (ids.has(limit.id)) report("SF123", [ROOT_EXTENSION, "limits", i, "id"], `limit id "${limit.id}" is used twice; give each limit its own id`);
    ids.add(limit.id);
  });
  for (const [name, field] of Object.entries(ext.connection.fields)) {
    if (field.pattern !== undefined) {
      try {
        new RegExp(field.pattern);
      } catch {
        report("SF124", [ROOT_EXTENSION, "connection", "fields", name, "pattern"], `pattern of "${name}" is not a valid regular expression`);
      }
    }
  }
}

function checkPaging(
  paging: NonNullable<z.infer<typeof OperationExtensionsSchema>["x-stepforge-paging"]>,
  parameters: ParameterModel[],
  at: Array<string | number>,
  report: (code: string, path: Array<string | number>, message: string) => void,
) {
  const names = new Set(parameters.map((p) => p.name));
  const need = paging.style === "token" ? [["tokenParam", paging.tokenParam], ["sizeParam", paging.sizeParam]] : [["offsetParam", paging.offsetParam], ["limitParam", paging.limitParam]];
  for (const [key, name] of need) {
    if (name !== undefined && !names.has(name)) {
      report("SF131", [...at, key!], `${key} "${name}" is not a parameter of this operation; declare it under parameters or fix the name`);
    }
  }
}

function checkPathParameters(path: string, parameters: ParameterModel[], at: Array<string | number>, report: (code: string, path: Array<string | number>, message: string) => void) {
  const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const declared = parameters.filter((p) => p.in === "path").map((p) => p.name);
  for (const name of inTemplate) {
    if (!declared.includes(name)) report("SF113", at, `path parameter "{${name}}" is not declared; add a parameter with in: path, name: ${name}, required: true`);
  }
  for (const name of declared) {
    if (!inTemplate.includes(name)) report("SF114", at, `parameter "${name}" is declared in: path but "${path}" has no {${name}}`);
  }
}

/** OpenAPI query serialisation: `explode` defaults to true for form only; unexploded arrays are delimited. */
function delimitedStyleOf(p: Json): DelimitedStyle | undefined {
  if (p.in !== "query") return undefined;
  const style = typeof p.style === "string" ? p.style : "form";
  const explode = typeof p.explode === "boolean" ? p.explode : style === "form";
  return !explode && (style === "form" || style === "spaceDelimited" || style === "pipeDelimited") ? style : undefined;
}

const PARAMETER_LOCATIONS = ["path", "query", "header", "cookie"];

/**
 * `parameters` must be a list of objects (or `$ref`s to them) with a string `name` and an `in` of
 * path, query, header or cookie; anything else would be dropped or mis-sent without a word.
 */
function checkParameterList(doc: Json, list: unknown, at: Array<string | number>, report: (code: string, path: Array<string | number>, message: string) => void) {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    report("SF115", [...at, "parameters"], `parameters must be a list, not ${describeValue(list)}`);
    return;
  }
  list.forEach((raw, i) => {
    const where = [...at, "parameters", i];
    const resolved = resolveRef(doc, raw);
    // A $ref that points at nothing is SF106/SF107 already.
    if (resolved === undefined && typeof asObject(raw)?.$ref === "string") return;
    const p = asObject(resolved);
    if (!p) {
      report("SF115", where, `a parameter must be an object with name and in, not ${describeValue(resolved)}`);
      return;
    }
    if (typeof p.name !== "string" || p.name.length === 0) report("SF115", where, `parameter has no name; add name: <the parameter's name>`);
    if (typeof p.in !== "string" || !PARAMETER_LOCATIONS.includes(p.in)) {
      report("SF115", where, `parameter ${typeof p.name === "string" ? `"${p.name}" ` : ""}has in: ${JSON.stringify(p.in ?? null)}; it must be one of ${PARAMETER_LOCATIONS.join(", ")} (a body is a requestBody in OpenAPI 3)`);
    }
  });
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "empty";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value} (${JSON.stringify(value)?.slice(0, 40)})`;
}

function collectParameters(doc: Json, shared: unknown[], own: unknown[]): ParameterModel[] {
  const byKey = new Map<string, ParameterModel>();
  for (const raw of [...shared, ...own]) {
    const p = asObject(resolveRef(doc, raw));
    // Malformed parameters are reported by checkParameterList.
    if (!p || typeof p.name !== "string" || typeof p.in !== "string" || !PARAMETER_LOCATIONS.includes(p.in)) continue;
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in as ParameterModel["in"],
      required: p.required === true || p.in === "path",
      deprecated: p.deprecated === true,
      description: typeof p.description === "string" ? p.description.trim() : "",
      delimitedStyle: delimitedStyleOf(p),
    });
  }
  return [...byKey.values()];
}

/** For a spec without x-stepforge: a descriptor from its servers and security schemes. */
function deriveExtension(doc: Json, serviceId: string | undefined, report: (code: string, path: Array<string | number>, message: string) => void): ServiceExtension | undefined {
  const info = asObject(doc.info) ?? {};
  const title = typeof info.title === "string" && info.title.trim() ? info.title.trim() : "API";
  const id = serviceId ?? slug(title);
  if (!/^[a-z][a-z0-9]{1,30}$/.test(id)) {
    report("SF105", ["info", "title"], `cannot derive a service id from the title "${title}"; pass --service NAME (lower-case letters and digits)`);
    return undefined;
  }
  const fields: ServiceExtension["connection"]["fields"] = {};
  const server = asObject(asArray(doc.servers)[0]);
  let baseUrl = typeof server?.url === "string" ? server.url : "";
  const variables = asObject(server?.variables) ?? {};
  baseUrl = baseUrl.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = asObject(variables[name]);
    return typeof v?.default === "string" ? v.default : whole;
  });
  if (!/^https?:\/\//.test(baseUrl)) {
    fields.baseUrl = { description: "Base address of the API", secret: false, required: true };
    baseUrl = "{baseUrl}";
  }
  const schemes = asObject(asObject(doc.components)?.securitySchemes) ?? {};
  const firstRequirement = asObject(asArray(doc.security)[0]) ?? {};
  const schemeName = Object.keys(firstRequirement)[0] ?? Object.keys(schemes)[0];
  const scheme = schemeName ? asObject(schemes[schemeName]) : undefined;
  let auth: ServiceExtension["auth"] = { kind: "none" };
  if (scheme?.type === "apiKey" && typeof scheme.name === "string" && (scheme.in === "query" || scheme.in === "header")) {
    fields.apiKey = { description: `API key (${schemeName})`, secret: true, required: true };
    auth = { kind: "api-key", modes: { default: [{ in: scheme.in, name: scheme.name, value: "{apiKey}" }] }, defaultMode: "default" };
  } else if ((scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") || scheme?.type === "oauth2" || scheme?.type === "openIdConnect") {
    fields.accessToken = { description: `Bearer token (${schemeName})`, secret: true, required: true };
    auth = { kind: "api-key", modes: { default: [{ in: "header", name: "Authorization", value: "Bearer {accessToken}" }] }, defaultMode: "default" };
  } else if (scheme?.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
    fields.basicCredentials = { description: "base64 of user:password", secret: true, required: true };
    auth = { kind: "api-key", modes: { default: [{ in: "header", name: "Authorization", value: "Basic {basicCredentials}" }] }, defaultMode: "default" };
  }
  return ServiceExtensionSchema.parse({ id, title, connection: { baseUrl, fields }, auth, errors: {} });
}

function checkRefs(spec: LoadedSpec, node: unknown, at: Array<string | number>, report: (code: string, path: Array<string | number>, message: string) => void) {
  if (Array.isArray(node)) {
    node.forEach((child, i) => checkRefs(spec, child, [...at, i], report));
    return;
  }
  const obj = asObject(node);
  if (!obj) return;
  if (typeof obj.$ref === "string") {
    const ref = obj.$ref;
    if (!ref.startsWith("#/")) {
      report("SF106", [...at, "$ref"], `external reference "${ref}" is not supported; bundle the spec into one file first`);
    } else if (resolvePointer(spec.data, ref) === undefined) {
      report("SF107", [...at, "$ref"], `"${ref}" points at nothing; fix the reference or add the component`);
    }
  }
  for (const [key, child] of Object.entries(obj)) {
    // Examples are data, not schema: a "$ref" key inside an example is just a value.
    if (key === "example" || key === "examples" && at.at(-1) !== "components") continue;
    checkRefs(spec, child, [...at, key], report);
  }
}

/** An `x-stepforge…` key the schemas do not know is almost always a typo; say what was meant. */
function checkUnknownExtensions(spec: LoadedSpec, doc: Json, report: (code: string, path: Array<string | number>, message: string) => void) {
  for (const key of Object.keys(doc)) {
    if (key.startsWith("x-stepforge") && key !== ROOT_EXTENSION && key !== TRIGGERS_EXTENSION) {
      report("SF108", [key], `unknown extension "${key}" at the root; the root takes only "${ROOT_EXTENSION}" and "${TRIGGERS_EXTENSION}"`);
    }
  }
  for (const [path, rawItem] of Object.entries(asObject(doc.paths) ?? {})) {
    const item = asObject(rawItem) ?? {};
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (!op) continue;
      for (const key of Object.keys(op)) {
        if (key.startsWith("x-stepforge") && !OPERATION_EXTENSIONS.includes(key)) {
          const hint = closest(key, OPERATION_EXTENSIONS);
          report("SF109", ["paths", path, method, key], `unknown extension "${key}"${hint ? `; did you mean "${hint}"?` : ""} (operations take ${OPERATION_EXTENSIONS.join(", ")})`);
        }
      }
    }
  }
  void spec;
}

function reportZod(error: z.ZodError, base: Array<string | number>, report: (code: string, path: Array<string | number>, message: string) => void) {
  for (const issue of error.issues) {
    const path = [...base, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const where = path.join(".");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") {
      message = `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")} in ${where}; remove or correct them`;
      // Point at the offending key itself, not at the object holding it.
      path.push(issue.keys[0]!);
    }
    else if (issue.code === "invalid_union" && "discriminator" in issue) message = `${where}: ${issue.message}`;
    else message = `${where}: ${issue.message}`;
    report("SF120", path, message);
  }
}

/** A `__proto__` key in an extension is always a mistake; reported where the schema did not already. */
function reportProtoKeys(value: unknown, at: Array<string | number>, report: (code: string, path: Array<string | number>, message: string) => void, reported: Diagnostic[]) {
  for (const key of protoKeyPaths(value)) {
    const path = [...at, ...key];
    if (!reported.some((d) => d.pointer === toPointer(path))) report("SF120", path, `${path.slice(0, -1).join(".")}: "__proto__" is not allowed as a key; remove it`);
  }
}

function pickExtensions(op: Json): Json {
  return Object.fromEntries(Object.entries(op).filter(([k]) => OPERATION_EXTENSIONS.includes(k)));
}

/** lowerCamelCase identifier of an operationId such as "get-stations" or "List_Pets". */
export function identifierOf(operationId: string): string {
  if (IDENTIFIER.test(operationId)) return operationId;
  const words = operationId.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");
  return /^[0-9]/.test(id) ? `op${id}` : id;
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

function slug(title: string): string {
  const s = title.toLowerCase().replace(/[^a-z0-9]+/g, "").slice(0, 31);
  return /^[a-z]/.test(s) ? s : `api${s}`.slice(0, 31);
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

export function resolvePointer(doc: unknown, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return undefined; // a malformed %-escape points at nothing
    }
    const key = decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    // Own keys only: "#/paths/constructor" must not find Object.prototype.constructor.
    const obj = asObject(node);
    if (!obj || !Object.hasOwn(obj, key)) return undefined;
    node = obj[key];
  }
  return node;
}

function resolveRef(doc: Json, value: unknown, depth = 0): unknown {
  const obj = asObject(value);
  if (obj && typeof obj.$ref === "string" && obj.$ref.startsWith("#/") && depth < 20) {
    return resolveRef(doc, resolvePointer(doc, obj.$ref), depth + 1);
  }
  return value;
}

function asObject(value: unknown): Json | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
