/**
 * The descriptor's `serialization` of an operation: the parameters that do not travel as their
 * place's default (query form exploded; path and header simple, not exploded), with the style and
 * explode the spec gives them, or `json` for `content: application/json` parameters. The client
 * reads it (runtime/client/params.ts); defaults are left out to keep the descriptor small.
 */
import type { OperationDescriptor, ParamSerialization, ParamStyle } from "../../runtime/descriptor.js";
import type { ParameterModel } from "../model.js";

const STYLES: Record<"query" | "path" | "header", ParamStyle[]> = {
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  path: ["simple", "label", "matrix"],
  header: ["simple"],
};

export function serializationOf(parameters: ParameterModel[]): OperationDescriptor["serialization"] {
  const out: NonNullable<OperationDescriptor["serialization"]> = {};
  for (const p of parameters) {
    if (p.in === "cookie") continue;
    const defaultStyle = p.in === "query" ? "form" : "simple";
    const style = STYLES[p.in].includes(p.style as ParamStyle) ? (p.style as ParamStyle) : defaultStyle;
    const explodeDefault = style === "form" || style === "deepObject";
    let how: ParamSerialization | undefined;
    if (p.json) how = { json: true };
    else if (style !== defaultStyle || p.explode !== explodeDefault) {
      how = {
        ...(style !== defaultStyle ? { style } : {}),
        ...(p.explode !== explodeDefault ? { explode: p.explode } : {}),
      };
    }
    if (how) (out[p.in] ??= {})[p.name] = how;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
