/**
 * The part of TypeScript's standard library the checker pass can meet, cut from the installed
 * `lib.es5.d.ts` at run time: the declarations of the names below and of every library name they
 * mention, as TypeScript ships them. Generated declarations use only a few of its names (Record,
 * Promise, arrays); the checker itself needs the interfaces behind primitives and arrays (String,
 * Array...) to decide assignability as a consumer's compiler would. The rest of the file (typed
 * arrays, Intl, Date, Math, the error classes: seven eighths of it) cost a third of the program's
 * parse and bind and takes part in no verdict.
 */
import { compiler } from "../compiler.js";

/** Names the checker or generated declarations look up; what they mention comes along. */
const ROOTS = [
  // The global types the checker resolves before anything else.
  "Object",
  "Function",
  "CallableFunction",
  "NewableFunction",
  "IArguments",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "RegExp",
  "Array",
  "ReadonlyArray",
  "TemplateStringsArray",
  // Awaiting what a client method returns.
  "PromiseLike",
  "Promise",
  "Awaited",
  // Aliases that openapi-typescript and openapi-typescript-helpers write.
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Pick",
  "Omit",
  "Exclude",
  "Extract",
  "NonNullable",
];

/** A top-level interface or type alias of the library starts a line; anything else ends it. */
const DECLARATION = /^(?:declare )?(interface|type|var|function|namespace|const|let|class|enum) ([A-Za-z_$][\w$]*)/;

let cached: string | undefined;

/** The library text: every declaration reached from ROOTS, in the library's own order. */
export function checkerLibrary(): string {
  if (cached !== undefined) return cached;
  const text = compiler.readLib("lib.es5.d.ts");
  if (text === undefined) throw new Error(`lib.es5.d.ts is missing beside the TypeScript compiler ${compiler.file}`);
  const blocks: Array<{ name: string; text: string[] }> = [];
  let current: { name: string; text: string[] } | undefined;
  for (const line of text.split("\n")) {
    const start = DECLARATION.exec(line);
    if (start) {
      // Values (vars, functions, namespaces) are left out: types never name them.
      current = start[1] === "interface" || start[1] === "type" ? { name: start[2]!, text: [] } : undefined;
      if (current) blocks.push(current);
    }
    current?.text.push(line);
  }
  const byName = new Map<string, string[]>();
  for (const block of blocks) byName.set(block.name, [...(byName.get(block.name) ?? []), block.text.join("\n")]);
  const reached = new Set<string>();
  const queue = [...ROOTS];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (reached.has(name) || !byName.has(name)) continue;
    reached.add(name);
    for (const text of byName.get(name)!) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      for (const word of code.match(/\b[A-Z][\w$]*\b/g) ?? []) if (!reached.has(word)) queue.push(word);
    }
  }
  cached = blocks
    .filter((block) => reached.has(block.name))
    .map((block) => block.text.join("\n"))
    .join("\n");
  return cached;
}
