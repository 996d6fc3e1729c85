/**
 * Checks traffic against a spec, for the validation proxy: a request's parameters and body, and an
 * answer's status, content type and body. Where the mock's validator stops at the first problem
 * (a mock answers one 400), this one reports every difference, each with a JSON pointer, what the
 * spec expects and the value seen.
 *
 * It reads schemas exactly as the mock does: Ajv 2020 with the mock's dialect (mock/dialect.ts:
 * OpenAPI 3.0 spellings, readOnly/writeOnly by direction, discriminated oneOf as anyOf), the mock's
 * JSON equality for enum/const, and the mock's coercion of query text. Answers are also checked
 * with closed objects (closed.ts), so a field the spec does not list is reported.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ServiceDescriptor } from "../descriptor.js";
import { requestComponents, requestSchema } from "../mock/dialect.js";
import type { MockDefinition, MockOperationSpec } from "../mock/index.js";
import { Router } from "../mock/router.js";
import { coerce, type RequestParts, withJsonEquality } from "../mock/validate.js";
import { closeComponents, closeSchema } from "./closed.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
  options?: { mode?: "fast" | "full" },
) => void;

const REQUEST_ID = "stepforge-drift-request.json";
const RESPONSE_ID = "stepforge-drift-response.json";

export interface DeclaredResponse {
  /** The media types the spec lists for this answer (empty: no body). */
  contentTypes: string[];
  /** The JSON body's schema, if the spec gives one. */
  schema?: unknown;
}

export interface ConformanceOperation {
  operationId: string;
  method: string;
  path: string;
  parameters: MockOperationSpec["parameters"];
  body?: MockOperationSpec["body"];
  /** By status as the spec writes it: "200", "4XX", "default". */
  responses: Record<string, DeclaredResponse>;
}

/** What the proxy checks against: from a spec (the CLI builds it) or from a generated mock. */
export interface ConformanceDefinition {
  descriptor: ServiceDescriptor;
  operations: Record<string, ConformanceOperation>;
  /** The spec's `components`. */
  components: unknown;
}

/** A generated mock's definition as a conformance definition: only success answers are declared there. */
export function conformanceFromMock(definition: MockDefinition): ConformanceDefinition {
  const operations: Record<string, ConformanceOperation> = {};
  for (const [id, op] of Object.entries(definition.operations)) {
    const { success } = op;
    operations[id] = {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      parameters: op.parameters,
      ...(op.body ? { body: op.body } : {}),
      responses: {
        [String(success.status)]: {
          contentTypes: success.contentType ? [success.contentType] : [],
          ...(success.schema !== undefined ? { schema: success.schema } : {}),
        },
      },
    };
  }
  return { descriptor: definition.descriptor, operations, components: definition.components };
}

export type DifferenceKind =
  | "unknown-route"
  | "missing-parameter"
  | "missing-body"
  | "undeclared-status"
  | "content-type"
  | "not-json"
  | "missing-field"
  | "undocumented-field"
  | "type"
  | "enum"
  | "format"
  | "no-alternative"
  | "constraint";

export interface Difference {
  /** The operation id, or "" when the request matched no operation. */
  operation: string;
  direction: "request" | "response";
  /** The answer's status (response differences). */
  status?: number | undefined;
  kind: DifferenceKind;
  /** JSON pointer: `/query/fields`, `/path/id`, `/header/x-trace`, `/body/labels/0/color`; "" for the whole. */
  pointer: string;
  /** What the spec says, in words: `type string`, `required`, `one of ["a","b"]`, `not in the spec`. */
  expected: string;
  /** The value seen (unredacted here; the report redacts and cuts it). Absent for a missing value. */
  value?: unknown;
  /** The JSON type of the value seen (`string`, `object`, `null`, …). */
  got?: string | undefined;
}

/** A request as the proxy saw it: what the mock's validator reads, and its content type. */
export interface RequestSeen extends RequestParts {
  contentType: string | undefined;
}

export interface AnswerSeen {
  status: number;
  contentType: string | undefined;
  /** The body's bytes. */
  body: Buffer;
}

/** JSON type name of a value, as JSON Schema names them. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/** The value at a JSON pointer (instance paths as Ajv gives them). */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const isJsonType = (contentType: string | undefined) => contentType !== undefined && /[/+]json\b/i.test(contentType);
const mediaOf = (contentType: string | undefined) => contentType?.split(";")[0]?.trim().toLowerCase();

/** The declared answer for a status: the exact code, then `4XX`, then `default`. */
export function declaredFor(op: ConformanceOperation, status: number): DeclaredResponse | undefined {
  return (
    op.responses[String(status)] ??
    op.responses[`${String(status)[0]}XX`] ??
    op.responses[`${String(status)[0]}xx`] ??
    op.responses.default
  );
}

