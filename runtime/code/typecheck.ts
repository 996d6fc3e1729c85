/**
 * Type-checking the agent's code against the printed declarations, then stripping its types for
 * QuickJS. One `CodeChecker` per server: the library files and the declarations are parsed and
 * bound once.
 *
 * A run's file is checked by a checker that stays warm between runs. A fresh checker per run (a
 * new program over the same files) spent most of a check resolving the declarations' types again
 * (about 10 ms of CPU of a 13 ms check for three calls); a warm one has them resolved and pays for
 * the run's own file (about 3 ms). The file is bound and checked on its own, never added to the
 * program nor merged into its globals, so no run's code changes what the next one is checked
 * against; each file has a name of its own, as the checker keeps its diagnostics by file name.
 * Its JavaScript (below) needs no other program either. This uses three TypeScript
 * internals (`bindSourceFile`, the checker's `getDiagnostics`, the parse and bind diagnostics on a
 * SourceFile): where one is missing, or the code has a `@ts-ignore`/`@ts-expect-error` comment
 * (which only a program applies), the run gets a program of its own as before. After
 * {@link CHECKS_PER_CHECKER} files the checker is replaced: it keeps what it resolved for each.
 * One difference: `import("./trello")` of the declarations fails the check (TS2307) instead of
 * the run (QuickJS loads no module either way).
 *
 * Its JavaScript is the same text with the types replaced by spaces (ts-blank-space, over the file
 * the checker parsed), so every line and column stays where the agent wrote it and no source map
 * is made. The emitter was a third of a check's CPU for three calls (about 1 ms of 3, its source
 * map included); blanking the same file takes about 0.1 ms. What only the emitter can turn into
 * JavaScript (an enum, a namespace, a parameter property, a decorator, `accessor`, `using`) goes
 * through the program's emit as before, and so does everything when ts-blank-space is not
 * installed (it is an optional peer of code mode).
 *
 * A check comes in two halves (`begin`, `finish`): `begin` parses the code and blanks its types,
 * so the sandbox can start it while `finish` binds and checks the same parsed file. Blanking needs
 * no checker; the JavaScript is the same text whether blanked before the check or after.
 *
 * The agent's code is the body of `async function (services: Services)`, put
 * into a script file one line below its header, so a diagnostic's line is the file's line minus
 * one and its column is the code's own.
 *
 * The library is ES2023 without Intl and without the DOM: what QuickJS has (no `fetch`, no
 * timers, no `Intl`), so code that uses what is not there fails the check instead of the run.
 */
import { dirname, join } from "node:path";
import type * as TS from "typescript";
import type { ServiceDeclarations } from "./declarations.js";
import { memoryHost } from "./memory-host.js";

/** Library files of ES2023 that QuickJS implements (no Intl, no DOM). */
const LIBS = [
  "es5",
  "es2015.core",
  "es2015.collection",
  "es2015.iterable",
  "es2015.generator",
  "es2015.promise",
  "es2015.proxy",
  "es2015.reflect",
  "es2015.symbol",
  "es2015.symbol.wellknown",
  "es2016.array.include",
  "es2017.object",
  "es2017.string",
  "es2018.asyncgenerator",
  "es2018.asynciterable",
  "es2018.promise",
  "es2018.regexp",
  "es2019.array",
  "es2019.object",
  "es2019.string",
  "es2019.symbol",
  "es2020.bigint",
  "es2020.promise",
  "es2020.string",
  "es2020.symbol.wellknown",
  "es2021.promise",
  "es2021.string",
  "es2022.array",
  "es2022.error",
  "es2022.object",
  "es2022.string",
  "es2023.array",
  "es2024.object",
].map((name) => `lib.${name}.d.ts`);

/** The name the agent's function has in the checked file and in QuickJS. */
export const MAIN = "__stepforge_main";
const AGENT_FILE = "/code/agent.ts";
const HEADER = `async function ${MAIN}(services: Services) {\n`;
const FOOTER = "\n}\n";

const CONSOLE = `declare var console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
`;

export interface CodeDiagnostic {
  /** 1-based, in the agent's code. */
  line: number;
  /** 1-based. */
  column: number;
  /** `TS2339`. */
  code: string;
  message: string;
}

/** A check begun: the code parsed, its JavaScript when it could be had without the checker. */
export interface PendingCheck {
  /** The JavaScript a passing check will answer, when known before the check; undefined otherwise. */
  js: string | undefined;
  /** The check itself (call it once). */
  finish(): CheckResult;
}

