/**
 * Caps on what a model may send to a step, checked before anything else looks at the input: a
 * deeply nested or huge value (an API Call body of 40,000 levels, ten megabytes) is refused with
 * an error that names the field, instead of blocking the event loop in validation or being sent.
 *
 * One pass without recursion, stopping at the first limit crossed: linear in the input's size.
 */
import type { InputLimits, ToolFieldError } from "./types.js";

export const DEFAULT_INPUT_LIMITS = { maxBytes: 1_048_576, maxDepth: 32 } as const;

/** Bytes of a scalar as JSON, about (strings exact in UTF-8, numbers and literals estimated). */
function scalarBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value) + 2;
  if (typeof value === "number" || typeof value === "boolean") return 6;
  return 4;
}

/** The first limit `input` crosses, as a field error; undefined when within both. */
export function inputLimitProblem(input: unknown, limits: InputLimits = {}): ToolFieldError | undefined {
  const maxBytes = limits.maxBytes ?? DEFAULT_INPUT_LIMITS.maxBytes;
  const maxDepth = limits.maxDepth ?? DEFAULT_INPUT_LIMITS.maxDepth;
  const tooLarge = (field: string): ToolFieldError => ({
    path: field,
    message: `makes the input larger than ${maxBytes} bytes; send less (split the work into several calls)`,
  });
  let bytes = 0;
  // Objects and lists still to visit: [value, depth, the top-level field it sits under]. Scalars
  // are counted where they are met, so a long list of numbers costs no allocation per item.
  const stack: Array<[object, number, string]> = [];
  const meet = (value: unknown, depth: number, field: string): ToolFieldError | undefined => {
    if (value !== null && typeof value === "object") {
      if (depth > maxDepth)
        return {
          path: field,
          message: `nests deeper than ${maxDepth} levels of objects and lists; send a flatter value`,
        };
      stack.push([value, depth, field]);
      bytes += 2;
    } else {
      bytes += scalarBytes(value);
    }
    return bytes > maxBytes ? tooLarge(field) : undefined;
  };
  const first = meet(input, 1, "");
  if (first) return first;
  while (stack.length > 0) {
    const [node, depth, field] = stack.pop()!;
    if (Array.isArray(node)) {
      for (const child of node) {
        bytes += 1;
        const problem = meet(child, depth + 1, field);
        if (problem) return problem;
      }
    } else {
      for (const [key, child] of Object.entries(node)) {
        bytes += Buffer.byteLength(key) + 4;
        const problem = meet(child, depth + 1, depth === 1 ? key : field);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}
