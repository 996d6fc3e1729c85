/**
 * Reading values out of JSON by path: the one reader the mock templates, paging, tool errors and
 * triggers share. Own properties only, so an untrusted payload's "__proto__" or "constructor"
 * reads as missing rather than reaching a prototype.
 */
export function getPath(value: unknown, path: string | ReadonlyArray<PropertyKey>): unknown {
  if (path === "" || path === ".") return value;
  let node: unknown = value;
  for (const key of typeof path === "string" ? path.split(".") : path) {
    if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** The first of `paths` that holds a value (not undefined or null). */
export function firstPath(value: unknown, paths: readonly string[]): unknown {
  for (const path of paths) {
    const found = getPath(value, path);
    if (found !== undefined && found !== null) return found;
  }
  return undefined;
}