export type CheckResult =
  /** `sourceMap` is undefined when `js` keeps the code's lines and columns (its types blanked out). */
  { ok: true; js: string; sourceMap?: string | undefined } | { ok: false; diagnostics: CodeDiagnostic[]; more: number };

/** Files one warm checker checks before it is replaced (each leaves its types in the checker's caches). */
export const CHECKS_PER_CHECKER = 200;

/** What the warm checker is built around: a fixed file, never an agent's code. */
const BASE_CODE = "return 0;";

/** TypeScript internals the warm checker uses, each checked before use (see the module comment). */
type InternalTs = typeof TS & { bindSourceFile?: (file: TS.SourceFile, options: TS.CompilerOptions) => void };
type InternalChecker = TS.TypeChecker & { getDiagnostics?: (file: TS.SourceFile) => readonly TS.Diagnostic[] };
type InternalFile = TS.SourceFile & {
  parseDiagnostics?: readonly TS.Diagnostic[];
  bindDiagnostics?: readonly TS.Diagnostic[];
  commentDirectives?: readonly unknown[];
};

/** Longest message text kept per diagnostic: a type printed whole can be kilobytes. */
const MESSAGE_CHARS = 400;
const MAX_DIAGNOSTICS = 10;

export interface Services {
  /** Service id → its declarations, and the names of its accounts when there are several. */
  declarations: readonly ServiceDeclarations[];
  accounts: ReadonlyMap<string, readonly string[]>;
}

/** `Services`: each service's API, or with several accounts an object of account name → API. */
function servicesText(services: Services): string {
  const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));
  const members = services.declarations.map((d) => {
    const api = `import("./${d.id}").${d.apiName}`;
    const accounts = services.accounts.get(d.id) ?? [];
    const type = accounts.length > 1 ? `{ ${accounts.map((a) => `readonly ${key(a)}: ${api};`).join(" ")} }` : api;
    return `  readonly ${key(d.id)}: ${type};`;
  });
  return `interface Services {\n${members.join("\n")}\n}\n`;
}

/** ts-blank-space's `blankSourceFile`: the file's text with its types replaced by spaces. */
export type TypeBlanker = (file: TS.SourceFile, onError?: (node: TS.Node) => void) => string;

export interface CheckerOptions {
  /** Strips a checked file's types without the emitter (see the module comment); absent: the emitter. */
  blank?: TypeBlanker | undefined;
  /** False: a program and a fresh checker per check (the slower way, kept as the fallback). */
  warm?: boolean | undefined;
  /** Files a warm checker checks before it is replaced (default {@link CHECKS_PER_CHECKER}). */
  checksPerChecker?: number | undefined;
  /**
   * A library file's text by name (`lib.es5.d.ts`); default: read beside the compiler's own file.
   * ts-morph's copy of the compiler keeps its library as text (runtime/internal/compiler-api.ts).
   */
  readLib?: ((name: string) => string | undefined) | undefined;
}

export class CodeChecker {
  private readonly files = new Map<string, TS.SourceFile>();
  private readonly readLib: (name: string) => string | undefined;
  private readonly options: TS.CompilerOptions;
  private previous: TS.Program | undefined;
  /** The warm checker and how many files it has checked; undefined until the first check. */
  private warm: { program: TS.Program; checker: InternalChecker; checked: number } | undefined;
  /** False once TypeScript lacks an internal the warm checker needs. */
  private warmPossible: boolean;
  private serial = 0;
  /** Programs created so far (one per fresh check, one per warm checker). */
  programs = 0;

  /** Files one warm checker checks before it is replaced. */
  private readonly checksPerChecker: number;
  private readonly blank: TypeBlanker | undefined;

