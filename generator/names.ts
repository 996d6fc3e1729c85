/**
 * Name tables: one per generated module, so two things a spec names differently never become one
 * identifier in the output (TS2300), and no spec name becomes a reserved word, `then` (a client
 * with a `then` method is a thenable: `await client` would call it), `__proto__` or `constructor`.
 *
 * A table folds names case-insensitively: `getFoo` and `GetFoo` are different methods but the
 * same type name `GetFooInput`, so they count as a collision. The first owner (in spec order)
 * keeps the name; later ones get a numbered one. Whether that repair is allowed or refused is the
 * check stage's decision (strict specs refuse, foreign ones are repaired with a warning).
 */

// ECMAScript reserved words, strict-mode ones, and names that cannot be redeclared at module level.
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export " +
    "extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while " +
    "with yield let static implements interface " +
    "package private protected public await arguments eval undefined NaN Infinity"
  ).split(" "),
);

export function isReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

/**
 * ECMAScript identifiers are Unicode (ID_Start, ID_Continue): `ñandú_über` is one as written, and
 * keeping it beats mangling it to `and_Ber`. The invisible joiners ES also allows are left out.
 */
const IDENTIFIER = /^[\p{ID_Start}_$][\p{ID_Continue}$]*$/u;
const STARTS_IDENTIFIER = /^[\p{ID_Start}_$]/u;
const NOT_IDENTIFIER_PART = /[^\p{ID_Continue}$]+/u;

export function isIdentifierName(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** True when `text` begins as an identifier does (a letter of any script, `_` or `$`). */
export function startsIdentifier(text: string): boolean {
  return STARTS_IDENTIFIER.test(text);
}

/** `word` with its first character (a code point, not half of a surrogate pair) changed by `change`. */
export function changeFirst(word: string, change: (c: string) => string): string {
  const [first = "", ...rest] = word;
  return change(first) + rest.join("");
}

/** A valid identifier from any text: `get-stations` → `getStations`, `2fa` → `op2fa`, `` → `operation`. */
export function toIdentifier(text: string, prefix = "op"): string {
  if (IDENTIFIER.test(text)) return text;
  const words = text.split(NOT_IDENTIFIER_PART).filter(Boolean);
  const id = words.map((w, i) => changeFirst(w, (c) => (i === 0 ? c.toLowerCase() : c.toUpperCase()))).join("");
  if (id === "") return prefix === "op" ? "operation" : prefix;
  const named = STARTS_IDENTIFIER.test(id) ? id : `${prefix}${changeFirst(id, (c) => c.toUpperCase())}`;
  // Case mapping can, in rare scripts, give a character that is no identifier part: keep ASCII then.
  return IDENTIFIER.test(named)
    ? named
    : toIdentifier(named.normalize("NFKD").replace(/[^A-Za-z0-9_$]+/g, " "), prefix);
}

export interface Claim {
  name: string;
  /** Why `name` differs from what was asked for; undefined when it does not. */
  changed?: string | undefined;
}

export class NameTable {
  private readonly owners = new Map<string, string>();

  /** `reserved`: names the module itself declares or that are unsafe for this module's purpose. */
  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.owners.set(fold(name), `the generated code ("${name}")`);
  }

  /** The owner that already holds `name` (case-insensitively), if any. */
  ownerOf(name: string): string | undefined {
    return this.owners.get(fold(name));
  }

  /** Takes `name` as it is, or says who holds it. */
  take(name: string, owner: string): string | undefined {
    const holder = this.ownerOf(name);
    if (holder !== undefined) return holder;
    this.owners.set(fold(name), owner);
    return undefined;
  }

  /**
   * A name for `owner`: `wanted` made a valid, non-reserved identifier and numbered (`name2`,
   * `name3`, …) until it is free. Deterministic: the same claims in the same order give the same names.
   */
  claim(wanted: string, owner: string): Claim {
    let base = toIdentifier(wanted);
    let changed = base !== wanted ? `"${wanted}" is not an identifier` : undefined;
    if (isReservedWord(base) || fold(base) === "__proto__") {
      changed = `"${base}" is a reserved word`;
      base = `${base}_`;
    }
    let name = base;
    const holder = this.ownerOf(name);
    if (holder !== undefined) {
      for (let i = 2; this.ownerOf(name) !== undefined; i++) name = `${base}${i}`;
      changed = `"${base}" is already used by ${holder}`;
    }
    this.owners.set(fold(name), owner);
    return { name, changed };
  }
}

function fold(name: string): string {
  return name.toLowerCase();
}

/** createCard → create_card; getLeadsByIDs → get_leads_by_ids. */
export function snakeCase(name: string): string {
  return (
    name
      // Tool names are ASCII (TOOL_NAME): ñandú → nandu, not "and".
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .toLowerCase()
  );
}
