/**
 * A TypeScript compiler host over files held in memory, for the two programs code mode builds (the
 * service declarations, declarations.ts; the agent's code, typecheck.ts).
 */
import type * as TS from "typescript";

/** What differs between the two: where files come from and how imports resolve. */
export type MemoryFiles = Pick<
  TS.CompilerHost,
  "getSourceFile" | "getDefaultLibFileName" | "getCurrentDirectory" | "fileExists" | "readFile"
> &
  Partial<TS.CompilerHost>;

/** A host that writes nothing, takes file names as given (case-sensitive) and ends lines in "\n". */
export function memoryHost(files: MemoryFiles): TS.CompilerHost {
  return {
    writeFile: () => {},
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    ...files,
  };
}
