/**
 * An in-memory TypeScript program over two versions of a service's declarations (types.ts and
 * client.ts, old and new), with the runtime's OperationData and the part of TypeScript's library
 * the checker can meet (library.ts). Nothing is written: the compared modules exist only in memory.
 *
 * This uses the compiler API of the `typescript` package rather than ts-morph: ts-morph would load
 * a second, bundled compiler — about as long again as the whole comparison (docs/regeneration.md).
 * `stepforge migrate`, which edits a consumer's code, is where ts-morph earns its place.
 *
 * What the program holds is what the verdicts need and no more, since parsing and binding are most
 * of its cost: of the runtime, only the module that declares `OperationData` (it imports nothing);
 * JSDoc is not parsed (comments are the bulk of a generated client and decide nothing).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type TypeScript from "typescript";
import { packageRoot } from "../package-root.js";
import { ts } from "../compiler.js";
import { checkerLibrary } from "./library.js";

export interface Declarations {
  /** types.ts as openapi-typescript wrote it. */
  types: string;
  /** client.ts; its runtime import is pointed at `stepforge/runtime`. */
  client: string;
}

export interface DeclarationProgram {
  checker: TypeScript.TypeChecker;
  oldClient: TypeScript.SourceFile;
  newClient: TypeScript.SourceFile;
}

const LIBRARY = "/sf/lib.d.ts";

/** Names the DOM would declare that generated declarations use (the signal of every call). */
const GLOBALS = "interface AbortSignal { readonly aborted: boolean }\ninterface Blob { readonly size: number }\n";

/**
 * A success type through the runtime's OperationData: if the runtime's declarations ever stop
 * resolving, every response type would silently become `any` (and every change compatible).
 */
const PROBE = [
  'import type { OperationData } from "stepforge/runtime";',
  'export type Probe = OperationData<{ responses: { 200: { content: { "application/json": { probe: true } } } } }>;',
  "",
].join("\n");

/** The runtime's declarations (dist/runtime), or its sources in a checkout without a build. */
function runtimeDir(): string {
  const built = join(packageRoot(), "dist", "runtime");
  return existsSync(join(built, "index.d.ts")) ? built : join(packageRoot(), "runtime");
}

/** The runtime module that declares OperationData, as the runtime's index exports it ("client/operation-types"). */
function operationDataModule(dir: string): string {
  const index = ["index.d.ts", "index.ts"].map((name) => join(dir, name)).find(existsSync);
  const text = index ? readFileSync(index, "utf8") : "";
  const from = /export type \{[^}]*\bOperationData\b[^}]*\} from "\.\/([^"]+)\.js"/.exec(text);
  if (!from) throw new Error(`the runtime's index (in ${dir}) does not export OperationData; rebuild stepforge`);
  return from[1]!;
}

/** Virtual folders backed by real ones: the one runtime module. */
function mounts(): { list: Array<[string, string]>; runtimeModule: string } {
  const dir = runtimeDir();
  const module = operationDataModule(dir);
  const extension = existsSync(join(dir, `${module}.d.ts`)) ? ".d.ts" : ".ts";
  const list: Array<[string, string]> = [[`/sf/runtime/${module}${extension}`, join(dir, `${module}${extension}`)]];
  return { list, runtimeModule: `/sf/runtime/${module}` };
}

/** Library and runtime files never change within a process: parse each once (watch mode reuses them). */
const parsed = new Map<string, TypeScript.SourceFile>();

/** A compared module as the program parses it (a caller that parsed it already hands it over so). */
export const parse = (
  path: string,
  text: string,
  languageVersion: TypeScript.ScriptTarget | TypeScript.CreateSourceFileOptions,
) =>
  ts.createSourceFile(
    path,
    text,
    {
      languageVersion: typeof languageVersion === "object" ? languageVersion.languageVersion : languageVersion,
      jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
    },
    true,
  );

/**
 * A program over `virtual` (path → text; `roots` among them, the rest reached by imports) with the
 * library, the globals and the probe, and its checker.
 */
