/**
 * An operation's own server: OpenAPI `servers` at operation level, else at path level (the most
 * specific wins), the first entry with its variables at their defaults. The descriptor carries it
 * as `server`; the client sends that operation's requests there (runtime/client/address.ts).
 */
import { asArray, asObject, type Json } from "../refs.js";

export function operationServer(doc: Json, path: string, method: string): string | undefined {
  const pathItem = asObject(asObject(doc.paths)?.[path]);
  const operation = asObject(pathItem?.[method.toLowerCase()]);
  for (const servers of [operation?.servers, pathItem?.servers]) {
    const first = asObject(asArray(servers)[0]);
    if (typeof first?.url !== "string" || first.url === "") continue;
    const variables = asObject(first.variables) ?? {};
    const url = first.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const value = asObject(variables[name])?.default;
      return typeof value === "string" ? value : whole;
    });
    // A variable without a default cannot be filled: the operation keeps the service's base.
    return url.includes("{") ? undefined : url;
  }
  return undefined;
}
