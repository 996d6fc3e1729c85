/**
 * New ids in the formats real services use (`x-stepforge.mock.resources.<r>.id`), drawn from a
 * seeded generator so a run's ids repeat.
 */
import { prng } from "./faults.js";
import type { MockResource } from "./extension-types.js";

const HEX = "0123456789abcdef";

/** `A-Za-z0-9_` → the characters it names; a `-` at either end is itself. */
export function expandAlphabet(spec: string): string {
  let out = "";
  for (let i = 0; i < spec.length; i++) {
    const from = spec[i]!;
    if (spec[i + 1] === "-" && i + 2 < spec.length) {
      const to = spec[i + 2]!;
      if (to.charCodeAt(0) < from.charCodeAt(0))
        throw new Error(`id alphabet "${spec}": the range ${from}-${to} runs backwards`);
      for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) out += String.fromCharCode(c);
      i += 2;
    } else out += from;
  }
  return [...new Set(out)].join("");
}

export class IdMaker {
  private random: () => number;
  private readonly counters = new Map<string, number>();
  private readonly alphabets = new Map<string, string>();

  constructor(private readonly seed = 1) {
    this.random = prng(seed);
  }

  reset(): void {
    this.random = prng(this.seed);
    this.counters.clear();
  }

  /** `n` characters of `alphabet` (default hex). */
  chars(n: number, alphabet = HEX): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.random() * alphabet.length)];
    return s;
  }

  uuid(version = "4"): string {
    const h = this.chars(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${version}${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }

  /** An integer id seen in loaded records: new ones count up from above it. */
  saw(resource: string, id: number): void {
    if (id > (this.counters.get(resource) ?? Number.NEGATIVE_INFINITY)) this.counters.set(resource, id);
  }

  next(resource: string, spec: MockResource["id"]): string | number {
    switch (spec.format) {
      case "hex24":
        return this.chars(24);
      case "integer": {
        const next = (this.counters.get(resource) ?? (spec.start ?? 1) - 1) + 1;
        this.counters.set(resource, next);
        return next;
      }
      case "prefixed":
        return `${spec.prefix ?? ""}${this.chars(16)}`;
      case "uuid":
        return this.uuid();
      case "random": {
        let alphabet = this.alphabets.get(spec.alphabet!);
        if (!alphabet) this.alphabets.set(spec.alphabet!, (alphabet = expandAlphabet(spec.alphabet!)));
        return `${spec.prefix ?? ""}${this.chars(spec.length!, alphabet)}`;
      }
    }
  }
}
