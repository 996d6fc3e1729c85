/**
 * The printing layer: the one place where text from a spec becomes TypeScript source. Comments,
 * string literals, property keys and identifiers are escaped or checked here and nowhere else, so
 * a title that closes a comment and calls process.exit stays text. Emitters build small code trees
 * (calls, method chains, object and array literals) and `print` lays them out for a reader: two
 * spaces per level, a structure broken over lines only when it does not fit in WIDTH columns.
 */
import { isIdentifierName, isReservedWord } from "./names.js";

export const INDENT = "  ";
/** Lines longer than this are broken where the structure allows (a long string stays whole). */
export const WIDTH = 110;

const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085]/g;

/** The lines of a comment's text: every line terminator JavaScript knows ends a line; `*\/` is broken. */
function commentLines(text: string): string[] {
  return text
    .replace(LINE_BREAKS, "\n")
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((line) => line.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "").trimEnd());
}

/** A JSDoc comment at `indent`: one line when the text is one short line, else a block. */
export function jsdoc(text: string, indent = ""): string {
  const lines = commentLines(text.trim());
  while (lines.length > 1 && lines.at(-1) === "") lines.pop();
  if (lines.length === 1 && indent.length + lines[0]!.length + 7 <= WIDTH) return `${indent}/** ${lines[0]} */`;
  return [`${indent}/**`, ...lines.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)), `${indent} */`].join(
    "\n",
  );
}

/** A `//` comment: always one line (a line break in the text would end the comment). */
export function lineComment(text: string): string {
  return `// ${commentLines(text).join(" ").replace(/\s+/g, " ").trim()}`;
}

/** A string literal (double quotes; line and paragraph separators escaped too, for readers and old parsers). */
export function str(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * A JSON value as `JSON.parse(`…`)`: JSON a reader can follow, laid out like the code around it,
 * inside a template literal. For large data only (a mock's schemas and canned answers): the
 * compiler scans the template as one string token, where an object literal of the same data costs
 * it every node three times over (parse, bind, check) in every project that compiles the module.
 * The text is escaped for a template literal: backslashes doubled, backticks and `${` escaped.
 * JSON.stringify has already escaped every control character; U+2028/U+2029 become JSON escapes.
 */
export function jsonData(value: unknown, indent = ""): string {
  const inner = indent + INDENT;
  return templateJson(jsonLayout(value, inner, inner.length), indent);
}

/**
 * `jsonData` for data a reader rarely follows but a bundle carries (tool schemas): entries of the
 * outer `depth` levels one per line, each deeper value as compact JSON on its line. Whitespace
 * inside a template string survives minifiers, so the laid-out form cost a bundle ~1.7× the bytes.
 */
export function compactJsonData(value: unknown, depth = 2, indent = ""): string {
  const lines = (v: unknown, level: number): string => {
    if (level >= depth || v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
    if (Array.isArray(v)) return v.length ? `[\n${v.map((item) => lines(item, level + 1)).join(",\n")}\n]` : "[]";
    const entries = jsonEntries(v);
    return entries.length
      ? `{\n${entries.map(([k, x]) => `${JSON.stringify(k)}:${lines(x, level + 1)}`).join(",\n")}\n}`
      : "{}";
  };
  return templateJson(lines(value, 0), indent);
}

/** JSON text as `JSON.parse(`…`)`, escaped for a template literal (see jsonData). */
function templateJson(json: string, indent: string): string {
  const safe = json.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  const text = safe.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${");
  return `JSON.parse(\`\n${indent + INDENT}${text}\n${indent}\`)`;
}

/** JSON text of `value` starting at `column`: on one line when it fits in WIDTH, else one entry per line. */
function jsonLayout(value: unknown, indent: string, column: number): string {
  const one = jsonFlat(value);
  if (column + one.length <= WIDTH || value === null || typeof value !== "object") return one;
  const inner = indent + INDENT;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => inner + jsonLayout(item, inner, inner.length)).join(",\n")}\n${indent}]`;
  }
  const entries = jsonEntries(value);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([k, v]) => {
    const head = `${inner}${JSON.stringify(k)}: `;
    return head + jsonLayout(v, inner, head.length);
  });
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

/** The entries JSON.stringify would write: undefined and function values are left out. */
function jsonEntries(value: object): Array<[string, unknown]> {
  return Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== "function");
}

/** One-line JSON with a space after each separator, as `print` writes object literals. */
function jsonFlat(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(jsonFlat).join(", ")}]`;
  const entries = jsonEntries(value);
  return entries.length === 0
    ? "{}"
    : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonFlat(v)}`).join(", ")} }`;
}

export function isIdentifier(name: string): boolean {
  return isIdentifierName(name);
}

/**
 * A property key: bare when it is an identifier, quoted otherwise. `__proto__` is computed
 * (`["__proto__"]`): written plain or quoted it would set the object's prototype instead.
 */
export function key(name: string): string {
  if (name === "__proto__") return `[${str(name)}]`;
  return isIdentifier(name) ? name : str(name);
}

/**
 * A declared name. Names come from a name table (names.ts), which already made them valid; this
 * refuses anything else, so a spec value can never reach the source as code.
 */
