/**
 * Inputs for contract calls, built from the spec alone: every required parameter from its example
 * (or enum/default), and the request body from its example. A parameter or body without an example
 * is a spec problem the test names.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
export { freePort } from "../helpers/ports.js";

type Json = Record<string, any>;

export function loadDoc(file: string): Json {
  return parse(readFileSync(file, "utf8")) as Json;
}

export function resolveRef(doc: Json, value: any): any {
  let v = value;
  for (let i = 0; i < 20 && v && typeof v.$ref === "string"; i++) {
    v = v.$ref
      .slice(2)
      .split("/")
      .reduce((n: any, k: string) => n?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return v;
}

export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  op: Json;
}

export function operationsOf(doc: Json): ContractOperation[] {
  const out: ContractOperation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      if (item[method]) out.push({ operationId: item[method].operationId, method, path, op: item[method] });
    }
  }
  return out;
}

function exampleValue(doc: Json, holder: Json | undefined): unknown {
  if (!holder) return undefined;
  if (holder.example !== undefined) return holder.example;
  if (holder.examples && typeof holder.examples === "object" && !Array.isArray(holder.examples)) {
    const first = resolveRef(doc, Object.values(holder.examples)[0]);
    if (first?.value !== undefined) return first.value;
  }
  return undefined;
}

function schemaValue(doc: Json, raw: any): unknown {
  const schema = resolveRef(doc, raw);
  if (!schema) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  return undefined;
}

/** A plain value of a schema without an example: the least the schema allows. */
function synthesize(doc: Json, raw: any): unknown {
  const schema = resolveRef(doc, raw) ?? {};
  const known = schemaValue(doc, schema);
  if (known !== undefined) return known;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return Math.max(schema.minimum ?? 1, 1);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) }, () => synthesize(doc, schema.items));
    case "string":
      if (schema.format === "date-time") return "2024-06-01T00:00:00Z";
      if (schema.format === "date") return "2024-06-01";
      if (schema.format === "email") return "contract@example.com";
      if (schema.format === "uri") return "https://example.com/contract";
      if (typeof schema.pattern === "string") {
        const hex = /^\^\[0-9a-fA-F\]\{(\d+)\}\$$/.exec(schema.pattern);
        if (hex) return "a".repeat(Number(hex[1]));
      }
      return "contract".padEnd(schema.minLength ?? 0, "x");
    default:
      return undefined;
  }
}

/** `{ params: { path, query, header }, body }` for one operation; throws naming what has no example. */
export function inputFor(doc: Json, entry: ContractOperation): Json {
  const item = doc.paths[entry.path];
  const params: Json = {};
  for (const raw of [...(item.parameters ?? []), ...(entry.op.parameters ?? [])]) {
    const p = resolveRef(doc, raw);
    if (!(p.required || p.in === "path")) continue;
    const value = exampleValue(doc, p) ?? synthesize(doc, p.schema);
    if (value === undefined)
      throw new Error(`${entry.operationId}: required ${p.in} parameter "${p.name}" has no example, enum or default`);
    (params[p.in] ??= {})[p.name] = value;
  }
  const init: Json = { params };
  const body = resolveRef(doc, entry.op.requestBody);
  if (body) {
    const media = body.content?.["application/json"];
    const value = exampleValue(doc, media) ?? schemaValue(doc, media?.schema);
    if (value === undefined && body.required) throw new Error(`${entry.operationId}: the request body has no example`);
    if (value !== undefined) init.body = value;
  }
  return init;
}

/** Declared error statuses of an operation (resolved), e.g. ["400", "401", "404", "429"]. */
export function errorStatuses(entry: ContractOperation): string[] {
  return Object.keys(entry.op.responses ?? {}).filter((c) => /^[45]\d\d$/.test(c));
}

/** Named examples of the success response that are service errors inside HTTP 200 (Marketo). */
export function envelopeErrorExamples(
  doc: Json,
  entry: ContractOperation,
  successField: string,
  errorsField: string,
  codeField: string,
): Array<{ key: string; code: string }> {
  const ok = resolveRef(doc, entry.op.responses?.["200"]);
  const media = ok?.content?.["application/json"];
  const out: Array<{ key: string; code: string }> = [];
  for (const [key, raw] of Object.entries<any>(media?.examples ?? {})) {
    const value = resolveRef(doc, raw)?.value;
    if (value && value[successField] === false) out.push({ key, code: String(value[errorsField]?.[0]?.[codeField]) });
  }
  return out;
}
