/**
 * The declarations an agent's code is checked against, read from each service's generated
 * `client.ts` and `types.ts` (or their `.d.ts`), and the signatures `search` shows.
 *
 * The generated types are openapi-typescript's: indexed access into `paths` and `operations`, and
 * `OperationData<Op>` (a conditional type over the responses). Checking a three-call program
 * against them took a fresh checker 200 ms, nearly all of it spent resolving those chains again.
 * So they are resolved once, here, by the compiler itself: every schema becomes a named alias
 * (`type Card = {…}`), and each client method's input and success data are printed flat against
 * those names. What `execute` checks against is that printed module: plain object types, cheap to
 * check on every run, and the same text `search` shows the model.
 */
import type * as TS from "typescript";
import { memoryHost } from "./memory-host.js";

/** One generated service as the code mode reads it. */
export interface GeneratedService {
  id: string;
  /** The text of the generated `client.ts` (or `client.d.ts`). */
  client: string;
  /** The text of the generated `types.ts` (or `types.d.ts`). */
  types: string;
}

/** One client method as `search` shows it and `execute` may call it. */
export interface OperationSignature {
  service: string;
  /** The client method's name (the operation's id in the descriptor). */
  method: string;
  /** `getCard(init: { params: { path: { id: string } } }): Promise<Card>` */
  signature: string;
  /** The first line of the method's documentation. */
  summary: string;
  /** The rest of it, without the HTTP line. */
  description: string;
  /** Schema aliases the signature names (their definitions are in `aliases`). */
  typesUsed: string[];
  /** Names of the header parameters the operation declares (the only headers the bridge sends). */
  headerParams: string[];
  /** Names of the query parameters the operation declares. */
  queryParams: string[];
}

export interface ServiceDeclarations {
  id: string;
  /** The interface of the service's client in the checked module (`TrelloApi`). */
  apiName: string;
  operations: OperationSignature[];
  /** Schema alias name → its definition, printed one level deep (nested schemas by name). */
  aliases: Map<string, string>;
  /** The module `execute` checks against: every alias and the API interface. */
  module: string;
}

/**
 * Names a schema alias must not take: TypeScript's keywords and the global types a printed
 * declaration may use. A schema called `Promise` or `Record` would otherwise shadow them.
 */
