/**
 * Caps on what a model may send to a step, checked before anything else looks at the input: a
 * deeply nested or huge value (an API Call body of 40,000 levels, ten megabytes) is refused with
 * an error that names the field, instead of blocking the event loop in validation or being sent.
 *
 * One pass without recursion, stopping at the first limit crossed: linear in the input's size.
 */
import type { ToolFieldError } from "./types.js";

export interface InputLimits {
  /** Bytes of the input as JSON (UTF-8), about. Default 1 MiB. */
  maxBytes?: number | undefined;
  /** Levels of objects and lists, the input object itself being level 1. Default 32. */
  maxDepth?: number | undefined;
}

export const DEFAULT_INPUT_LIMITS = { maxBytes: 1_048_576, maxDepth: 32 } as const;

/** The first limit `input` crosses, as a field error; undefined when within both. */
export function inputLimitProblem(input: unknown, limits: InputLimits = {}): ToolFieldError | undefined {
  const maxBytes = limits.maxBytes ?? DEFAULT_INPUT_LIMITS.maxBytes;
  const maxDepth = limits.maxDepth ?? DEFAULT_INPUT_LIMITS.maxDepth;
  let bytes = 0;
  // [value, depth, the top-level field it sits under]
  const stack: Array<[unknown, number, string]> = [[input, 1, ""]];
  while (stack.length > 0) {
    const [node, depth, field] = stack.pop()!;
    if (typeof node === "string") bytes += Buffer.byteLength(node) + 2;
    else if (typeof node === "number" || typeof node === "boolean") bytes += 6;
    else if (node === null || node === undefined) bytes += 4;
    else if (typeof node === "object") {
      if (depth > maxDepth) {
        return { path: field, message: `nests deeper than ${maxDepth} levels of objects and lists; send a flatter value` };
      }
      bytes += 2;
      if (Array.isArray(node)) {
        for (const child of node) {
          bytes += 1;
          stack.push([child, depth + 1, field]);
        }
      } else {
        for (const [key, child] of Object.entries(node)) {
          bytes += Buffer.byteLength(key) + 4;
          stack.push([child, depth + 1, depth === 1 ? key : field]);
        }
      }
    }
    if (bytes > maxBytes) {
      return { path: field, message: `makes the input larger than ${maxBytes} bytes; send less (split the work into several calls)` };
    }
  }
  return undefined;
}