export class ConformanceChecker {
  readonly definition: ConformanceDefinition;
  private readonly ajv: Ajv2020;
  private readonly router = new Router<ConformanceOperation>();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly responseChecks = new WeakMap<DeclaredResponse, ValidateFunction>();
  /** `$ref` → the response-direction component it names (closed.ts decides what to close by it). */
  private readonly responseResolve: (ref: string) => unknown;

  /**
   * `formats: "fast"` checks formats by their shape only (a date-time's digits and separators, not
   * whether February has a 30th): half the cost of a check, for the client's per-answer check.
   */
  constructor(definition: ConformanceDefinition, options: { formats?: "fast" | "full" } = {}) {
    this.definition = definition;
    this.ajv = new Ajv2020({
      strict: false,
      allErrors: true,
      logger: false,
      validateFormats: true,
      ownProperties: true,
    });
    addFormats(this.ajv, { mode: options.formats ?? "full" });
    withJsonEquality(this.ajv);
    this.ajv.addSchema({ $id: REQUEST_ID, components: requestComponents(definition.components, REQUEST_ID) });
    const responseComponents = requestComponents(definition.components, RESPONSE_ID, "response");
    const resolve = (ref: string) =>
      ref.startsWith(`${RESPONSE_ID}#/`)
        ? valueAt({ components: responseComponents }, ref.slice(RESPONSE_ID.length + 1))
        : undefined;
    this.responseResolve = resolve;
    this.ajv.addSchema({ $id: RESPONSE_ID, components: closeComponents(responseComponents, resolve) });
    for (const op of Object.values(definition.operations))
      this.router.add(op.method, op.path, op, (o) => o.operationId);
  }

  /** The operation a request is for, and its path parameters. */
  route(method: string, pathname: string): { op: ConformanceOperation; params: Record<string, string> } | undefined {
    const m = method.toUpperCase();
    const found = this.router.match(m, pathname) ?? (m === "HEAD" ? this.router.match("GET", pathname) : undefined);
    return found ? { op: found.value, params: found.params } : undefined;
  }

