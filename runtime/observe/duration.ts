/**
 * Durations as people type them (`90s`, `15m`, `2h`, `7d`, or plain milliseconds) and points in time
 * (`--since 15m` = fifteen minutes ago, or an ISO 8601 time).
 */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of `text`, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/i.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS[(match[2] ?? "ms").toLowerCase()]!;
  return Number.isFinite(ms) ? ms : undefined;
}

/** A point in time: a duration back from `now`, or an ISO 8601 date/time. Undefined when neither. */
export function parseSince(text: string, now = Date.now()): number | undefined {
  const ago = parseDuration(text);
  if (ago !== undefined && /[a-z]$/i.test(text.trim())) return now - ago;
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
