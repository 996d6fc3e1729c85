/**
 * Flags every command shares, and the one parser of numeric flag values. Commands parse their
 * arguments with node:util parseArgs in strict mode (an unknown flag is a usage error naming it,
 * exit 2); a value that is not what the flag takes is one too, naming the flag and what it takes.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./usage.js";

/** `--spec FILE` (repeatable) and `--project DIR`: which services a command works on (cli/project.ts). */
export const SCOPE_OPTIONS = {
  spec: { type: "string", multiple: true },
  project: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

type FlagOptions = NonNullable<ParseArgsConfig["options"]>;
/** What parseArgs returns for these options in strict mode, with or without words beside the flags. */
type Parsed<O extends FlagOptions, Words extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: Words }>
>;

/** A command's `--flag value` arguments, strictly: an unknown flag or a bare word is a usage error. */
export function flagsOf<O extends FlagOptions>(args: string[], options: O): Parsed<O, false> {
  return parseArgs({ args, options, strict: true, allowPositionals: false });
}

/** The same for a command that also takes words without a flag (`positionals`: file names, an operation). */
export function flagsAndWordsOf<O extends FlagOptions>(args: string[], options: O): Parsed<O, true> {
  return parseArgs({ args, options, strict: true, allowPositionals: true });
}

/** `--NAME VALUE` flags, one for each name. */
export function valueFlags<const N extends string>(...names: N[]): { [K in N]: { type: "string" } } {
  return Object.fromEntries(names.map((name) => [name, { type: "string" }])) as { [K in N]: { type: "string" } };
}

/** `--NAME` switches, off unless given. */
export function switchFlags<const N extends string>(...names: N[]): { [K in N]: { type: "boolean"; default: false } } {
  const flags = names.map((name) => [name, { type: "boolean", default: false }]);
  return Object.fromEntries(flags) as { [K in N]: { type: "boolean"; default: false } };
}

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
