/**
 * Module hooks (node:module `register`) that hand ts-blank-space the TypeScript compiler this
 * process already `require`d, instead of letting its ES `import ts from "typescript"` load the 9 MB
 * CommonJS file through the ES loader. That path makes Node 20 compile the file once to detect its
 * module format and scan it for export names before running it: about 0.5 s of CPU in a cold
 * `generate`, as much as the compile itself. The redirect applies to that one import; every other
 * module resolves as usual. ts-blank-space reads only the default export (the `ts` namespace).
 */
import { createRequire, type LoadHook, type ResolveHook } from "node:module";

const SCHEME = "stepforge-required:";

export const resolve: ResolveHook = (specifier, context, nextResolve) => {
  if (specifier !== "typescript" || !context.parentURL?.includes("/ts-blank-space/"))
    return nextResolve(specifier, context);
  // The compiler ts-blank-space itself would find, so a nested install keeps its own version.
  const path = createRequire(context.parentURL).resolve("typescript");
  return { url: `${SCHEME}${encodeURIComponent(path)}`, shortCircuit: true };
};

export const load: LoadHook = (url, context, nextLoad) => {
  if (!url.startsWith(SCHEME)) return nextLoad(url, context);
  const path = JSON.stringify(decodeURIComponent(url.slice(SCHEME.length)));
  const source = `import { createRequire } from "node:module";\nexport default createRequire(${path})(${path});\n`;
  return { format: "module", source, shortCircuit: true };
};
