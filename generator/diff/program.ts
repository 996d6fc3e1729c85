/**
 * An in-memory TypeScript program over two versions of a service's declarations (types.ts and
 * client.ts, old and new), with the runtime's own declarations and the TypeScript library read
 * from disk. Nothing is written: the compared modules exist only in memory.
 *
 * This uses the compiler API of the `typescript` package rather than ts-morph: `generate` and
 * `diff` already load it (openapi-typescript runs on it), while ts-morph would load a second,
 * bundled compiler — about as long again as the whole comparison (docs/regeneration.md).
 * `stepforge migrate`, which edits a consumer's code, is where ts-morph earns its place.
 *
 * Only `OperationData` is needed from the runtime; `stepforge/runtime` resolves to the runtime's
 * declarations (dist/runtime, or the sources in a checkout without a build), and of its
 * dependencies only openapi-typescript-helpers is offered (zod and the rest stay unresolved and
 * cost nothing).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { installedPackageDir } from "../../runtime/internal/package-bin.js";
import { packageRoot } from "../package-root.js";

export interface Declarations {
  /** types.ts as openapi-typescript wrote it. */
  types: string;
  /** client.ts; its runtime import is pointed at `stepforge/runtime`. */
  client: string;
}

export interface DeclarationProgram {
  checker: ts.TypeChecker;
  oldClient: ts.SourceFile;
  newClient: ts.SourceFile;
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  // The checker needs arrays, promises and literal types: es5 and promises, not the whole ES2022 library.
  lib: ["lib.es5.d.ts", "lib.es2015.promise.d.ts"],
  baseUrl: "/",
  paths: { "stepforge/runtime": ["/sf/runtime/index"] },
};

/** Names the DOM would declare that generated declarations use (the signal of every call). */
const GLOBALS = "interface AbortSignal { readonly aborted: boolean }\ninterface Blob { readonly size: number }\n";

/**
 * A success type through the runtime's OperationData: if the runtime's declarations ever stop
 * resolving, every response type would silently become `any` (and every change compatible).
 */
const PROBE = 'import type { OperationData } from "stepforge/runtime";\nexport type Probe = OperationData<{ responses: { 200: { content: { "application/json": { probe: true } } } } }>;\n';

/** Virtual folders backed by real ones. */
function mounts(): Array<[string, string]> {
  const root = packageRoot();
  const built = join(root, "dist", "runtime");
  const runtime = existsSync(join(built, "index.d.ts")) ? built : join(root, "runtime");
  const list: Array<[string, string]> = [["/sf/runtime/", `${runtime}/`]];
  const helpers = installedPackageDir("openapi-typescript-helpers");
  if (helpers) list.push(["/sf/node_modules/openapi-typescript-helpers/", `${helpers}/`]);
  return list;
}

/** Library and runtime files never change within a process: parse each once (watch mode reuses them). */
const parsed = new Map<string, ts.SourceFile>();

export function declarationProgram(old: Declarations, now: Declarations): DeclarationProgram {
  const virtual = new Map<string, string>([
    ["/old/types.ts", old.types],
    ["/old/client.ts", old.client],
    ["/new/types.ts", now.types],
    ["/new/client.ts", now.client],
    ["/sf/globals.d.ts", GLOBALS],
    ["/sf/probe.ts", PROBE],
  ]);
  const mounted = mounts();
  const libDir = dirname(ts.getDefaultLibFilePath(OPTIONS));
  const real = (path: string): string | undefined => {
    for (const [at, to] of mounted) if (path.startsWith(at)) return to + path.slice(at.length);
    return path.startsWith(`${libDir}/`) ? path : undefined;
  };
  const readText = (path: string): string | undefined => {
    if (virtual.has(path)) return virtual.get(path);
    const file = real(path);
    return file && existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };
  const host: ts.CompilerHost = {
    getSourceFile(path, languageVersion) {
      if (virtual.has(path)) return ts.createSourceFile(path, virtual.get(path)!, languageVersion, true);
      const cached = parsed.get(path);
      if (cached) return cached;
      const text = readText(path);
      if (text === undefined) return undefined;
      const file = ts.createSourceFile(path, text, languageVersion, true);
      parsed.set(path, file);
      return file;
    },
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    writeFile: () => undefined,
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (path) => virtual.has(path) || (real(path) !== undefined && existsSync(real(path)!)),
    readFile: readText,
    directoryExists: (dir) => {
      if (["/", "/old", "/new", "/sf", "/sf/node_modules"].includes(dir)) return true;
      const file = real(`${dir}/`);
      return file !== undefined && existsSync(file) && statSync(file).isDirectory();
    },
    getDirectories: () => [],
  };
  const program = ts.createProgram({
    rootNames: ["/sf/globals.d.ts", "/sf/probe.ts", "/old/client.ts", "/new/client.ts"],
    options: OPTIONS,
    host,
  });
  const checker = program.getTypeChecker();
  const probe = program.getSourceFile("/sf/probe.ts")!.statements.find(ts.isTypeAliasDeclaration)!;
  if (!checker.getTypeAtLocation(probe.name).getProperty("probe")) {
    throw new Error(`the runtime's declarations do not resolve OperationData (in ${mounted[0]![1]}); rebuild stepforge`);
  }
  return {
    checker,
    oldClient: program.getSourceFile("/old/client.ts")!,
    newClient: program.getSourceFile("/new/client.ts")!,
  };
}

/** What a client method takes and what it resolves to, as the checker sees them. */
export function methodTypes(
  program: DeclarationProgram,
  file: ts.SourceFile,
  className: string,
  method: string,
): { input?: ts.Type; output: ts.Type } | undefined {
  const cls = file.statements.find(
    (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === className,
  );
  const member = cls?.members.find(
    (m): m is ts.MethodDeclaration => ts.isMethodDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === method,
  );
  if (!member) return undefined;
  const { checker } = program;
  const signature = checker.getSignatureFromDeclaration(member);
  if (!signature) return undefined;
  const param = signature.parameters[0];
  const output = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  return { ...(param ? { input: checker.getTypeOfSymbol(param) } : {}), output };
}
