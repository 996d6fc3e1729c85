/**
 * SF191: an `in: path` parameter without `required: true`. OpenAPI requires it (a path cannot be
 * sent without its parameters), and the client, the types and the mock already treat every path
 * parameter as required; so a lenient spec is repaired by reading it that way, said as a warning,
 * and a strict one is refused. Spectral's `path-params` reports the same defect in `lint`.
 */
import { asArray, asObject, isObject } from "../refs.js";
import type { CheckContext, Path } from "./context.js";
import { METHODS } from "./methods.js";

export function checkPathParametersRequired(context: CheckContext): void {
  const reported = new Set<string>();
  const check = (list: unknown, at: Path) => {
    asArray(list).forEach((raw, i) => {
      // A parameter written once under components and used by many operations is one defect, at
      // the place it is written.
      const ref = isObject(raw) && typeof raw.$ref === "string" ? raw.$ref : undefined;
      const where: Path = ref?.startsWith("#/") ? pointerPath(ref) : [...at, i];
      const parameter = asObject(context.refs.target(raw));
      if (!parameter || parameter.in !== "path" || parameter.required === true) return;
      const key = where.join("\u0000");
      if (reported.has(key)) return;
      reported.add(key);
      const name = typeof parameter.name === "string" ? `"${parameter.name}" ` : "";
      const found =
        parameter.required === undefined
          ? "has no required: true"
          : `has required: ${JSON.stringify(parameter.required)}`;
      context.repair(
        "SF191",
        where,
        `path parameter ${name}${found}`,
        "add required: true (OpenAPI requires it of every path parameter)",
        "read it as required, as every path parameter is",
      );
    });
  };
  for (const [path, rawItem] of Object.entries(asObject(context.doc.paths) ?? {})) {
    const item = asObject(rawItem);
    if (!item || typeof item.$ref === "string") continue;
    check(item.parameters, ["paths", path, "parameters"]);
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (op) check(op.parameters, ["paths", path, method, "parameters"]);
    }
  }
}

/** `#/components/parameters/Id` → ["components", "parameters", "Id"]. */
function pointerPath(ref: string): Path {
  return ref
    .slice(2)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
