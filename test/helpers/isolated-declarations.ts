/**
 * Generated modules are compiled into dist/ one file at a time (cli/compile-generated.ts), their
 * .d.ts by `transpileDeclaration`, which works only when every export's type is written out
 * (`isolatedDeclarations`). This lists what stops that: a test calls it on generated output so a
 * missing annotation fails here, not in a developer's `generate`.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { ts } from "../../generator/compiler.js";
import { filesBelow, toPosix } from "../../generator/files.js";

export function isolatedDeclarationProblems(dir: string): string[] {
  const modules = filesBelow(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  return modules.flatMap((file) => {
    const { diagnostics } = ts.transpileDeclaration(readFileSync(file, "utf8"), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      fileName: file,
      reportDiagnostics: true,
    });
    return diagnostics!.map((d) => {
      const line = d.start === undefined ? 0 : d.file!.getLineAndCharacterOfPosition(d.start).line + 1;
      return `${toPosix(relative(dir, file))}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    });
  });
}
