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

/**
 * Equality of JSON values as JSON Schema means it (`enum`, `const`): same type, same items in
 * order, same own keys with equal values. Unlike a general deep-equal it never calls a method of
 * the value, so an untrusted object with a `"toString": null` or `"valueOf": 1` key compares as
 * data instead of throwing.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (k) =>
      Object.prototype.hasOwnProperty.call(b, k) &&
      jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** JSON text with sorted keys: two JSON values are equal exactly when their texts are. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/**
 * A JSON value as a lookup key (record ids, filter values, webhook model ids): a scalar's text, an
 * object's or array's canonical JSON. `String(value)` of an untrusted object calls the object's
 * own `toString`, and `{"toString": null}` from a request body made that throw.
 */
export function keyOf(value: unknown): string {
  return value !== null && typeof value === "object" ? canonicalJson(value) : String(value);
}

/**
 * A JSON value as a number the way `Number(value)` reads a scalar; an object or array is NaN
 * (`Number` would call its own `valueOf` / `toString`, as `keyOf` explains).
 */
export function numberOf(value: unknown): number {
  return value !== null && typeof value === "object" ? Number.NaN : Number(value);
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
    const entries: Array<[string | number, unknown]> = Array.isArray(node)
      ? node.map((child, i) => [i, child])
      : Object.entries(node);
    for (const [key, child] of entries) {
      const next: Visit = { node: child, key, parent: visit };
      if (key === "__proto__") found.push(spell(next));
      stack.push(next);
    }
  }
  return found.sort((a, b) => a.join("\0").localeCompare(b.join("\0")));
}
