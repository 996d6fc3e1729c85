/**
 * The mock of a spec that does not declare one (`x-stepforge.mock`), inferred from its REST shape
 * (mock-rest.ts), its lists (mock-lists.ts) and its error responses (mock-errors.ts): resources
 * kept in state, each operation's action, list envelopes and paging — the paging also goes into
 * the descriptor, so the client's `core.items` walks what the mock serves — error bodies in the
 * spec's shape, and any well-formed credential accepted. An operation's own `x-stepforge-mock` or
 * `x-stepforge-paging` wins over what is inferred for it.
 *
 * What was inferred is returned as data (`MockExplain`) for `stepforge mock --explain` and the
 * generated README.
 */
import type { PagingSpec, ServiceExtension } from "../../runtime/descriptor.js";
import { MockOperationSchema, type MockResource, type MockService } from "../../runtime/mock/extension.js";
import type { Json, RefResolver } from "../refs.js";
import { lean } from "../schema.js";
import { inferErrors } from "./mock-errors.js";
import { envelopeTemplate, listShape } from "./mock-lists.js";
import {
  idNames,
  parentFieldOf,
  recordPath,
  restResources,
  restRoles,
  type RestResource,
  type RestRole,
} from "./mock-rest.js";
import { objectView, propertyNamed, type Accepts } from "./mock-schema.js";
import type { MockExplain, MockExplainOperation, OperationModel } from "../model.js";

export function pagingLabel(p: PagingSpec): string {
  if (p.style === "token") {
    return `cursor ${p.tokenParam} ← ${p.tokenField}${p.sizeParam ? `, size ${p.sizeParam}` : ""}`;
  }
  if (p.style === "page") {
    const size = p.sizeParam ? `/${p.sizeParam}` : "";
    return `page ${p.pageParam}${size} (from ${p.firstPage}${p.maxSize ? `, at most ${p.maxSize}` : ""})`;
  }
  return `offset ${p.offsetParam}/${p.limitParam} (at most ${p.maxLimit})`;
}

function authLabel(extension: ServiceExtension): string {
  const auth = extension.auth;
  if (auth.kind !== "api-key") return auth.kind === "none" ? "none: every call is accepted" : auth.kind;
  const modes = Object.values(auth.modes).map((ps) => ps.map((p) => `${p.in} ${p.name}: ${p.value}`).join(" + "));
  return `${modes.join(" | ")}; any well-formed value is accepted, a call without one is 401`;
}

export interface InferredMock {
  mock: MockService;
  explain: MockExplain;
}

interface Inference {
  refs: RefResolver;
  doc: Json;
  accepts: Accepts;
  /** A schema as the mock ships it (components only, no prose). */
  shipped: (schema: unknown) => unknown;
}

/** Infers the mock of a spec without `x-stepforge.mock`; sets each operation's `mock.mock` and undeclared `paging`. */
export function inferMock(
  refs: RefResolver,
  doc: Json,
  extension: ServiceExtension,
  operations: OperationModel[],
  accepts: Accepts,
): InferredMock {
  const inference: Inference = { refs, doc, accepts, shipped: (s) => lean(refs.inlineOutside(s)) };
  const open = operations.filter((op) => op.mock.mock === undefined);
  const roles = restRoles(refs, open);
  const resources = restResources(refs, roles, accepts);
  const rows = new Map<OperationModel, MockExplainOperation>();
  const modelResources: Record<string, MockResource> = {};
  for (const resource of resources) {
    modelResources[resource.name] = {
      idField: resource.idField,
      id: resource.id,
      seed: [],
      defaults: {},
      ...(resource.createdField ? { createdField: resource.createdField } : {}),
      ...(resource.updatedField ? { updatedField: resource.updatedField } : {}),
      schema: inference.shipped(resource.recordSchema),
    };
    for (const role of resource.roles) {
      const row = operationMock(inference, role, resource, resources);
      if (row) rows.set(role.op, row);
    }
  }
  // Lists of records the mock does not keep (search endpoints, read-only APIs): paging for the client.
  for (const role of roles.filter((r) => r.action === "list" && !rows.has(r.op))) {
    const shape = listShape(refs, role.op, undefined, undefined);
    if (shape?.paging && !role.op.paging) role.op.paging = shape.paging;
  }
  const errors = inferErrors(refs, doc, operations, accepts);
  const credentials: Record<string, string> = {};
  for (const [name, f] of Object.entries(extension.connection.fields)) credentials[name] = f.example ?? `mock-${name}`;
  const mock: MockService = {
    credentials,
    anyCredential: true,
    error: errors.error,
    answers: errors.answers,
    limits: {},
    envelopes: {},
    pageSize: 100,
    resources: modelResources,
  };
  const explain: MockExplain = {
    inferred: true,
    auth: authLabel(extension),
    errors: Object.entries(errors.sources).map(([situation, from]) => `${situation}: shaped as the ${from} response`),
    operations: operations.map((op) => rows.get(op) ?? exampleRow(op)),
  };
  return { mock, explain };
}

