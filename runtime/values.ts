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

/**
 * Sets `key` as an own data property: written with `=`, a `"__proto__"` key from an untrusted
 * payload or a spec would set the object's prototype instead of holding a value.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The first of `paths` that holds a value (not undefined or null). */
export function firstPath(value: unknown, paths: readonly string[]): unknown {
  for (const path of paths) {
    const found = getPath(value, path);
    if (found !== undefined && found !== null) return found;
  }
  return undefined;
}

/**
 * The paths of every `"__proto__"` key in a JSON value (JSON.parse and YAML make it an own key).
 * Validators built on zod drop such a key from records without a word, so the tool input check
 * and the spec validator both look for it here. Walked without recursion: the value is untrusted
 * and may nest deeply.
 */
export function protoKeyPaths(value: unknown): Array<Array<string | number>> {
  // Each node keeps a link to its parent instead of a copy of its path, so the walk is linear in
  // the value's size however deep it nests; a path is spelled out only for a key that is found.
  interface Visit {
    node: unknown;
    key: string | number;
    parent: Visit | undefined;
  }
  const spell = (visit: Visit): Array<string | number> => {
    const path: Array<string | number> = [];
    for (let v: Visit | undefined = visit; v?.parent; v = v.parent) path.push(v.key);
    return path.reverse();
  };
  const found: Array<Array<string | number>> = [];
  const stack: Visit[] = [{ node: value, key: "", parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const node = visit.node;
    if (node === null || typeof node !== "object") continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((child, i) => [i, child]) : Object.entries(node);
    for (const [key, child] of entries) {
      const next: Visit = { node: child, key, parent: visit };
      if (key === "__proto__") found.push(spell(next));
      stack.push(next);
    }
  }
  return found.sort((a, b) => a.join("\0").localeCompare(b.join("\0")));
}
