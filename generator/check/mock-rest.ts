/**
 * Behaviour from the REST shape of a spec whose mock is not declared: which operations create,
 * read, change, remove and list the records of which resource, and how records are named.
 *
 * - A collection is a path ending in a literal segment (`/books`, `/shelves/{shelfId}/books`); its
 *   item path adds one parameter segment (`/books/{bookId}`). The resource is named by the last
 *   literal segment, so `/books` and `/shelves/{shelfId}/books` hold the same records.
 * - POST on a collection creates; GET, PATCH (merge), PUT (replace) and DELETE on an item path read,
 *   change and remove, looked up by that path parameter whatever its name; GET on a collection
 *   lists. A resource is kept in state only when something creates its records and a schema says
 *   what a record is (the read, create or update answer, unwrapped from `{data: …}`); otherwise its
 *   operations answer their example or a sample, as before.
 * - The id field is the record's `id` (else the path parameter's own name, `bookId`, `book_id`);
 *   a path parameter naming another field of the record (`/users/{username}`) looks records up by
 *   that field. New ids take the form both the id field and the path parameter accept.
 * - A parameter before the collection (`{shelfId}`) is the parent: records created under it keep
 *   it in the record's field for it (`shelfId`, `shelf_id`, `idShelf`, …) and reads, changes and
 *   lists under it see only its records.
 */
import type { MockIdFormat } from "../../runtime/mock/extension.js";
import type { OperationModel } from "../model.js";
import type { RefResolver } from "../refs.js";
import {
  norm,
  objectView,
  propertyNamed,
  resolved,
  sameSchema,
  singular,
  typesOf,
  type Accepts,
  type ObjectView,
} from "./mock-schema.js";

export type RestAction = "create" | "read" | "update" | "delete" | "list";

/** One operation's place in the REST shape. */
export interface RestRole {
  op: OperationModel;
  action: RestAction;
  resource: string;
  /** Item paths: the path parameter naming the record. */
  idParam?: string | undefined;
  /** The path parameter of the parent the collection sits under, and the parent's literal segment. */
  parent?: { param: string; segment: string } | undefined;
  merge?: "deep" | "replace" | undefined;
}

/** A resource kept in state, as inferred. */
export interface RestResource {
  name: string;
  /** Literal segment the resource is named by (`books`). */
  segment: string;
  roles: RestRole[];
  /** One record's schema, and where it sits in each answer that carries one (`""`: the answer is the record). */
  recordSchema: unknown;
  idField: string;
  id: MockIdFormat;
  createdField?: string | undefined;
  updatedField?: string | undefined;
}

type Segment = { literal: string } | { param: string } | { mixed: string };

function segmentsOf(path: string): Segment[] {
  return path
    .split("/")
    .filter(Boolean)
    .map((seg) => {
      const whole = /^\{([^{}]+)\}$/.exec(seg);
      if (whole) return { param: whole[1]! };
      return seg.includes("{") ? { mixed: seg } : { literal: seg };
    });
}

/** A resource name the mock model accepts (an identifier). */
export function resourceName(segment: string): string {
  const words = segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.join("_");
  return /^[A-Za-z]/.test(name) ? name : `r_${name || "records"}`;
}

/** A path parameter that picks one of fixed values (`{filter}` of an enum) names no record. */
function choosesValue(refs: RefResolver, op: OperationModel, name: string): boolean {
  const schema = resolved(refs, op.parameters.find((p) => p.in === "path" && p.name === name)?.schema);
  return Array.isArray(schema.enum) || schema.const !== undefined;
}