function programOver(
  virtual: ReadonlyMap<string, string | TypeScript.SourceFile>,
  roots: readonly string[],
): { program: TypeScript.Program; checker: TypeScript.TypeChecker } {
  const shared = new Map<string, () => string>([
    [LIBRARY, checkerLibrary],
    ["/sf/globals.d.ts", () => GLOBALS],
    ["/sf/probe.ts", () => PROBE],
  ]);
  const { list: mounted, runtimeModule } = mounts();
  const real = (path: string): string | undefined => {
    for (const [at, to] of mounted) {
      if (path === at) return to;
      if (at.endsWith("/") && path.startsWith(at)) return to + path.slice(at.length);
    }
    return undefined;
  };
  const readText = (path: string): string | undefined => {
    const own = virtual.get(path);
    if (own !== undefined) return typeof own === "string" ? own : own.text;
    if (shared.has(path)) return shared.get(path)!();
    const file = real(path);
    return file && existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };
  const host: TypeScript.CompilerHost = {
    getSourceFile(path, languageVersion) {
      const own = virtual.get(path);
      if (own !== undefined) return typeof own === "string" ? parse(path, own, languageVersion) : own;
      const cached = parsed.get(path);
      if (cached) return cached;
      const text = readText(path);
      if (text === undefined) return undefined;
      const file = parse(path, text, languageVersion);
      parsed.set(path, file);
      return file;
    },
    getDefaultLibFileName: () => LIBRARY,
    writeFile: () => undefined,
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (path) =>
      virtual.has(path) || shared.has(path) || (real(path) !== undefined && existsSync(real(path)!)),
    readFile: readText,
    directoryExists: (dir) => {
      const prefix = dir.endsWith("/") ? dir : `${dir}/`;
      if ([...virtual.keys(), ...shared.keys(), ...mounted.map(([at]) => at)].some((p) => p.startsWith(prefix)))
        return true;
      const file = real(prefix);
      return file !== undefined && existsSync(file) && statSync(file).isDirectory();
    },
    getDirectories: () => [],
  };
  const program = ts.createProgram({
    rootNames: [LIBRARY, "/sf/globals.d.ts", "/sf/probe.ts", ...roots],
    options: {
      target: TARGET,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      // The library is library.ts's cut of lib.es5, given as a root file.
      noLib: true,
      baseUrl: "/",
      paths: { "stepforge/runtime": [runtimeModule] },
    },
    host,
  });
  const checker = program.getTypeChecker();
  const probe = program.getSourceFile("/sf/probe.ts")!.statements.find(ts.isTypeAliasDeclaration)!;
  if (!checker.getTypeAtLocation(probe.name).getProperty("probe")) {
    throw new Error(`the runtime's declarations do not resolve OperationData (in ${runtimeDir()}); rebuild stepforge`);
  }
  return { program, checker };
}

export function declarationProgram(old: Declarations, now: Declarations): DeclarationProgram {
  const { program, checker } = programOver(
    new Map([
      ["/old/types.ts", old.types],
      ["/old/client.ts", old.client],
      ["/new/types.ts", now.types],
      ["/new/client.ts", now.client],
    ]),
    ["/old/client.ts", "/new/client.ts"],
  );
  return {
    checker,
    oldClient: program.getSourceFile("/old/client.ts")!,
    newClient: program.getSourceFile("/new/client.ts")!,
  };
}

/** The path of the pair file in the program. */
export const PAIR_FILE = "/pair.ts";

/** The target the program parses its files for. */
export const TARGET = ts.ScriptTarget.ES2022;

/**
 * The checker over one pair file (pair-file.ts), as text or parsed by `parse` for PAIR_FILE and
 * TARGET, and its type aliases by name.
 */
export function pairProgram(pairFile: string | TypeScript.SourceFile): {
  checker: TypeScript.TypeChecker;
  aliases: Map<string, TypeScript.Type>;
} {
  const { program, checker } = programOver(new Map([[PAIR_FILE, pairFile]]), [PAIR_FILE]);
  const aliases = new Map<string, TypeScript.Type>();
  for (const statement of program.getSourceFile(PAIR_FILE)!.statements) {
    if (
      ts.isTypeAliasDeclaration(statement) &&
      statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    )
      aliases.set(statement.name.text, checker.getTypeAtLocation(statement.name));
  }
  return { checker, aliases };
}

/** What a client method takes and what it resolves to, as the checker sees them. */
export function methodTypes(
  program: DeclarationProgram,
  file: TypeScript.SourceFile,
  className: string,
  method: string,
): { input?: TypeScript.Type; output: TypeScript.Type } | undefined {
  const cls = file.statements.find(
    (s): s is TypeScript.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === className,
  );
  const member = cls?.members.find(
    (m): m is TypeScript.MethodDeclaration =>
      ts.isMethodDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === method,
  );
  if (!member) return undefined;
  const { checker } = program;
  const signature = checker.getSignatureFromDeclaration(member);
  if (!signature) return undefined;
  const param = signature.parameters[0];
  const output = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  return { ...(param ? { input: checker.getTypeOfSymbol(param) } : {}), output };
}
