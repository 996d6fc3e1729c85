/**
 * What every served tool set answers with when a call cannot go on (the step tools, the meta-tools,
 * code mode's search and execute): an `isError` result whose text is a JSON error object, and the
 * check of a tool's arguments against the fields its schema declares.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Hints of a tool that reads and changes nothing. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function errorResult(body: object): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** An `invalid_input` result naming the field and what is wrong with it. */
export function inputError(tool: string, field: string, message: string): CallToolResult {
  return errorResult({
    kind: "invalid_input",
    message: `The input for ${tool} is not valid — ${field || "(input)"}: ${message}. Correct it and call again.`,
    retryable: false,
    fields: [{ path: field, message }],
    tool,
  });
}

/**
 * A tool's arguments against its declared schema's shape: an object with only the declared
 * properties (the schemas say additionalProperties: false); the first other one is named. The
 * fields' own checks follow in each tool.
 */
export function declaredFields(
  tool: string,
  args: unknown,
  allowed: readonly string[],
): { ok: true; args: Json } | { ok: false; result: CallToolResult } {
  if (args === undefined) return { ok: true, args: {} };
  if (!isObject(args))
    return {
      ok: false,
      result: inputError(tool, "", `the input must be a JSON object with the fields ${allowed.join(", ")}`),
    };
  const extra = Object.keys(args).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    return {
      ok: false,
      result: inputError(tool, extra, `"${extra}" is not a field of ${tool}; the fields are ${allowed.join(", ")}`),
    };
  return { ok: true, args };
}

/** An `internal` result for a failure nobody foresaw: the server answers it and keeps serving. */
export function internalError(tool: string, error: unknown): CallToolResult {
  return errorResult({
    kind: "internal",
    message: `The call failed unexpectedly: ${(error as Error).message}`,
    retryable: false,
    fields: [],
    tool,
  });
}
