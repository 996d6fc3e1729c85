/**
 * Flags every command shares, and the one parser of numeric flag values. Commands parse their
 * arguments with node:util parseArgs in strict mode (an unknown flag is a usage error naming it,
 * exit 2); a value that is not what the flag takes is one too, naming the flag and what it takes.
 */
import { type ParseArgsConfig } from "node:util";
import { UsageError } from "./usage.js";

/** `--spec FILE` (repeatable) and `--project DIR`: which services a command works on (cli/project.ts). */
export const SCOPE_OPTIONS = {
  spec: { type: "string", multiple: true },
  project: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

export interface NumberRule {
  /** What the flag takes, in words: "a port number (0-65535)". */
  what: string;
  integer?: boolean;
  min?: number;
  max?: number;
  /** The value must be above `min`, not equal to it. */
  aboveMin?: boolean;
}

/** The number a flag gives, or undefined when it was not given; a usage error naming the flag otherwise. */
export function numberFlag(flag: string, raw: string | undefined, rule: NumberRule): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const ok =
    raw.trim() !== "" &&
    Number.isFinite(n) &&
    (!rule.integer || Number.isInteger(n)) &&
    (rule.min === undefined || (rule.aboveMin ? n > rule.min : n >= rule.min)) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok) throw new UsageError(`${flag} must be ${rule.what}, got "${raw}"`);
  return n;
}

export const PORT: NumberRule = { what: "a port number (0-65535)", integer: true, min: 0, max: 65535 };

/**
 * An http(s) address a flag gives, without trailing slashes; a usage error naming the flag
 * otherwise (without the value: an address may carry a user and password).
 */
export function urlFlag(flag: string, raw: string, example = "http://127.0.0.1:4010"): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be an http(s) address, e.g. ${example}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${flag} must be an http(s) address, e.g. ${example}`);
  return raw.replace(/\/+$/, "");
}