export function ident(name: string): string {
  if (!isIdentifier(name) || isReservedWord(name))
    throw new Error(`internal: "${name}" is not a usable identifier (it should have come from a name table)`);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Code trees

/** A piece of code: raw text (already printed), or a structure `print` may break over lines. */
export type Code = string | Call | Chain | ObjectLit | ArrayLit;

interface Call {
  kind: "call";
  callee: string;
  args: Code[];
}
interface Chain {
  kind: "chain";
  base: Code;
  links: Array<{ method: string; args: Code[] }>;
}
interface ObjectLit {
  kind: "object";
  /** Key already printed (use `key()`), value; an entry without a value is a shorthand or spread written as is. */
  entries: Array<[string, Code] | [string]>;
}
interface ArrayLit {
  kind: "array";
  items: Code[];
}

export const call = (callee: string, ...args: Code[]): Call => ({ kind: "call", callee, args });
export const obj = (entries: ObjectLit["entries"]): ObjectLit => ({ kind: "object", entries });
export const arr = (items: Code[]): ArrayLit => ({ kind: "array", items });

/** `base.method(args)`, appended to an existing chain when `base` is one. */
export function chain(base: Code, method: string, ...args: Code[]): Chain {
  if (typeof base !== "string" && base.kind === "chain")
    return { kind: "chain", base: base.base, links: [...base.links, { method, args }] };
  return { kind: "chain", base, links: [{ method, args }] };
}

/** A JSON value as a code tree: keys through `key()`, strings through `str()`. */
export function literal(value: unknown): Code {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return str(value);
  if (Array.isArray(value)) return arr(value.map(literal));
  if (value !== null && typeof value === "object") {
    return obj(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [key(k), literal(v)]),
    );
  }
  if (typeof value === "number" && !Number.isFinite(value)) return "null";
  return String(value);
}

/** One-line forms already worked out: `print` asks for them at every level of a tree. */
const flatCache = new WeakMap<Exclude<Code, string>, string>();

/** One-line form of a tree (may be long; `print` decides whether to use it). */
export function flat(code: Code): string {
  if (typeof code === "string") return code;
  let text = flatCache.get(code);
  if (text === undefined) {
    text = flatUncached(code);
    flatCache.set(code, text);
  }
  return text;
}

function flatUncached(code: Exclude<Code, string>): string {
  switch (code.kind) {
    case "call":
      return `${code.callee}(${code.args.map(flat).join(", ")})`;
    case "chain":
      return flat(code.base) + code.links.map((l) => `.${l.method}(${l.args.map(flat).join(", ")})`).join("");
    case "object":
      return code.entries.length === 0 ? "{}" : `{ ${code.entries.map(entryFlat).join(", ")} }`;
    case "array":
      return `[${code.items.map(flat).join(", ")}]`;
  }
}

function entryFlat(entry: [string, Code] | [string]): string {
  return entry.length === 1 ? entry[0] : `${entry[0]}: ${flat(entry[1])}`;
}

/**
 * Prints `code` starting at `column` of a line indented by `indent`: on one line when it fits,
 * else broken at its outermost structure (objects and arrays one entry per line, call arguments
 * likewise, a chain one link per line), recursively.
 */
/** One entry of an object laid out one entry a line: a shorthand name, or `key: value` at `indent`. */
function printEntry(entry: Extract<Code, { kind: "object" }>["entries"][number], indent: string): string {
  return entry.length === 1 ? entry[0] : `${entry[0]}: ${print(entry[1], indent, indent.length + entry[0].length + 2)}`;
}

export function print(code: Code, indent = "", column = indent.length): string {
  const one = flat(code);
  if (typeof code === "string" || (column + one.length <= WIDTH && !one.includes("\n"))) return one;
  const inner = indent + INDENT;
  switch (code.kind) {
    case "object":
      if (code.entries.length === 0) return "{}";
      return `{\n${code.entries.map((e) => `${inner}${printEntry(e, inner)},\n`).join("")}${indent}}`;
    case "array":
      if (code.items.length === 0) return "[]";
      return `[\n${code.items.map((item) => `${inner}${print(item, inner)},\n`).join("")}${indent}]`;
    case "call": {
      const head = `${code.callee}(`;
      // One object or array argument hugs the parentheses: f({ … }).
      const last = code.args.at(-1);
      if (last !== undefined && typeof last !== "string" && (last.kind === "object" || last.kind === "array")) {
        const before = code.args.slice(0, -1).map(flat);
        const prefix = `${head}${before.map((b) => `${b}, `).join("")}`;
        if (column + prefix.length + 1 <= WIDTH) return `${prefix}${print(last, indent, column + prefix.length)})`;
      }
      if (code.args.length === 0) return `${head})`;
      return `${head}\n${code.args.map((a) => `${inner}${print(a, inner)},\n`).join("")}${indent})`;
    }
    case "chain": {
      const base = print(code.base, indent, column);
      const lastLine = base.slice(base.lastIndexOf("\n") + 1);
      const linkText = (l: Chain["links"][number], at: string, col: number) =>
        print(call(`.${l.method}`, ...l.args), at, col);
      const tail = code.links.map((l) => flat(call(`.${l.method}`, ...l.args))).join("");
      const baseColumn = base.includes("\n") ? lastLine.length : column + base.length;
      if (baseColumn + tail.length <= WIDTH) return base + tail;
      return base + code.links.map((l) => `\n${inner}${linkText(l, inner, inner.length)}`).join("");
    }
  }
}

/** `export const name[: type] = value;` laid out by `print`. */
export function constStatement(name: string, value: Code, options: { exported?: boolean; type?: string } = {}): string {
  const head = `${options.exported ? "export " : ""}const ${ident(name)}${options.type ? `: ${options.type}` : ""} = `;
  return `${head}${print(value, "", head.length)};`;
}