  private compile(key: string, make: () => unknown): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(make() as object);
      this.compiled.set(key, fn);
    }
    return fn;
  }

  /** Every way the request differs from the operation's parameters and body. */
  checkRequest(op: ConformanceOperation, seen: RequestSeen): Difference[] {
    const out: Difference[] = [];
    const base = { operation: op.operationId, direction: "request" as const };
    for (const p of op.parameters) {
      if (p.in === "cookie") continue;
      let raw: string[];
      if (p.in === "path") raw = seen.path[p.name] !== undefined ? [seen.path[p.name]!] : [];
      else if (p.in === "query") raw = seen.query.getAll(p.name);
      else {
        const h = seen.headers[p.name.toLowerCase()];
        raw = h === undefined ? [] : Array.isArray(h) ? h : [h];
      }
      const pointer = `/${p.in}/${escapePointer(p.name)}`;
      if (raw.length === 0) {
        if (p.required) out.push({ ...base, kind: "missing-parameter", pointer, expected: "required" });
        continue;
      }
      if (p.schema === undefined) continue;
      const fn = this.compile(`${op.operationId}:${p.in}:${p.name}`, () => requestSchema(p.schema, REQUEST_ID));
      const value = coerce(p.schema, raw, p.explode ?? true);
      if (!fn(value)) out.push(...this.differences(fn.errors, value, base, pointer));
    }
    if (op.body) {
      const pointer = "/body";
      if (!seen.hasBody) {
        if (op.body.required) out.push({ ...base, kind: "missing-body", pointer, expected: "a request body" });
      } else {
        const declared = op.body.contentTypes.map((t) => t.toLowerCase());
        const media = mediaOf(seen.contentType);
        if (declared.length && media && !declared.includes(media)) {
          out.push({
            ...base,
            kind: "content-type",
            pointer,
            expected: declared.join(" or "),
            value: seen.contentType,
          });
        } else if (op.body.schema !== undefined && (media === undefined || isJsonType(media))) {
          const fn = this.compile(`${op.operationId}:body`, () => requestSchema(op.body!.schema, REQUEST_ID));
          if (!fn(seen.body)) out.push(...this.differences(fn.errors, seen.body, base, pointer));
        }
      }
    }
    return out;
  }

  /** Every way an answer differs from what the operation declares for its status. */
  checkResponse(op: ConformanceOperation, answer: AnswerSeen): Difference[] {
    const base = { operation: op.operationId, direction: "response" as const, status: answer.status };
    const declared = declaredFor(op, answer.status);
    if (!declared) {
      const statuses = Object.keys(op.responses);
      return [
        {
          ...base,
          kind: "undeclared-status",
          pointer: "",
          expected: statuses.length ? `one of ${statuses.join(", ")}` : "no answer declared",
          value: answer.status,
        },
      ];
    }
    const media = mediaOf(answer.contentType);
    const types = declared.contentTypes.map((t) => t.toLowerCase());
    if (answer.body.length === 0) {
      return types.length && declared.schema !== undefined
        ? [{ ...base, kind: "missing-body", pointer: "/body", expected: `a ${types.join(" or ")} body` }]
        : [];
    }
    if (types.length === 0)
      return [
        { ...base, kind: "content-type", pointer: "/body", expected: "no body", value: answer.contentType ?? "(none)" },
      ];
    const wildcard = types.some((t) => t === "*/*" || (t.endsWith("/*") && media?.startsWith(t.slice(0, -1))));
    if (!wildcard && (!media || !types.includes(media))) {
      return [
        {
          ...base,
          kind: "content-type",
          pointer: "/body",
          expected: types.join(" or "),
          value: answer.contentType ?? "(none)",
        },
      ];
    }
    if (declared.schema === undefined || !isJsonType(media)) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString("utf8"));
    } catch {
      return [
        {
          ...base,
          kind: "not-json",
          pointer: "/body",
          expected: "JSON",
          value: answer.body.subarray(0, 200).toString("utf8"),
        },
      ];
    }
    const fn = this.compile(`${op.operationId}:${answer.status}:response`, () =>
      closeSchema(requestSchema(declared.schema, RESPONSE_ID, "response"), this.responseResolve),
    );
    return fn(body) ? [] : this.differences(fn.errors, body, base, "/body");
  }

  /**
   * A body the client already parsed, against the operation's schema for `status` (the client's
   * `validate` option): the same checks as `checkResponse` past the content type.
   */
  checkParsedBody(op: ConformanceOperation, status: number, body: unknown): Difference[] {
    const declared = declaredFor(op, status);
    if (declared?.schema === undefined) return [];
    // Found by the declared answer itself: no key built, no closure made, per answer checked (the
    // client checks every answer; statuses sharing a declaration share its function).
    let fn = this.responseChecks.get(declared);
    if (!fn) {
      const schema = closeSchema(requestSchema(declared.schema, RESPONSE_ID, "response"), this.responseResolve);
      fn = this.ajv.compile(schema as object);
      this.responseChecks.set(declared, fn);
    }
    if (fn(body)) return [];
    return this.differences(fn.errors, body, { operation: op.operationId, direction: "response", status }, "/body");
  }

  /** Ajv's errors as differences; branch errors under an `anyOf`/`oneOf` that failed are folded into it. */
  private differences(
    errors: ErrorObject[] | null | undefined,
    data: unknown,
    base: Omit<Difference, "kind" | "pointer" | "expected">,
    prefix: string,
  ): Difference[] {
    const all = errors ?? [];
    const folded = all.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => `${e.schemaPath}/`);
    const out: Difference[] = [];
    for (const e of all) {
      if (folded.some((f) => e.schemaPath.startsWith(f))) continue;
      const params = e.params as Record<string, unknown>;
      let path = e.instancePath;
      let kind: DifferenceKind;
      let expected: string;
      let present = true;
      switch (e.keyword) {
        case "required":
          path += `/${escapePointer(String(params.missingProperty))}`;
          kind = "missing-field";
          expected = "required";
          present = false;
          break;
        case "unevaluatedProperties":
        case "additionalProperties": {
          const name = String(params.unevaluatedProperty ?? params.additionalProperty);
          path += `/${escapePointer(name)}`;
          kind = "undocumented-field";
          expected =
            e.keyword === "additionalProperties" ? "not allowed (additionalProperties: false)" : "not in the spec";
          break;
        }
        case "type":
          kind = "type";
          expected = `type ${Array.isArray(params.type) ? params.type.join(" or ") : String(params.type)}`;
          break;
        case "enum":
          kind = "enum";
          expected = `one of ${JSON.stringify(params.allowedValues).slice(0, 300)}`;
          break;
        case "const":
          kind = "enum";
          expected = `equal to ${JSON.stringify(params.allowedValue).slice(0, 300)}`;
          break;
        case "format":
          kind = "format";
          expected = `format ${String(params.format)}`;
          break;
        case "anyOf":
        case "oneOf":
          kind = "no-alternative";
          expected =
            e.keyword === "oneOf" && params.passingSchemas
              ? "exactly one alternative (several matched)"
              : "one of the alternatives";
          break;
        default:
          kind = "constraint";
          expected = e.message ?? e.keyword;
      }
      const value = present ? valueAt(data, path) : undefined;
      out.push({
        ...base,
        kind,
        pointer: prefix + path,
        expected,
        ...(present ? { value, got: jsonType(value) } : {}),
      });
    }
    return out;
  }
}