/** The explanation of a declared mock: each operation's declared action, nothing inferred. */
export function declaredExplain(extension: ServiceExtension, operations: readonly OperationModel[]): MockExplain {
  return {
    inferred: false,
    auth: authLabel(extension).replace(/; any well-formed.*$/, ""),
    errors: [],
    operations: operations.map(exampleRow),
  };
}

function exampleRow(op: OperationModel): MockExplainOperation {
  const declared = op.mock.mock;
  return {
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    action: declared?.action ?? "example",
    ...(declared?.resource ? { resource: declared.resource } : {}),
    ...(op.paging ? { paging: pagingLabel(op.paging) } : {}),
    ...(declared ? { note: "declared in x-stepforge-mock" } : {}),
  };
}

/** Sets one operation's mock from its role; undefined when its answer does not fit the role (then: its example). */
function operationMock(
  inference: Inference,
  role: RestRole,
  resource: RestResource,
  all: readonly RestResource[],
): MockExplainOperation | undefined {
  const { refs, doc } = inference;
  const op = role.op;
  const names = idNames(resource.segment, role.idParam);
  const view = objectView(refs, resource.recordSchema);
  const m: Json = { action: role.action, resource: resource.name };
  const row: MockExplainOperation = {
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    action: role.action,
    resource: resource.name,
  };
  if (role.idParam !== undefined) {
    const key = view ? propertyNamed(view, [role.idParam]) : undefined;
    m.id = `{path.${role.idParam}}`;
    if (key !== undefined && key !== resource.idField) m.key = key;
    row.id = `path ${role.idParam} → ${key ?? resource.idField} (new ids: ${idLabel(resource)})`;
  } else if (role.action === "create") row.id = `new ${resource.idField}: ${idLabel(resource)}`;
  if (role.parent) {
    const field = parentFieldOf(view, role.parent, resource.idField);
    m.parent = `{path.${role.parent.param}}`;
    m.parentField = field;
    row.parent = `path ${role.parent.param} → ${field}`;
    const owner = all.find((r) => r.segment === role.parent!.segment);
    if (owner && owner !== resource)
      m.refs = {
        parent: {
          resource: owner.name,
          id: `{path.${role.parent.param}}`,
          missing: "notFound",
          field: role.parent.param,
        },
      };
  }
  if (role.merge) m.merge = role.merge;
  if (role.action === "list") {
    const shape = listShape(refs, op, resource.recordSchema, resource.idField);
    if (!shape) return undefined;
    if (shape.itemsField !== ".") {
      m.respond = envelopeTemplate(
        doc,
        op.success.schema,
        { ...shape.fills, [shape.itemsField]: "{items}" },
        `list:${op.operationId}`,
      );
    }
    const paging = op.paging ?? shape.paging;
    if (!op.paging && shape.paging) op.paging = shape.paging;
    if (shape.pageSize && paging) m.pageSize = shape.pageSize;
    const fills = Object.entries(shape.fills).map(([path, value]) => `${path} ← ${value.slice(1, -1)}`);
    row.envelope =
      shape.itemsField === "." ? "a bare array of records" : [`records in ${shape.itemsField}`, ...fills].join("; ");
    if (paging) row.paging = pagingLabel(paging);
  } else {
    const at = recordPath(refs, op.success.schema, resource.recordSchema, names);
    if (at !== undefined && at !== "") {
      m.respond = envelopeTemplate(doc, op.success.schema, { [at]: "{record}" }, `record:${op.operationId}`);
      row.envelope = `the record in ${at}`;
    } else if (at === undefined && role.action !== "delete") {
      m.respond = "{example}";
      row.note = "answers its example or a sample (the answer is not a record)";
    } else if (at === "" && role.action === "delete") m.respond = "{record}";
  }
  op.mock.mock = MockOperationSchema.parse(m);
  return row;
}

function idLabel(resource: RestResource): string {
  const id = resource.id;
  return id.format === "random" ? `${id.length} of ${id.alphabet}` : id.format;
}
