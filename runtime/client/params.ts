/**
 * Parameter values on the wire, as OpenAPI's style and explode say (and `content` parameters as
 * JSON), for the query, the path and headers. The descriptor lists only the parameters that are
 * not their place's default (`serialization`); the rest travel as the default does: query `form`
 * exploded (arrays repeat the key, objects become one pair per property), path and header
 * `simple` (comma-joined). openapi-fetch's serialisers do the encoding; this picks the style.
 */
import {
  createQuerySerializer,
  serializeArrayParam,
  serializeObjectParam,
  serializePrimitiveParam,
} from "openapi-fetch";
import type { OperationDescriptor, ParamSerialization } from "../descriptor.js";

export type QuerySerializer = (query: Record<string, unknown>) => string;

/**
 * The default for an undeclared query parameter: form, exploded. openapi-fetch's own default sends
 * objects as deepObject (`point[x]=1`), which OpenAPI only uses when the spec says `deepObject`.
 */
export const defaultQuery: QuerySerializer = createQuerySerializer({ object: { style: "form", explode: true } });

/** The query serialiser of an operation with declared styles; undefined when the default does. */
export function querySerializerFor(op: OperationDescriptor): QuerySerializer | undefined {
  const declared = op.serialization?.query;
  if (!declared || Object.keys(declared).length === 0) return undefined;
  return (query) => {
    const parts: string[] = [];
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      const how = declared[name];
      const part = how ? queryPart(name, value, how) : defaultQuery({ [name]: value });
      if (part) parts.push(part);
    }
    return parts.join("&");
  };
}

function queryPart(name: string, value: unknown, how: ParamSerialization): string {
  if (how.json) return `${encodeURIComponent(name)}=${encodeURIComponent(JSON.stringify(value))}`;
  const style = how.style ?? "form";
  const explode = how.explode ?? (style === "form" || style === "deepObject");
  if (Array.isArray(value)) {
    if (value.length === 0) return "";
    const arrayStyle = style === "deepObject" ? "form" : style;
    return serializeArrayParam(name, value, { style: arrayStyle, explode });
  }
  if (typeof value === "object") {
    // spaceDelimited and pipeDelimited objects are rare; OpenAPI writes them as form with another joiner.
    const objectStyle = style === "deepObject" ? "deepObject" : "form";
    return serializeObjectParam(name, value as Record<string, unknown>, { style: objectStyle, explode });
  }
  return serializePrimitiveParam(name, String(value));
}

/**
 * One path value in its declared style: simple `a,b`, label `.a,b`, matrix `;id=a,b` (exploded:
 * `.a.b`, `;id=a;id=b`; objects `x=1,y=2`), or JSON (`content`), each piece percent-encoded.
 */
export function pathValue(name: string, value: unknown, how: ParamSerialization | undefined): string {
  if (how?.json) return encodeURIComponent(JSON.stringify(value));
  const style = how?.style === "label" || how?.style === "matrix" ? how.style : "simple";
  const explode = how?.explode ?? false;
  if (Array.isArray(value)) return serializeArrayParam(name, value, { style, explode });
  if (value !== null && typeof value === "object") {
    return serializeObjectParam(name, value as Record<string, unknown>, { style, explode });
  }
  const text = encodeURIComponent(value as string | number | boolean);
  if (style === "label") return `.${text}`;
  if (style === "matrix") return `;${encodeURIComponent(name)}=${text}`;
  return text;
}

/**
 * Header parameter values (always `simple`): arrays comma-joined, objects `x,1,y,2` (exploded
 * `x=1,y=2`), JSON for `content` parameters. Headers are not percent-encoded.
 */
export function headerValues(
  op: OperationDescriptor,
  header: Record<string, unknown> | undefined,
): Record<string, string> | undefined {
  if (!header) return undefined;
  const declared = op.serialization?.header;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(header)) {
    if (value === undefined || value === null) continue;
    const how = declared?.[name];
    if (how?.json) out[name] = JSON.stringify(value);
    else if (Array.isArray(value)) out[name] = value.map(String).join(",");
    else if (typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>);
      out[name] = how?.explode
        ? entries.map(([k, v]) => `${k}=${String(v)}`).join(",")
        : entries.flatMap(([k, v]) => [k, String(v)]).join(",");
    } else out[name] = String(value);
  }
  return out;
}
