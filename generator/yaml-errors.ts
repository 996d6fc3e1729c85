/**
 * A YAML document that does not parse, as the diagnostics an author can act on. The parser reports
 * one mistake several ways (a mis-indented line is both "Nested mappings are not allowed in compact
 * mappings" and "Implicit keys need to be on a single line"), and every later stage would only
 * report what follows from it; so a syntax error is one diagnostic, at the line that holds the
 * mistake, with a hint in words. Keys written twice are independent mistakes: each is reported,
 * but only when the document has no syntax error (which may be their cause).
 */
import type { LineCounter, YAMLError } from "yaml";
import type { Diagnostic } from "./diagnostics.js";

interface Line {
  number: number;
  text: string;
  /** Column (1-based) of the first character that is not a space. */
  column: number;
}

export function yamlErrorDiagnostics(
  file: string,
  text: string,
  errors: readonly YAMLError[],
  lines: LineCounter,
): Diagnostic[] {
  const syntax = errors.filter((e) => e.code !== "DUPLICATE_KEY");
  if (syntax.length === 0) return errors.map((e) => duplicateKey(file, text, e, lines));
  const first = [...syntax].sort((a, b) => a.pos[0] - b.pos[0])[0]!;
  const at = lines.linePos(first.pos[0]);
  const { line, column, hint } = explain(first, sourceLines(text), at);
  const message = `not valid YAML: ${first.message.split("\n")[0]}${hint ? `; ${hint}` : ""}`;
  return [{ code: "SF002", severity: "error", message, file, line, column }];
}

function duplicateKey(file: string, text: string, error: YAMLError, lines: LineCounter): Diagnostic {
  const at = lines.linePos(error.pos[0]);
  const key = /^("[^"]*"|'[^']*'|[^:#]*?)\s*:/.exec(text.slice(error.pos[0]))?.[1]?.trim();
  const named = key ? `the key ${key.startsWith('"') || key.startsWith("'") ? key : `"${key}"`}` : "a key";
  const message =
    `not valid YAML: ${named} is written twice in one mapping; ` +
    "keep one (a second one would silently replace the first)";
  return { code: "SF002", severity: "error", message, file, line: at.line, column: at.col };
}

function sourceLines(text: string): Line[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((t, i) => ({ number: i + 1, text: t, column: t.length - t.trimStart().length + 1 }));
}

const blank = (line: Line | undefined) => line !== undefined && /^\s*(#.*)?$/.test(line.text);

function nextContentLine(lines: Line[], after: number): Line | undefined {
  for (let i = after; i < lines.length; i++) if (!blank(lines[i])) return lines[i];
  return undefined;
}

function previousContentLine(lines: Line[], before: number): Line | undefined {
  for (let i = before - 2; i >= 0; i--) if (!blank(lines[i])) return lines[i];
  return undefined;
}

/** The place to point at and a hint, from the parser's error code and the lines around it. */
function explain(
  error: YAMLError,
  lines: Line[],
  at: { line: number; col: number },
): { line: number; column: number; hint?: string } {
  const here = lines[at.line - 1];
  switch (error.code) {
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY": {
      // `key: value` followed by a line indented deeper: the parser reads that line as more of
      // the value. The mistake is the indentation of one of the two lines.
      const next = nextContentLine(lines, at.line);
      if (here && next && next.column > here.column) {
        return {
          line: here.number,
          column: here.column,
          hint:
            `line ${next.number} starts at column ${next.column}, deeper than line ${here.number} ` +
            `(column ${here.column}), so it reads as part of that line's value; keys of one mapping start in the ` +
            "same column, and a nested mapping goes under a key with nothing after its colon",
        };
      }
      if (here && /:\s+[^\s#"'][^#]*:\s/.test(here.text)) {
        return {
          line: here.number,
          column: here.column,
          hint: 'a value holds ": "; quote it, or put the nested mapping on its own lines',
        };
      }
      return { line: at.line, column: at.col, hint: "check the indentation of this line and the next" };
    }
    case "BAD_INDENT": {
      if (/flow/i.test(error.message)) {
        return {
          line: at.line,
          column: at.col,
          hint: "a list or mapping written inline ([…] or {…}) above this line is not closed; close it with ] or }",
        };
      }
      const before = previousContentLine(lines, at.line);
      const column = here?.column ?? at.col;
      const hint =
        before && before.column !== column
          ? `line ${at.line} starts at column ${column}, line ${before.number} at column ${before.column}; ` +
            "keys of one mapping (and items of one list) start in the same column"
          : "keys of one mapping (and items of one list) start in the same column";
      return { line: at.line, column, hint };
    }
    case "TAB_AS_INDENT":
      return { line: at.line, column: at.col, hint: "YAML indents with spaces only; replace the tab" };
    case "MISSING_CHAR":
      return {
        line: at.line,
        column: at.col,
        hint: "a quote, bracket or brace opened before this point is not closed",
      };
    case "UNEXPECTED_TOKEN":
      return { line: at.line, column: at.col, hint: "check this line for a missing colon, quote or bracket" };
    default:
      return { line: at.line, column: at.col };
  }
}
