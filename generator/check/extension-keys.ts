/**
 * The names of the `x-stepforge` extensions and the check that every `x-stepforge…` key is one of
 * them. Kept apart from the schemas (zod, in the runtime) so a check that reads no extension
 * loads no zod: see parts.ts. test/check/extension-parts.test.ts holds the list to the schema's keys.
 */
import { asObject } from "../refs.js";
import { closest, type CheckContext } from "./context.js";
import { METHODS } from "./methods.js";

export const ROOT_EXTENSION = "x-stepforge";
export const TRIGGERS_EXTENSION = "x-stepforge-triggers";

/** The keys of OperationExtensionsSchema (runtime/descriptor-schemas.ts), in its order. */
export const OPERATION_EXTENSIONS: readonly string[] = [
  "x-stepforge-paging",
  "x-stepforge-idempotent",
  "x-stepforge-limit-class",
  "x-stepforge-seed",
  "x-stepforge-tool",
  "x-stepforge-mock",
];

/** An `x-stepforge…` key the schemas do not know is almost always a typo; say what was meant. */
export function checkUnknownExtensions(context: CheckContext): void {
  const { doc, report } = context;
  for (const key of Object.keys(doc)) {
    if (key.startsWith("x-stepforge") && key !== ROOT_EXTENSION && key !== TRIGGERS_EXTENSION) {
      report(
        "SF108",
        [key],
        `unknown extension "${key}" at the root; the root takes only "${ROOT_EXTENSION}" and "${TRIGGERS_EXTENSION}"`,
      );
    }
  }
  for (const [path, rawItem] of Object.entries(asObject(doc.paths) ?? {})) {
    const item = asObject(rawItem) ?? {};
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (!op) continue;
      for (const key of Object.keys(op)) {
        if (key.startsWith("x-stepforge") && !OPERATION_EXTENSIONS.includes(key)) {
          const hint = closest(key, OPERATION_EXTENSIONS);
          report(
            "SF109",
            ["paths", path, method, key],
            `unknown extension "${key}"${hint ? `; did you mean "${hint}"?` : ""} ` +
              `(operations take ${OPERATION_EXTENSIONS.join(", ")})`,
          );
        }
      }
    }
  }
}

/**
 * Whether the document has an `x-stepforge…` key where the check could read one: at its root, in
 * a path item or in an operation (any key of a path item, wider than METHODS: erring this way only
 * loads the parts). Only then does its check need the extension parts (parts.ts).
 */
export function writesExtensions(doc: unknown): boolean {
  const root = asObject(doc) ?? {};
  const named = (node: unknown) => Object.keys(asObject(node) ?? {}).some((key) => key.startsWith("x-stepforge"));
  if (named(root)) return true;
  return Object.values(asObject(root.paths) ?? {}).some(
    (item) => named(item) || Object.values(asObject(item) ?? {}).some(named),
  );
}
