/**
 * The copy of the spec openapi-typescript reads, made on the first repair, so the types agree
 * with the client where a lenient spec was repaired (an operationId renamed, a path parameter
 * added). Apart from the checks that write into it (operation-ids.ts, parameters.ts).
 */
import { asObject, type Json, RefResolver } from "../refs.js";
import { METHODS } from "./methods.js";

/** A copy of the document for openapi-typescript, made on the first repair. */
export interface TypesDocument {
  get(): Json;
  patch(edit: (doc: Json) => void): void;
}

export function typesDocument(doc: Json): TypesDocument {
  let copy: Json | undefined;
  return {
    get: () => copy ?? doc,
    patch(edit) {
      copy ??= structuredClone(doc);
      edit(copy);
    },
  };
}

/**
 * The operation at `path` and `method` in the types document, for a repair to be written into. A
 * `$ref`'d path item is copied in first, so the repair does not change the item it shares (and
 * the path gets the parameters its own template needs); the copy's operationIds are dropped, as
 * openapi-typescript refuses two operations with one id (the client types by path and method).
 */
export function typesOperation(copy: Json, path: string, method: string): Json | undefined {
  const paths = asObject(copy.paths);
  let item = asObject(paths?.[path]);
  if (paths && item && typeof item.$ref === "string") {
    item = structuredClone(new RefResolver(copy).deref(item));
    for (const m of METHODS) delete asObject(item[m])?.operationId;
    paths[path] = item;
  }
  return asObject(item?.[method]);
}
