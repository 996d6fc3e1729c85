/**
 * What `executeTool` does around a step when observability is on: times it, counts its HTTP
 * attempts (the client's `request` events), logs its events through the context's logger, and
 * writes its call-log record. With no log and no logger it only runs the step.
 */
import { secretValues } from "../credentials/auth.js";
import type { Hooks } from "../hooks.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.js";
import { type CallLog, defaultCallLog } from "./call-log.js";
import { combineHooks, loggerHooks } from "./logger.js";

let warnedAboutEnv = false;

/** The log a call goes to: the context's own, none (`false`), or the environment's. */
function logFor(context: ToolContext): CallLog | undefined {
  if (context.callLog === false) return undefined;
  if (context.callLog) return context.callLog;
  try {
    return defaultCallLog();
  } catch (error) {
    // A tool call never fails over its log; say once why nothing is logged.
    if (!warnedAboutEnv) {
      warnedAboutEnv = true;
      process.emitWarning(`stepforge: tool calls are not logged: ${(error as Error).message}`, {
        code: "STEPFORGE_CALL_LOG",
      });
    }
    return undefined;
  }
}

export async function observeToolCall(
  tool: ToolDefinition,
  input: unknown,
  context: ToolContext,
  run: (context: ToolContext) => Promise<ToolResult>,
): Promise<ToolResult> {
  const log = logFor(context);
  if (!log && !context.logger) return run(context);
  let attempts = 0;
  const counting: Hooks = { onRequest: () => void attempts++ };
  // A client the caller built keeps its own hooks: its attempts are not seen here.
  const ownClient = context.client !== undefined;
  const hooks = combineHooks(
    context.hooks,
    ownClient ? undefined : counting,
    context.logger ? loggerHooks(context.logger) : undefined,
  );
  const startedAt = Date.now();
  const started = performance.now();
  const result = await run({ ...context, hooks });
  if (!log) return result;
  try {
    const connection = context.connection ?? undefined;
    const error = result.ok ? undefined : result.error;
    log.record(
      {
        tool: tool.name,
        service: tool.service,
        connection: connection?.name ?? context.client?.connectionName,
        input,
        startedAt,
        durationMs: performance.now() - started,
        outcome: error ? error.kind : "ok",
        ...(error
          ? {
              error: {
                kind: error.kind,
                message: error.message,
                retryable: error.retryable,
                ...(error.status !== undefined ? { status: error.status } : {}),
                ...(error.code !== undefined ? { code: error.code } : {}),
                ...(error.requestId !== undefined ? { requestId: error.requestId } : {}),
                ...(error.outcome === "unknown" ? { outcomeUnknown: true } : {}),
              },
            }
          : {}),
        attempts: ownClient ? undefined : attempts,
      },
      connection ? secretValues(tool.descriptor, connection) : [],
    );
  } catch {
    // Building a record must not turn a finished call into a failure.
  }
  return result;
}
