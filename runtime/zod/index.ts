/**
 * The zod that generated tool and trigger schemas are built with (`import * as z from
 * "stepforge/runtime/zod"`): the runtime's own copy, so `.describe()` texts land in the registry the
 * JSON Schema exports read, even when an application has another zod installed.
 *
 * A plain `export *` and a namespace import on the other side, because bundlers tree-shake that
 * form; a re-exported namespace (`export * as z`) makes esbuild keep every zod module and locale
 * (about 450 KB minified instead of about 90 KB).
 */
export * from "zod";