const RESERVED = new Set(
  (
    "any unknown never void undefined null object string number boolean bigint symbol this true false " +
    "type interface class enum const let var function new delete typeof keyof infer in of is as " +
    "Promise PromiseLike Record Partial Required Readonly Pick Omit Exclude Extract NonNullable Array " +
    "ReadonlyArray Date RegExp Error Map Set Object String Number Boolean Symbol Function Blob File " +
    "Uint8Array ArrayBuffer JSON Math Awaited ReturnType Parameters"
  ).split(" "),
);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pascal(id: string): string {
  return id.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

/** A TypeScript identifier for a schema name, unique in `taken`. */
function aliasName(schema: string, taken: Set<string>): string {
  let base = schema.replace(/[^A-Za-z0-9_$]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""));
  if (!base || /^[0-9]/.test(base)) base = `T${base}`;
  base = base[0]!.toUpperCase() + base.slice(1);
  if (RESERVED.has(base)) base = `${base}_`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** The text of a property name as written (`Card`, `"card-list"`). */
function nameText(ts: typeof TS, name: TS.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

function memberType(ts: typeof TS, node: TS.Node | undefined, member: string): TS.TypeNode | undefined {
  const members = node && (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) ? node.members : undefined;
  const found = members?.find((m) => ts.isPropertySignature(m) && nameText(ts, m.name) === member) as
    | TS.PropertySignature
    | undefined;
  return found?.type;
}

/** `components["<group>"]["<name>"]`: the group and the name, when `node` is such a reference. */
function componentRef(ts: typeof TS, node: TS.Node): { group: string; name: string } | undefined {
  if (!ts.isIndexedAccessTypeNode(node) || !ts.isIndexedAccessTypeNode(node.objectType)) return undefined;
  const root = node.objectType.objectType;
  const group = node.objectType.indexType;
  const name = node.indexType;
  if (!ts.isTypeReferenceNode(root) || !ts.isIdentifier(root.typeName) || root.typeName.text !== "components")
    return undefined;
  if (!ts.isLiteralTypeNode(group) || !ts.isStringLiteral(group.literal)) return undefined;
  if (!ts.isLiteralTypeNode(name) || !ts.isStringLiteral(name.literal)) return undefined;
  return { group: group.literal.text, name: name.literal.text };
}

/**
 * types.ts with every `components.schemas` member moved into a named alias (`type Card = {…}`),
 * and every reference to a schema or a parameter written as that alias or the parameter's own
 * type. The compiler reuses a declaration's written type when it prints one, so
 * `components["schemas"]["Card"]` would otherwise reach the model as written. Returns the new text
 * and the aliases.
 */
function namedSchemas(ts: typeof TS, text: string, taken: Set<string>): { text: string; aliases: string[] } {
  const file = ts.createSourceFile("types.ts", text, ts.ScriptTarget.ES2022, true);
  const components = file.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "components");
  const schemas = memberType(ts, components, "schemas");
  const parameters = memberType(ts, components, "parameters");
  const aliasOf = new Map<string, string>();
  const members = schemas && ts.isTypeLiteralNode(schemas) ? schemas.members.filter(ts.isPropertySignature) : [];
  for (const member of members) {
    const schema = nameText(ts, member.name);
    if (schema !== undefined && member.type) aliasOf.set(schema, aliasName(schema, taken));
  }
  const depth = { n: 0 };
  /** The text of `node` with the references inside it replaced. */
  const rewrite = (node: TS.Node): string => {
    if (++depth.n > 64) throw new Error("internal: component references nest deeper than 64");
    try {
      const own = componentRef(ts, node);
      const whole = own && replacementOf(own);
      if (whole !== undefined) return whole;
      const start = node.getStart(file);
      const edits: Array<{ start: number; end: number; text: string }> = [];
      const visit = (child: TS.Node): void => {
        const ref = componentRef(ts, child);
        const replacement = ref && replacementOf(ref);
        if (replacement !== undefined) edits.push({ start: child.getStart(file), end: child.end, text: replacement });
        else ts.forEachChild(child, visit);
      };
      ts.forEachChild(node, visit);
      let out = text.slice(start, node.end);
      for (const edit of edits.sort((a, b) => b.start - a.start))
        out = out.slice(0, edit.start - start) + edit.text + out.slice(edit.end - start);
      return out;
    } finally {
      depth.n--;
    }
  };
  const replacementOf = (ref: { group: string; name: string }): string | undefined => {
    if (ref.group === "schemas") return aliasOf.get(ref.name);
    if (ref.group !== "parameters") return undefined;
    const type = memberType(ts, parameters, ref.name);
    if (!type) return undefined;
    const written = rewrite(type);
    return /^[\w$.[\]"]+$/.test(written) ? written : `(${written})`;
  };
  const aliases: string[] = [];
  const declarations: string[] = [];
  for (const member of members) {
    const alias = aliasOf.get(nameText(ts, member.name) ?? "");
    if (!alias || !member.type) continue;
    aliases.push(alias);
    declarations.push(`export type ${alias} = ${rewrite(member.type)};`);
  }
  // Every other statement (paths, operations, the components interface) with its references rewritten.
  const body = file.statements.map((s) => rewrite(s)).join("\n");
  return { text: `${body}\n${declarations.join("\n")}\n`, aliases };
}

/** The first line, and the rest without the `METHOD /path` line and the seed note. */
function splitDoc(doc: string): { summary: string; description: string } {
  const paragraphs = doc
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const summary = paragraphs.shift() ?? "";
  const rest = paragraphs.filter((p) => !/^`[A-Z]+ \S+`$/.test(p) && !p.startsWith("Seed:") && !p.startsWith("@"));
  return { summary: summary.replace(/\s+/g, " "), description: rest.join(" ").replace(/\s+/g, " ") };
}

/** The compiler options of the load-time program: strict, and optional fields printed as `x?: T`. */
function loadOptions(ts: typeof TS): TS.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    noLib: true,
    types: [],
    skipLibCheck: true,
  };
}

/**
 * The few globals the generated declarations use, declared for the load-time program (it has no
 * lib: only types are resolved and printed, nothing is checked).
 */
const LOAD_GLOBALS = `
interface Array<T> { length: number; [n: number]: T }
interface ReadonlyArray<T> { readonly length: number; readonly [n: number]: T }
interface Boolean {} interface Function {} interface CallableFunction {} interface NewableFunction {}
interface IArguments {} interface Number {} interface Object {} interface RegExp {} interface String {}
interface Promise<T> { then(f: (value: T) => void): void }
interface AbortSignal {} interface Blob {}
type Record<K extends keyof any, T> = { [P in K]: T };
type NonNullable<T> = T & {};
type Extract<T, U> = T extends U ? T : never;
type Exclude<T, U> = T extends U ? never : T;
type Pick<T, K extends keyof T> = { [P in K]: T[P] };
type Omit<T, K extends keyof any> = Pick<T, Exclude<keyof T, K>>;
type Partial<T> = { [P in keyof T]?: T[P] };
type Required<T> = { [P in keyof T]-?: T[P] };
type Readonly<T> = { readonly [P in keyof T]: T[P] };
`;

