/**
 * Error answers in the spec's own shape, for a mock the spec does not declare: the body of a 404
 * is the spec's 404 response (its schema sampled, or its example when valid) with the mock's
 * message in its message field; likewise 401 for a missing credential and 400/422 for a request
 * the spec refuses. The general error body is the error response most operations declare.
 */
import type { MockAnswers, MockErrorTemplate, MockSituation } from "../../runtime/mock/extension.js";
import { DEFAULT_ANSWERS } from "../../runtime/mock/answers.js";
import type { OperationModel } from "../model.js";
import { asObject, type Json, type RefResolver } from "../refs.js";
import { jsonErrorMedia, MESSAGE_FIELDS } from "./error-media.js";
import { envelopeTemplate } from "./mock-lists.js";
import {
  findField,
  norm,
  type Accepts,
  objectView,
  propertyNamed,
  resolved,
  typesOf,
  type ObjectView,
} from "./mock-schema.js";

interface ErrorResponse {
  status: string;
  contentType: string;
  schema?: unknown;
  example?: unknown;
  /** What makes two responses the same (a component reference, or the schema's JSON). */
  identity: string;
}

const CODE_FIELDS = ["code", "type", "error", "kind", "reason", "errorCode", "error_code", "status"];
/** Words of a situation an enum member of a code field may hold (`not_found`, `NotFound`, `UNAUTHORIZED`). */
const SITUATION_WORDS: Partial<Record<MockSituation | "error", string[]>> = {
  notFound: ["notfound", "missing", "nosuch", "unknown"],
  noRoute: ["notfound", "noroute", "unknown"],
  unauthorized: ["unauthorized", "unauthenticated", "auth", "credential", "token"],
  expiredToken: ["expired", "unauthorized", "unauthenticated", "token"],
  badRequest: ["invalid", "badrequest", "validation", "unprocessable"],
  invalidJson: ["invalid", "badrequest", "parse", "json"],
};
const STATUS_FIELDS = ["status", "statusCode", "status_code", "httpStatus", "code"];

/** Every JSON error response the operations declare, per status (`default` included). */
function errorResponses(refs: RefResolver, doc: Json, operations: readonly OperationModel[]): ErrorResponse[] {
  const out: ErrorResponse[] = [];
  const paths = asObject(doc.paths) ?? {};
  for (const op of operations) {
    const raw = asObject(refs.deref(paths[op.path])[op.method.toLowerCase()]);
    for (const { status, contentType, media } of jsonErrorMedia(refs, raw)) {
      const example =
        media.example !== undefined
          ? media.example
          : asObject(refs.target(Object.values(asObject(media.examples) ?? {})[0]))?.value;
      if (media.schema === undefined && example === undefined) continue;
      const ref = typeof asObject(media.schema)?.$ref === "string" ? String(asObject(media.schema)!.$ref) : undefined;
      out.push({
        status: status.toLowerCase(),
        contentType,
        schema: media.schema,
        example,
        identity: ref ?? JSON.stringify(media.schema ?? example),
      });
    }
  }
  return out;
}

