/**
 * One regular expression from parts written as regex literals, so a pattern longer than a source line can be
 * wrapped: each part is escaped exactly as it would be in the one long literal, and their sources are joined in
 * order. A part must be a valid pattern on its own (split between characters, never inside a group or a class).
 */
export function joinedPattern(parts: readonly RegExp[], flags = ""): RegExp {
  return new RegExp(parts.map((part) => part.source).join(""), flags);
}