/**
 * The runtime's `OperationData`, from the very module that declares it (runtime/client/operation-types,
 * given as `operationTypes`); the rest of the runtime's exports are opaque.
 */
const LOAD_RUNTIME = `
export type { OperationData } from "./operation-types.js";
export type ClientOptions = object;
export interface ServiceClient { call(operationId: string, init?: object): Promise<unknown> }
export declare function createServiceClient(descriptor: unknown, options: unknown): ServiceClient;
`;

export interface DeclarationSources {
  services: readonly GeneratedService[];
  /** The declarations of runtime/client/operation-types (the generated client's OperationData). */
  operationTypes: string;
  /** Per service: only these methods (all when absent). */
  methods?: ReadonlyMap<string, ReadonlySet<string>> | undefined;
}

/**
 * Reads every service's generated declarations through one program and prints the flat module of
 * each. Throws when a client has no class of methods (not a generated client).
 */
export function buildDeclarations(ts: typeof TS, sources: DeclarationSources): ServiceDeclarations[] {
  const files = new Map<string, string>();
  const taken = new Map<string, Set<string>>();
  const schemaAliases = new Map<string, string[]>();
  files.set("/globals.d.ts", LOAD_GLOBALS);
  files.set("/runtime.ts", LOAD_RUNTIME);
  files.set("/operation-types.ts", sources.operationTypes);
  for (const service of sources.services) {
    const names = new Set<string>([
      `${pascal(service.id)}Api`,
      "paths",
      "operations",
      "components",
      "webhooks",
      "$defs",
    ]);
    const named = namedSchemas(ts, service.types, names);
    taken.set(service.id, names);
    schemaAliases.set(service.id, named.aliases);
    files.set(`/${service.id}/types.ts`, named.text);
    files.set(`/${service.id}/client.ts`, service.client);
    files.set(`/${service.id}/descriptor.ts`, "export declare const descriptor: unknown;\n");
  }
  const options = loadOptions(ts);
  const host = memoryHost({
    getSourceFile: (name, target) =>
      files.has(name) ? ts.createSourceFile(name, files.get(name)!, target, true) : undefined,
    getDefaultLibFileName: () => "/globals.d.ts",
    getCurrentDirectory: () => "/",
    fileExists: (f) => files.has(f),
    readFile: (f) => files.get(f),
    // The client imports "./types.js", "./descriptor.js" and the runtime (by whatever path its
    // package uses); the runtime is the stand-in above.
    resolveModuleNameLiterals: (literals, containing) =>
      literals.map((literal) => {
        const spec = literal.text;
        const dir = containing.slice(0, containing.lastIndexOf("/"));
        let resolved = "/runtime.ts";
        if (spec.startsWith("./")) resolved = `${dir}/${spec.slice(2).replace(/\.(js|ts|d\.ts)$/, "")}.ts`;
        return {
          resolvedModule: {
            resolvedFileName: resolved,
            extension: resolved.endsWith(".d.ts") ? ts.Extension.Dts : ts.Extension.Ts,
          },
        };
      }),
  });
  const roots = ["/globals.d.ts", ...sources.services.map((s) => `/${s.id}/client.ts`)];
  const program = ts.createProgram({ rootNames: roots, options, host });
  const checker = program.getTypeChecker();
  return sources.services.map((service) => {
    const typesFile = program.getSourceFile(`/${service.id}/types.ts`)!;
    const clientFile = program.getSourceFile(`/${service.id}/client.ts`)!;
    const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;
    const print = (type: TS.Type): string => checker.typeToString(type, typesFile, flags);
    const aliases = new Map<string, string>();
    const moduleSymbol = checker.getSymbolAtLocation(typesFile);
    const inScope = new Map((moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []).map((s) => [s.name, s]));
    for (const alias of schemaAliases.get(service.id) ?? []) {
      const symbol = inScope.get(alias);
      if (!symbol) continue;
      aliases.set(
        alias,
        checker.typeToString(
          checker.getDeclaredTypeOfSymbol(symbol),
          typesFile,
          flags | ts.TypeFormatFlags.InTypeAlias,
        ),
      );
    }
    const aliasPattern = aliases.size
      ? new RegExp(`\\b(${[...aliases.keys()].map((a) => a.replace(/\$/g, "\\$")).join("|")})\\b`, "g")
      : undefined;
    const referenced = (text: string) => [
      ...new Set(aliasPattern ? [...text.matchAll(aliasPattern)].map((m) => m[1]!) : []),
    ];
    const cls = clientFile.statements.find(
      (s): s is TS.ClassDeclaration => ts.isClassDeclaration(s) && s.members.some((m) => ts.isMethodDeclaration(m)),
    );
    if (!cls)
      throw new Error(
        `${service.id}: its client has no class of operation methods; regenerate it with stepforge generate`,
      );
    const wanted = sources.methods?.get(service.id);
    const operations: OperationSignature[] = [];
    for (const member of cls.members) {
      if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name)) continue;
      const method = member.name.text;
      if (wanted && !wanted.has(method)) continue;
      // One method, one bridged call: a paged walk (`listCardsItems(): AsyncIterable<…>`) is not one.
      if (member.type && !/^Promise\b/.test(member.type.getText(clientFile))) continue;
      const signature = checker.getSignatureFromDeclaration(member);
      const param = signature?.parameters[0];
      if (!signature || !param) continue;
      const init = printInit(
        ts,
        checker,
        checker.getTypeOfSymbolAtLocation(param, member),
        print,
        member.parameters[0]!,
      );
      const data = checker.getAwaitedType(checker.getReturnTypeOfSignature(signature));
      const dataText = !data || data.flags & ts.TypeFlags.Never ? "void" : print(data);
      const doc = ts.getJSDocCommentsAndTags(member).find(ts.isJSDoc);
      const { summary, description } = splitDoc(ts.getTextOfJSDocComment(doc?.comment) ?? "");
      const text = `${method}(init${init.optional ? "?" : ""}: ${init.text}): Promise<${dataText}>`;
      operations.push({
        service: service.id,
        method,
        signature: text,
        summary,
        description,
        typesUsed: referenced(`${init.text} ${dataText}`),
        headerParams: init.header,
        queryParams: init.query,
      });
    }
    const apiName = `${pascal(service.id)}Api`;
    const module = [
      ...[...aliases].map(([name, definition]) => `export type ${name} = ${definition};`),
      `export interface ${apiName} {`,
      ...operations.map((op) => `  ${op.signature};`),
      "}",
      "",
    ].join("\n");
    return { id: service.id, apiName, operations, aliases, module };
  });
}