  constructor(
    private readonly ts: typeof TS,
    services: Services,
    options: CheckerOptions = {},
  ) {
    this.checksPerChecker = options.checksPerChecker ?? CHECKS_PER_CHECKER;
    this.blank = options.blank;
    const libDir = dirname(ts.getDefaultLibFilePath({}));
    this.readLib = options.readLib ?? ((name) => ts.sys.readFile(join(libDir, name)));
    this.options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: LIBS,
      types: [],
      strict: true,
      // `catch (e) { e.message }` is what agents write; the sandbox's errors all have a message.
      useUnknownInCatchVariables: false,
      skipLibCheck: true,
      sourceMap: true,
      removeComments: true,
      noEmitOnError: false,
      isolatedModules: false,
    };
    const add = (name: string, text: string) =>
      this.files.set(name, ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true));
    for (const d of services.declarations) add(`/code/${d.id}.d.ts`, d.module);
    add("/code/services.d.ts", servicesText(services));
    add("/code/console.d.ts", CONSOLE);
    this.warmPossible = options.warm !== false && typeof (ts as InternalTs).bindSourceFile === "function";
  }

  private host(agent: TS.SourceFile): TS.CompilerHost {
    const ts = this.ts;
    return memoryHost({
      getSourceFile: (name) => (name === AGENT_FILE ? agent : this.sourceFile(name)),
      getDefaultLibFileName: () => "/lib/lib.es5.d.ts",
      getDefaultLibLocation: () => "/lib",
      getCurrentDirectory: () => "/code",
      fileExists: (f) => f === AGENT_FILE || this.sourceFile(f) !== undefined,
      readFile: () => undefined,
      resolveModuleNameLiterals: (literals) =>
        literals.map((literal) => {
          const file = `/code/${literal.text.replace(/^\.\//, "")}.d.ts`;
          return this.files.has(file)
            ? { resolvedModule: { resolvedFileName: file, extension: ts.Extension.Dts } }
            : { resolvedModule: undefined };
        }),
    });
  }

  /** A declarations file, or a library file (`/lib/lib.es5.d.ts`) parsed on first use. */
  private sourceFile(name: string): TS.SourceFile | undefined {
    let file = this.files.get(name);
    if (!file && name.startsWith("/lib/")) {
      const text = this.readLib(name.slice(5));
      if (text === undefined) return undefined;
      file = this.ts.createSourceFile(name, text, this.ts.ScriptTarget.ES2022, true);
      this.files.set(name, file);
    }
    return file;
  }

  private agentFile(name: string, code: string): TS.SourceFile {
    const text = `${HEADER}${code}${FOOTER}`;
    // No parent pointers from the parser: the binder sets them (as in a program's own files), and
    // neither the blanker nor a failed parse's diagnostics need them.
    return this.ts.createSourceFile(name, text, this.ts.ScriptTarget.ES2022, false, this.ts.ScriptKind.TS);
  }

  private program(agent: TS.SourceFile): TS.Program {
    const roots = [AGENT_FILE, ...[...this.files.keys()].filter((f) => f.startsWith("/code/"))];
    this.programs++;
    const program = this.ts.createProgram({
      rootNames: roots,
      options: this.options,
      host: this.host(agent),
      oldProgram: this.previous,
    });
    this.previous = program;
    return program;
  }

  /** Checks the code; on success its JavaScript (a script declaring {@link MAIN}) and source map. */
  check(code: string): CheckResult {
    return this.begin(code).finish();
  }

  /**
   * The first half of a check: the code parsed, and when its types can be blanked out without the
   * checker (a warm check, no parse error, nothing only the emitter turns into JavaScript) the
   * JavaScript it will run as, so a run can start while `finish` checks it. That JavaScript is the
   * same text a passing check answers; nothing about the check's verdict is known yet.
   */
  begin(code: string): PendingCheck {
    if (this.warmPossible) {
      try {
        // A name per file: the checker collects diagnostics by file name.
        const agent: InternalFile = this.agentFile(`/code/run-${++this.serial}.ts`, code);
        if (!agent.commentDirectives?.length && agent.parseDiagnostics) {
          const early = agent.parseDiagnostics.length === 0 ? this.blanked(agent) : undefined;
          return {
            js: early?.ok ? early.js : undefined,
            finish: () => this.finishWarm(code, agent, early),
          };
        }
      } catch {
        this.warmPossible = false;
        this.warm = undefined;
      }
    }
    return { js: undefined, finish: () => this.checkFresh(code) };
  }

  private finishWarm(code: string, agent: InternalFile, early: CheckResult | undefined): CheckResult {
    if (this.warmPossible) {
      try {
        const result = this.checkWarm(agent, early);
        if (result) return result;
      } catch {
        // An internal changed under us: a program of its own per check from now on.
        this.warmPossible = false;
        this.warm = undefined;
      }
    }
    return this.checkFresh(code);
  }

  /** The warm checker's verdict on a parsed file (`early`: its types blanked already), or undefined. */
  private checkWarm(agent: InternalFile, early: CheckResult | undefined): CheckResult | undefined {
    if (!this.warm || this.warm.checked >= this.checksPerChecker) {
      const program = this.program(this.agentFile(AGENT_FILE, BASE_CODE));
      const checker: InternalChecker = program.getTypeChecker();
      if (typeof checker.getDiagnostics !== "function") {
        this.warmPossible = false;
        return undefined;
      }
      this.warm = { program, checker, checked: 0 };
    }
    const warm = this.warm;
    warm.checked++;
    let diagnostics: readonly TS.Diagnostic[] = agent.parseDiagnostics!;
    if (diagnostics.length === 0) {
      (this.ts as InternalTs).bindSourceFile!(agent, this.options);
      // In the order a program gives them: the binder's, then the checker's.
      diagnostics = [...(agent.bindDiagnostics ?? []), ...warm.checker.getDiagnostics!(agent)];
    }
    if (diagnostics.length > 0) return this.failed(diagnostics, agent);
    // Without parse errors `begin` blanked the file already; what it could not blank the warm program
    // emits: the checker that checked it answers the emitter's questions, so no other checker is built
    // (transpileModule built one: 4 ms a run).
    return early ?? emitted(warm.program, agent);
  }

  /** A program of its own for this code (over the same parsed files) and a fresh checker. */
  private checkFresh(code: string): CheckResult {
    const agent = this.agentFile(AGENT_FILE, code);
    const program = this.program(agent);
    let diagnostics: readonly TS.Diagnostic[] = program.getSyntacticDiagnostics(agent);
    if (diagnostics.length === 0) diagnostics = program.getSemanticDiagnostics(agent);
    if (diagnostics.length > 0) return this.failed(diagnostics, agent);
    return this.blanked(agent) ?? emitted(program, agent);
  }

  /** The checked file with its types blanked out; undefined when it needs the emitter. */
  private blanked(agent: TS.SourceFile): CheckResult | undefined {
    if (!this.blank || needsEmitter(this.ts, agent)) return undefined;
    let unsupported = false;
    const js = this.blank(agent, () => (unsupported = true));
    return unsupported ? undefined : { ok: true, js };
  }

  private failed(diagnostics: readonly TS.Diagnostic[], agent: TS.SourceFile): CheckResult {
    const mapped = diagnostics.map((d) => this.toDiagnostic(d, agent));
    return {
      ok: false,
      diagnostics: mapped.slice(0, MAX_DIAGNOSTICS),
      more: Math.max(0, mapped.length - MAX_DIAGNOSTICS),
    };
  }

  private toDiagnostic(d: TS.Diagnostic, agent: TS.SourceFile): CodeDiagnostic {
    const ts = this.ts;
    let message = ts.flattenDiagnosticMessageText(d.messageText, " ").replace(/\s+/g, " ");
    if (message.length > MESSAGE_CHARS) message = `${message.slice(0, MESSAGE_CHARS)}…`;
    const position =
      d.file === agent && d.start !== undefined
        ? agent.getLineAndCharacterOfPosition(d.start)
        : { line: 1, character: 0 };
    // The header is line 0; the footer's closing brace belongs to the last line of the code.
    const lastLine = agent.getLineAndCharacterOfPosition(agent.text.length - FOOTER.length).line;
    const line = Math.min(Math.max(position.line, 1), lastLine);
    return { line, column: position.character + 1, code: `TS${d.code}`, message };
  }
}

/**
 * Whether the file has syntax the emitter rewrites for ES2022 and blanking would leave as it is
 * (QuickJS has none of it): decorators, `accessor` fields, `using` declarations. The text is
 * looked at first, so most code is never walked.
 */
function needsEmitter(ts: typeof TS, file: TS.SourceFile): boolean {
  if (!/@|\busing\b|\baccessor\b/.test(file.text)) return false;
  const found = (node: TS.Node): boolean =>
    ts.isDecorator(node) ||
    node.kind === ts.SyntaxKind.AccessorKeyword ||
    (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Using) !== 0) ||
    ts.forEachChild(node, (child) => found(child) || undefined) === true;
  return found(file);
}

/** The file's JavaScript and source map, as `program` emits them. */
function emitted(program: TS.Program, agent: TS.SourceFile): CheckResult {
  let js = "";
  let sourceMap = "";
  program.emit(agent, (name, text) => {
    if (name.endsWith(".map")) sourceMap = text;
    else js = text;
  });
  return { ok: true, js, sourceMap };
}
