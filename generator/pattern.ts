/**
 * One reading of a schema `pattern`: ECMA-262 with the `u` flag, JSON Schema's rule and what the
 * mock's validator (Ajv) and sampler use. The generator reads a pattern that way too, and tool
 * inputs compile it with `u`, so a value one part accepts no other part refuses.
 *
 * Published specs carry patterns written for JavaScript without `u` (`^[\w-.]+$`, `^\d+\:\d+$`),
 * which `u` refuses as syntax errors. Most break only in spelling: an identity escape of a
 * character that needs none (`\:`), a `-` between a class escape and another atom inside `[…]`
 * (`[\w-.]`), a lone `{`, `}` or `]`. Without `u`, those mean the literal character, and written
 * that way (`:`, `[\w\-.]`, `\{`) they mean the same with `u`. `unicodeSpelling` makes exactly
 * those rewrites and nothing else; anything else is left to the caller to report and drop.
 *
 * Written here rather than taken from a library: the parsers on npm (regjsparser) read one mode and
 * print escapes back as written, which is the very problem.
 */

export type PatternReading =
  /** Compiles with `u`. */
  | { kind: "valid" }
  /** Compiles only without `u`, and `pattern` means the same with `u`. */
  | { kind: "respelled"; pattern: string }
  /** Compiles only without `u`, and no rewrite here keeps its meaning. */
  | { kind: "legacy" }
  /** Compiles neither way. */
  | { kind: "invalid" };

export function compilesWith(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

export function readPattern(pattern: string): PatternReading {
  if (compilesWith(pattern, "u")) return { kind: "valid" };
  if (!compilesWith(pattern, "")) return { kind: "invalid" };
  const respelled = unicodeSpelling(pattern);
  return respelled !== undefined && compilesWith(respelled, "u")
    ? { kind: "respelled", pattern: respelled }
    : { kind: "legacy" };
}

/** Characters `u` lets a backslash escape outside the escapes with a meaning (SyntaxCharacter and `/`). */
const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
/** Letters whose escape means something in both modes (inside a class, `\b` is a backspace; `\B` is not allowed). */
const MEANINGFUL = new Set([..."dDsSwWfnrtv"]);
const CLASS_ESCAPE = /^\\[dDsSwW]/;
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;

/**
 * `pattern` (valid without `u`) in a spelling `u` accepts with the same meaning, or undefined when
 * it holds a construct whose meaning differs between the modes (octal and decimal escapes, `\c`
 * without a letter, `\u{…}`, `\k` beside named groups, …).
 */
export function unicodeSpelling(pattern: string): string | undefined {
  let out = "";
  const namedGroups = /\(\?<[A-Za-z_$]/.test(pattern);
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const escaped = escapeOf(pattern, i, false, namedGroups);
      if (escaped === undefined) return undefined;
      out += escaped.text;
      i += escaped.length - 1;
    } else if (c === "[") {
      const cls = characterClass(pattern, i, namedGroups);
      if (cls === undefined) return undefined;
      out += cls.text;
      i = cls.end;
    } else if (c === "]" || c === "}") out += `\\${c}`;
    else if (c === "{") {
      const quantifier = QUANTIFIER.exec(pattern.slice(i));
      if (quantifier) {
        out += quantifier[0];
        i += quantifier[0].length - 1;
      } else out += "\\{";
    } else out += c;
  }
  return out;
}

interface ClassAtom {
  /** As `u` must spell it; a literal "-" is always `\-`, so `u` never reads a range the old reading did not. */
  text: string;
  /** `\d`, `\w`, …: a set, which cannot end a range. */
  set: boolean;
}

/**
 * The class opening at `pattern[at]`, read as JavaScript reads it without `u` (a "-" next to a
 * class escape is a literal "-"), written out so that `u` reads the same: every range `A-B`
 * between two characters, every other "-" escaped. `end`: the index of its closing "]".
 */
function characterClass(pattern: string, at: number, namedGroups: boolean): { text: string; end: number } | undefined {
  let i = at + 1;
  let text = "[";
  if (pattern[i] === "^") text += pattern[i++];
  const atom = (): ClassAtom | undefined => {
    const c = pattern[i]!;
    if (c !== "\\") {
      i++;
      return { text: c === "-" ? "\\-" : c, set: false };
    }
    const escaped = escapeOf(pattern, i, true, namedGroups);
    if (escaped === undefined) return undefined;
    i += escaped.length;
    return { text: escaped.text === "-" ? "\\-" : escaped.text, set: CLASS_ESCAPE.test(escaped.text) };
  };
  while (i < pattern.length && pattern[i] !== "]") {
    const first = atom();
    if (first === undefined) return undefined;
    if (pattern[i] === "-" && i + 1 < pattern.length && pattern[i + 1] !== "]") {
      i++;
      const last = atom();
      if (last === undefined) return undefined;
      // Without u, a range with a set on either side is the set, "-" and the other atom.
      text += first.set || last.set ? `${first.text}\\-${last.text}` : `${first.text}-${last.text}`;
    } else text += first.text;
  }
  if (pattern[i] !== "]") return undefined;
  return { text: `${text}]`, end: i };
}

/** The escape at `pattern[at]` (a backslash) as `u` must spell it, and how many characters it took. */
function escapeOf(
  pattern: string,
  at: number,
  inClass: boolean,
  namedGroups: boolean,
): { text: string; length: number } | undefined {
  const next = pattern[at + 1];
  if (next === undefined) return undefined;
  const keep = (length: number) => ({ text: pattern.slice(at, at + length), length });
  if (SYNTAX.has(next)) return keep(2);
  if (next === "-") return inClass ? keep(2) : { text: "-", length: 2 };
  if (MEANINGFUL.has(next)) return keep(2);
  if (next === "b") return keep(2);
  if (next === "B") return inClass ? { text: "B", length: 2 } : keep(2);
  if (next === "0") return /[0-9]/.test(pattern[at + 2] ?? "") ? undefined : keep(2);
  if (/[1-9]/.test(next)) return undefined;
  if (next === "x") return /^[0-9A-Fa-f]{2}$/.test(pattern.slice(at + 2, at + 4)) ? keep(4) : { text: "x", length: 2 };
  if (next === "u") {
    if (pattern[at + 2] === "{") return undefined;
    return /^[0-9A-Fa-f]{4}$/.test(pattern.slice(at + 2, at + 6)) ? keep(6) : { text: "u", length: 2 };
  }
  if (next === "c") return /[A-Za-z]/.test(pattern[at + 2] ?? "") ? keep(3) : undefined;
  if (next === "k") return namedGroups ? keep(2) : { text: "k", length: 2 };
  // Any other character escaped without `u` is itself (`\:` is ":", `\p` is "p"). Spelled bare,
  // it is itself with `u` as well; a surrogate pair stays whole.
  const code = pattern.codePointAt(at + 1)!;
  return { text: String.fromCodePoint(code), length: code > 0xffff ? 3 : 2 };
}
