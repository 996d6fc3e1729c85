/**
 * An operation's parameters: the path item's and the operation's lists checked (a parameter that
 * cannot be sent is left out with a warning), merged with `$ref`s resolved and style and explode
 * worked out, and the path template's parameters matched with the declared ones (an undeclared
 * one is added, in the types document too).
 */
import type { ParameterModel } from "../model.js";
import { asArray, asObject } from "../refs.js";
import { describeValue, type CheckContext, type Path } from "./context.js";
import { type TypesDocument, typesOperation } from "./types-document.js";

const PARAMETER_LOCATIONS = ["path", "query", "header", "cookie"];

/**
 * `parameters` must be a list of objects (or `$ref`s to them) with a string `name` and an `in` of
 * path, query, header or cookie; anything else would be dropped or mis-sent without a word. Such a
 * parameter cannot be sent: a lenient spec is generated without it (a published spec with one
 * nameless header, Notion's, was refused whole), with a warning.
 */
export function checkParameterList(context: CheckContext, list: unknown, at: Path): void {
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
export function collectParameters(context: CheckContext, shared: unknown[], own: unknown[]): ParameterModel[] {
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

export function checkPathParameters(
  context: CheckContext,
  types: TypesDocument,
  raw: { path: string; method: string; at: Path },
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
