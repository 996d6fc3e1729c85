/**
 * The context one MCP tool call runs with: the account's own, with the server's wait bound and every
 * signal that may cancel the call.
 */
import { clientFor } from "../tools/context.js";
import type { ToolContext, ToolDefinition } from "../tools/types.js";

/**
 * The account's context for one call: the wait bound, and every signal that may cancel it (the
 * account's own, the request's, the server's shutdown) as one.
 */
export function callContext(
  context: ToolContext,
  tool: ToolDefinition,
  signals: Array<AbortSignal | undefined>,
  maxLimitWaitMs: number,
): ToolContext {
  const out: ToolContext = { ...context, maxLimitWaitMs: context.maxLimitWaitMs ?? maxLimitWaitMs };
  // The account's one client (built on its first call), not one per call, logged or not (a call
  // log counts a call's attempts with hooks of that call); a connection that cannot build one is
  // left to executeTool, which reports it as the step's error.
  try {
    out.client = clientFor(context, tool.descriptor);
  } catch {
    /* reported by executeTool */
  }
  const all = [context.signal, ...signals].filter((s): s is AbortSignal => s !== undefined);
  if (all.length) out.signal = all.length === 1 ? all[0] : AbortSignal.any(all);
  return out;
}