interface PrintedInit {
  text: string;
  optional: boolean;
  header: string[];
  query: string[];
}

/**
 * A method's `init` as the model writes it: `params` (path, query, header, cookie) and `body`,
 * without the abort signal (the sandbox's budget cancels calls) and without members typed
 * `never` (`body?: never` on a GET says nothing a model needs).
 */
function printInit(
  ts: typeof TS,
  checker: TS.TypeChecker,
  type: TS.Type,
  print: (t: TS.Type) => string,
  param: TS.ParameterDeclaration,
): PrintedInit {
  const isNever = (t: TS.Type) => (t.flags & ts.TypeFlags.Never) !== 0 || (t.flags & ts.TypeFlags.Undefined) !== 0;
  const optional = (s: TS.Symbol) => (s.flags & ts.SymbolFlags.Optional) !== 0;
  const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
  const header: string[] = [];
  const query: string[] = [];
  const members: string[] = [];
  for (const prop of checker.getPropertiesOfType(type)) {
    if (prop.name === "signal") continue;
    const propType = checker.getNonNullableType(checker.getTypeOfSymbol(prop));
    if (isNever(propType)) continue;
    let text: string;
    if (prop.name === "params") {
      const places: string[] = [];
      for (const place of checker.getPropertiesOfType(propType)) {
        const placeType = checker.getNonNullableType(checker.getTypeOfSymbol(place));
        if (isNever(placeType)) continue;
        const names = checker.getPropertiesOfType(placeType).map((p) => p.name);
        if (place.name === "header") header.push(...names);
        if (place.name === "query") query.push(...names);
        places.push(`${key(place.name)}${optional(place) ? "?" : ""}: ${print(placeType)}`);
      }
      if (places.length === 0) continue;
      text = `{ ${places.join("; ")} }`;
    } else {
      text = print(propType);
    }
    members.push(`${key(prop.name)}${optional(prop) ? "?" : ""}: ${text}`);
  }
  // The generated method's `init = {}` (no field required) or an optional parameter.
  const optionalInit =
    param.initializer !== undefined || param.questionToken !== undefined || members.every((m) => /^[^:]*\?:/.test(m));
  return { text: members.length ? `{ ${members.join("; ")} }` : "{}", optional: optionalInit, header, query };
}