/** Each operation's REST role, where it has one. */
export function restRoles(refs: RefResolver, operations: readonly OperationModel[]): RestRole[] {
  const roles: RestRole[] = [];
  for (const op of operations) {
    const segments = segmentsOf(op.path);
    const last = segments.at(-1);
    let collection: Segment[];
    let idParam: string | undefined;
    if (
      last &&
      "param" in last &&
      segments.at(-2) &&
      "literal" in segments.at(-2)! &&
      !choosesValue(refs, op, last.param)
    ) {
      collection = segments.slice(0, -1);
      idParam = last.param;
    } else if (last && "literal" in last) collection = segments;
    else continue;
    const segment = (collection.at(-1) as { literal: string }).literal;
    const parentAt = collection.length >= 2 ? collection.at(-2) : undefined;
    const parentSegment = collection.length >= 3 ? collection.at(-3) : undefined;
    const parent =
      parentAt && "param" in parentAt
        ? {
            param: parentAt.param,
            segment: parentSegment && "literal" in parentSegment ? parentSegment.literal : parentAt.param,
          }
        : undefined;
    const method = op.method;
    let action: RestAction | undefined;
    let merge: RestRole["merge"];
    if (idParam === undefined) action = method === "POST" ? "create" : method === "GET" ? "list" : undefined;
    else if (method === "GET") action = "read";
    else if (method === "PATCH") [action, merge] = ["update", "deep"];
    else if (method === "PUT") [action, merge] = ["update", "replace"];
    else if (method === "DELETE") action = "delete";
    if (!action) continue;
    roles.push({ op, action, resource: resourceName(segment), idParam, parent, merge });
  }
  return roles;
}

const RECORD_WRAPPERS = ["data", "item", "result", "record", "resource", "object", "entity"];

/**
 * Where the record is in an answer's schema: `""` when the answer is one (it has an id-like
 * field, or is the record's own schema), a property name when it wraps one (`{data: Book}`).
 */
export function recordPath(
  refs: RefResolver,
  schema: unknown,
  record: unknown,
  idNames: readonly string[],
): string | undefined {
  if (schema === undefined) return undefined;
  if (record !== undefined && sameSchema(refs, schema, record)) return "";
  const view = objectView(refs, schema);
  if (!view) return undefined;
  if (propertyNamed(view, idNames) !== undefined) return "";
  const wrappers = [...RECORD_WRAPPERS, ...idNames.slice(1)];
  const candidates =
    view.properties.size === 1
      ? [...view.properties.keys()]
      : [propertyNamed(view, wrappers)].filter((n): n is string => n !== undefined);
  for (const name of candidates) {
    const inner = view.properties.get(name);
    if (record !== undefined && sameSchema(refs, inner, record)) return name;
    const innerView = objectView(refs, inner);
    if (innerView && propertyNamed(innerView, idNames) !== undefined) return name;
  }
  return undefined;
}

/** The names an id field of `segment` records goes by: `id`, the path parameter's, `bookId`, `book_id`. */
export function idNames(segment: string, idParam: string | undefined): string[] {
  const one = singular(segment);
  return ["id", ...(idParam ? [idParam] : []), `${one}Id`, `${one}_id`, "uuid", "_id"];
}

/** The schema at `path` of an answer's schema (`""`: the schema itself). */
export function schemaAt(refs: RefResolver, schema: unknown, path: string): unknown {
  return path === "" ? schema : objectView(refs, schema)?.properties.get(path);
}

const CREATED = [
  "createdAt",
  "created",
  "dateCreated",
  "creationDate",
  "createdOn",
  "createTime",
  "createdTime",
  "insertedAt",
];
const UPDATED = [
  "updatedAt",
  "updated",
  "modifiedAt",
  "modified",
  "lastModified",
  "dateUpdated",
  "dateModified",
  "updatedOn",
  "updateTime",
  "lastUpdated",
];

/** A date-time field named for when the record was created or changed, set by the mock then. */
function timeField(refs: RefResolver, view: ObjectView, names: readonly string[]): string | undefined {
  const name = propertyNamed(view, names);
  if (name === undefined) return undefined;
  const s = resolved(refs, view.properties.get(name));
  return typesOf(refs, s).includes("string") && s.format === "date-time" ? name : undefined;
}