/** The response most operations declare among those with one of `statuses`. */
function mostCommon(responses: readonly ErrorResponse[], statuses: readonly string[]): ErrorResponse | undefined {
  const counts = new Map<string, { n: number; first: ErrorResponse }>();
  for (const r of responses.filter(
    (x) => statuses.includes(x.status) || (statuses.includes("4xx") && /^4/.test(x.status)),
  )) {
    const c = counts.get(r.identity);
    if (c) c.n++;
    else counts.set(r.identity, { n: 1, first: r });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.first;
}

/** A field of `type` that sets none of `constraints`: a value of the mock's own fits its schema. */
const unconstrained = (refs: RefResolver, s: unknown, type: string, constraints: readonly string[]) => {
  const r = resolved(refs, s);
  return typesOf(refs, s).includes(type) && constraints.every((keyword) => r[keyword] === undefined);
};
/** A plain text field: the mock's message may go in it without breaking the schema. */
const freeText = (refs: RefResolver, s: unknown) =>
  unconstrained(refs, s, "string", ["enum", "const", "pattern", "format", "maxLength"]);
/** A bare integer field: the status may go in it. */
const freeNumber = (refs: RefResolver, s: unknown) =>
  unconstrained(refs, s, "integer", ["enum", "const", "minimum", "maximum"]);

/** One response's error template: its valid example or a sample, `{message}` and `{status}` written in. */
function templateOf(
  refs: RefResolver,
  doc: Json,
  response: ErrorResponse,
  accepts: Accepts,
  seed: MockSituation | "error",
): MockErrorTemplate {
  const fills: Record<string, string> = {};
  const view = response.schema !== undefined ? objectView(refs, response.schema) : undefined;
  const codes: Record<string, unknown> = {};
  if (view) {
    const words = SITUATION_WORDS[seed] ?? [];
    for (const field of codeFields(refs, view)) {
      const member = field.members.find((m) => typeof m === "string" && words.some((w) => norm(m).includes(w)));
      if (member !== undefined) codes[field.path] = member;
    }
    const message = findField(refs, view, MESSAGE_FIELDS, (s) => freeText(refs, s)) ?? nestedMessage(refs, view);
    if (message) fills[message.path] = "{message}";
    const status = findField(refs, view, STATUS_FIELDS, (s) => freeNumber(refs, s));
    if (status) fills[status.path] = "{status}";
  }
  const validExample =
    response.example !== undefined && (response.schema === undefined || accepts(response.schema, response.example))
      ? response.example
      : undefined;
  const body =
    response.schema === undefined
      ? validExample
      : view
        ? withValues(envelopeTemplate(doc, response.schema, fills, seed, validExample), codes)
        : (validExample ?? envelopeTemplate(doc, response.schema, {}, seed));
  return { contentType: response.contentType, body };
}

/** Enum fields named like an error code, at the top and one object down: their paths and members. */
function codeFields(refs: RefResolver, view: ObjectView): Array<{ path: string; members: unknown[] }> {
  const out: Array<{ path: string; members: unknown[] }> = [];
  const scan = (v: ObjectView, prefix: string, depth: number) => {
    for (const [name, sub] of v.properties) {
      const members = resolved(refs, sub).enum;
      if (Array.isArray(members) && propertyNamed({ ...v, properties: new Map([[name, sub]]) }, CODE_FIELDS))
        out.push({ path: `${prefix}${name}`, members });
      const inner = depth === 0 ? objectView(refs, sub) : undefined;
      if (inner) scan(inner, `${prefix}${name}.`, depth + 1);
    }
  };
  scan(view, "", 0);
  return out;
}

/** `template` with values written at dotted paths (into objects it already has). */
function withValues(template: unknown, values: Record<string, unknown>): unknown {
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split(".");
    let node = template as Record<string, unknown> | undefined;
    for (const key of keys.slice(0, -1))
      node = node && typeof node[key] === "object" ? (node[key] as Record<string, unknown>) : undefined;
    if (node && typeof node === "object") node[keys.at(-1)!] = value;
  }
  return template;
}

/** `{error: {message}}`: a message one object down (findField looks only in paging containers). */
function nestedMessage(refs: RefResolver, view: ObjectView): { path: string } | undefined {
  for (const [name, sub] of view.properties) {
    const inner = objectView(refs, sub);
    if (!inner || !view.required.has(name)) continue;
    const found = findField(refs, inner, MESSAGE_FIELDS, (s) => freeText(refs, s));
    if (found && inner.required.has(found.path)) return { path: `${name}.${found.path}` };
  }
  return undefined;
}

export interface InferredErrors {
  error: MockErrorTemplate;
  answers: MockAnswers;
  /** Which response each answer was shaped from (`404 #/components/schemas/Error`), for --explain. */
  sources: Partial<Record<MockSituation | "error", string>>;
}

/** The general error template and the per-situation answers, from the spec's error responses. */
export function inferErrors(
  refs: RefResolver,
  doc: Json,
  operations: readonly OperationModel[],
  accepts: Accepts,
): InferredErrors {
  const responses = errorResponses(refs, doc, operations);
  const describe = (r: ErrorResponse) => `${r.status} ${r.identity.startsWith("#") ? r.identity : r.contentType}`;
  const general = mostCommon(responses, ["4xx", "default"]);
  const sources: InferredErrors["sources"] = {};
  const error: MockErrorTemplate = general
    ? templateOf(refs, doc, general, accepts, "error")
    : { contentType: "application/json", body: { message: "{message}" } };
  if (general) sources.error = describe(general);
  const answers: MockAnswers = {};
  const situations: Array<[MockSituation, string[]]> = [
    ["notFound", ["404"]],
    ["noRoute", ["404"]],
    ["unauthorized", ["401"]],
    ["expiredToken", ["401"]],
    ["badRequest", ["400", "422"]],
    ["invalidJson", ["400"]],
  ];
  for (const [situation, statuses] of situations) {
    const response = mostCommon(responses, statuses);
    if (!response) continue;
    const status = /^4\d\d$/.test(response.status) ? { status: Number(response.status) } : {};
    answers[situation] = {
      ...DEFAULT_ANSWERS[situation],
      ...status,
      template: templateOf(refs, doc, response, accepts, situation),
    };
    sources[situation] = describe(response);
  }
  return { error, answers, sources };
}
