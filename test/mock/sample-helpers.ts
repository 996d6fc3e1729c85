/**
 * What the sample tests share: an Ajv set up like the mock's request validator (JSON Schema
 * 2020-12 with formats), OpenAPI 3.0 schemas rewritten to 2020-12 for it, and the JSON success
 * responses of a spec.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

const DOC_ID = "sample-spec.json";

/** OpenAPI 3.0's boolean exclusive bounds as 2020-12 numbers; `nullable` without a `type` dropped. */
function to2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(to2020);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "example" || k === "examples") continue;
    const value = k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${DOC_ID}${v}` : to2020(v);
    // a property named __proto__ stays a key
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  // `minimum: 1, exclusiveMinimum: true` is 2020-12's `exclusiveMinimum: 1`; a boolean left over says nothing.
  if (out.exclusiveMinimum === true && typeof out.minimum === "number") {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  }
  if (out.exclusiveMaximum === true && typeof out.maximum === "number") {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  }
  if (typeof out.exclusiveMinimum === "boolean") delete out.exclusiveMinimum;
  if (typeof out.exclusiveMaximum === "boolean") delete out.exclusiveMaximum;
  if (out.nullable !== undefined && out.type === undefined) delete out.nullable;
  return out;
}

/**
 * A validator of schemas inside one document (a spec, or `{ components }` in property tests).
 * ownProperties: without it Ajv reads an inherited `constructor` as a present property.
 */
export class DocumentValidator {
  private readonly ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    logger: false,
    validateFormats: true,
    ownProperties: true,
  });

  constructor(document: unknown) {
    addFormats(this.ajv);
    const doc = to2020(document) as Record<string, unknown>;
    // paths too: a schema may $ref into a path's request body (oas-examples' circular-paths)
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {}, paths: doc.paths ?? {} });
  }

  compile(schema: unknown): ValidateFunction {
    return this.ajv.compile(to2020(schema) as object);
  }
}

export interface ResponseSchema {
  where: string;
  schema: unknown;
}

/** Each operation's JSON success response schema (`GET /cards/{id} 200`). */
export function successSchemas(spec: Record<string, unknown>): ResponseSchema[] {
  const out: ResponseSchema[] = [];
  const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of methods) {
      const op = item?.[method] as { responses?: Record<string, unknown> } | undefined;
      for (const [status, response] of Object.entries(op?.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        let r = response as { $ref?: string; content?: Record<string, { schema?: unknown }> };
        if (typeof r.$ref === "string") r = resolveLocal(spec, r.$ref) as typeof r;
        for (const [type, media] of Object.entries(r?.content ?? {})) {
          if (!/json/i.test(type) || media?.schema === undefined) continue;
          out.push({ where: `${method.toUpperCase()} ${path} ${status} ${type}`, schema: media.schema });
        }
      }
    }
  }
  return out;
}

function resolveLocal(doc: unknown, ref: string): unknown {
  let node = doc;
  for (const part of ref.slice(2).split("/"))
    node = (node as Record<string, unknown>)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}

const EMPTY_DOC = new DocumentValidator({});

/** Samples `schema` (inside `doc`'s components) and returns it after Ajv accepted it. */
export function validSample(
  schema: unknown,
  doc: Record<string, unknown> = {},
  seed: number | string = 1,
  maxDepth?: number,
): unknown {
  const value = sampleFromSchema(schema, { seed, resolve: pointerResolver(doc), maxDepth });
  const validate = (Object.keys(doc).length === 0 ? EMPTY_DOC : new DocumentValidator(doc)).compile(schema);
  if (!validate(value))
    throw new Error(
      `invalid sample ${JSON.stringify(value)} for ${JSON.stringify(schema)}: ${JSON.stringify(validate.errors)}`,
    );
  return value;
}