/** Resources kept in state, from the roles (see the module's comment for the rules). */
export function restResources(refs: RefResolver, roles: readonly RestRole[], accepts: Accepts): RestResource[] {
  const byName = new Map<string, RestRole[]>();
  for (const role of roles) byName.set(role.resource, [...(byName.get(role.resource) ?? []), role]);
  const out: RestResource[] = [];
  for (const [name, group] of byName) {
    if (!group.some((r) => r.action === "create")) continue;
    // The top-level item path names the record most plainly (`/cards/{id}`, not `/boards/{id}/cards/{idCard}`).
    const itemRole =
      group.find((r) => r.idParam !== undefined && !r.parent) ?? group.find((r) => r.idParam !== undefined);
    const segment =
      segmentsOf(group[0]!.op.path)
        .filter((s): s is { literal: string } => "literal" in s)
        .at(-1)?.literal ?? name;
    const names = idNames(segment, itemRole?.idParam);
    const record = recordSchemaOf(refs, group, names);
    if (record === undefined) continue;
    const view = objectView(refs, record)!;
    const idField = propertyNamed(view, ["id"]) ?? propertyNamed(view, names) ?? "id";
    const idParamSchema = itemRole?.op.parameters.find((p) => p.in === "path" && p.name === itemRole.idParam)?.schema;
    const keyField = itemRole?.idParam !== undefined ? propertyNamed(view, [itemRole.idParam]) : undefined;
    // The path parameter names the id unless it names another field of the record.
    const idSchemas = [
      view.properties.get(idField),
      keyField === undefined || keyField === idField ? idParamSchema : undefined,
    ];
    out.push({
      name,
      segment,
      roles: group,
      recordSchema: record,
      idField,
      id: idFormat(
        refs,
        idSchemas.filter((s) => s !== undefined),
        accepts,
      ),
      createdField: timeField(refs, view, CREATED),
      updatedField: timeField(refs, view, UPDATED),
    });
  }
  return out;
}

/** One record's schema: the read answer's, else the create's, else the update's, unwrapped. */
function recordSchemaOf(refs: RefResolver, group: readonly RestRole[], names: readonly string[]): unknown {
  for (const action of ["read", "create", "update"] as const) {
    for (const role of group.filter((r) => r.action === action)) {
      const schema = role.op.success.schema;
      const at = recordPath(refs, schema, undefined, names);
      if (at === undefined) continue;
      const record = schemaAt(refs, schema, at);
      if (objectView(refs, record)) return record;
    }
  }
  return undefined;
}

/** Candidate ids of each format, tried against the id field's and path parameter's schemas. */
const ID_FORMATS: Array<{ format: MockIdFormat; sample: string }> = [
  { format: { format: "uuid" }, sample: "3f2a9c4e-8b1d-4e6f-a2c3-9d8e7f6a5b4c" },
  { format: { format: "hex24" }, sample: "64b7f0c2a1d3e5f7a9b1c3d5" },
  { format: { format: "random", alphabet: "a-z0-9", length: 16 }, sample: "k3v9q2m8x1c7b4n6" },
  { format: { format: "random", alphabet: "a-z0-9", length: 8 }, sample: "k3v9q2m8" },
  { format: { format: "random", alphabet: "0-9", length: 9 }, sample: "482913657" },
];

/** How new ids look: integers for a numeric id, else the first string format every id schema accepts. */
function idFormat(refs: RefResolver, schemas: unknown[], accepts: Accepts): MockIdFormat {
  const types = schemas.flatMap((s) => typesOf(refs, s));
  if ((types.includes("integer") || types.includes("number")) && !types.includes("string"))
    return { format: "integer", start: 1 };
  const fits = ID_FORMATS.find(({ sample }) => schemas.every((s) => accepts(s, sample)));
  return (fits ?? ID_FORMATS[0]!).format;
}

/** The record field keeping a parent's id: one the record has (`shelfId`, `shelf_id`, `idShelf`), else the param's. */
export function parentFieldOf(
  view: ObjectView | undefined,
  parent: { param: string; segment: string },
  idField: string,
): string {
  const one = singular(parent.segment);
  const candidates = [parent.param, `${one}Id`, `${one}_id`, `id${one}`].filter((n) => norm(n) !== norm(idField));
  const named = view && propertyNamed(view, candidates);
  if (named !== undefined) return named;
  if (norm(parent.param) !== norm(idField)) return parent.param;
  return `${one}Id`;
}
