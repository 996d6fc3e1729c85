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
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface " +
    "package private protected public await arguments eval undefined NaN Infinity"
  ).split(" "),
);

export function isReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A valid identifier from any text: `get-stations` → `getStations`, `2fa` → `op2fa`, `` → `operation`. */
export function toIdentifier(text: string, prefix = "op"): string {
  if (IDENTIFIER.test(text)) return text;
  const words = text.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  const id = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");
  if (id === "") return prefix === "op" ? "operation" : prefix;
  return /^[0-9]/.test(id) ? `${prefix}${id[0]!.toUpperCase()}${id.slice(1)}` : id;
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
