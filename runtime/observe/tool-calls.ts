/**
 * What `executeTool` does around a step when observability is on: times it, counts its HTTP
 * attempts (the client's `request` events), logs its events through the context's logger, wraps it
 * in a span (`tracing`: the operation call's span becomes its child) and writes its call-log record.
 * With no log, no logger and no tracing it only runs the step.
 */
import { secretValues } from "../credentials/auth.js";
import type { ServiceClient } from "../client/client.js";
import type { Hooks } from "../hooks.js";
import { clientFor, withCallHooks } from "../tools/context.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.js";
import { type CallLog, defaultCallLog } from "./call-log.js";
import { combineHooks, loggerHooks } from "./logger.js";
import { hashConnection, parentContext, runWithParent, startingUnder, tracerFor } from "./otel.js";

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
  const traced = tracerFor(context.tracing);
  if (traced) {
    const logged = (traceId: string | undefined, inSpan: ToolContext) =>
      logToolCall(tool, input, inSpan, log, run, traceId);
    return traceToolCall(traced, tool, context, logged);
  }
  if (!log && !context.logger) return run(context);
  return logToolCall(tool, input, context, log, run, undefined);
}

type Traced = NonNullable<ReturnType<typeof tracerFor>>;

/** The step inside its own span (GenAI conventions: `execute_tool <name>`, `gen_ai.tool.name`). */
async function traceToolCall(
  { api, tracer }: Traced,
  tool: ToolDefinition,
  context: ToolContext,
  run: (traceId: string | undefined, inSpan: ToolContext) => Promise<ToolResult>,
): Promise<ToolResult> {
  const parent = parentContext(api);
  const connection = context.connection?.name ?? context.client?.connectionName;
  const span = tracer.startSpan(
    `execute_tool ${tool.name}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool.name,
        "stepforge.service": tool.service,
        ...(connection ? { "stepforge.connection.hash": hashConnection(tool.service, connection) } : {}),
      },
    },
    parent,
  );
  const spanContext = span.spanContext();
  const traceId = api.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
  let result: ToolResult | undefined;
  try {
    const under = api.trace.setSpan(parent, span);
    const traced = tracedContext(api, under, tool, context);
    // The API's context too, for a context manager the application registered (its code in a
    // step sees the tool's span as active); with none registered this only runs the step.
    result = await (traced
      ? api.context.with(under, () => run(traceId, traced))
      : runWithParent(api, under, () => run(traceId, context)));
    return result;
  } finally {
    const error = result && !result.ok ? result.error : undefined;
    span.setAttribute("stepforge.outcome", result ? (error ? error.kind : "ok") : "internal");
    if (!result || error) {
      span.setAttribute("error.type", error?.kind ?? "internal");
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/**
 * The context whose client starts each call under the tool's span (`startingUnder`), without
 * AsyncLocalStorage; undefined when the caller brought its own client (it may start a call after
 * an await, outside that hand-off) or none can be built: the step then runs under `runWithParent`.
 */
function tracedContext(
  api: Traced["api"],
  under: ReturnType<Traced["api"]["context"]["active"]>,
  tool: ToolDefinition,
  context: ToolContext,
): ToolContext | undefined {
  if (context.client) return undefined;
  let client: ServiceClient;
  try {
    client = clientFor(context, tool.descriptor);
  } catch {
    return undefined;
  }
  // Pages are fetched after awaits inside the iteration: those keep the async-scoped parent.
  const paged = <T>(items: AsyncIterable<T>): AsyncIterable<T> => ({
    [Symbol.asyncIterator]: () => {
      const iterator = items[Symbol.asyncIterator]();
      return {
        next: () => runWithParent(api, under, () => iterator.next()),
        return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
      };
    },
  });
  const traced: ServiceClient = {
    descriptor: client.descriptor,
    baseUrl: client.baseUrl,
    connectionName: client.connectionName,
    call: (operationId, init) => startingUnder(under, () => client.call(operationId, init)),
    request: (raw, options) => startingUnder(under, () => client.request(raw, options)),
    pages: (operationId, init, options) => paged(client.pages(operationId, init, options)),
    items: (operationId, init, options) => paged(client.items(operationId, init, options)),
  };
  return { ...context, client: traced };
}

async function logToolCall(
  tool: ToolDefinition,
  input: unknown,
  context: ToolContext,
  log: CallLog | undefined,
  run: (context: ToolContext) => Promise<ToolResult>,
  traceId: string | undefined,
): Promise<ToolResult> {
  if (!log && !context.logger) return run(context);
  let attempts = 0;
  const counting: Hooks = { onRequest: () => void attempts++ };
  // This tool call's hooks ride on each of its requests: the context's client (the caller's own
  // or the one kept for the context) stays shared, and only this call's attempts are counted.
  const hooks = combineHooks(counting, context.logger ? loggerHooks(context.logger) : undefined)!;
  const startedAt = Date.now();
  const started = performance.now();
  const result = await run(withCallHooks(context, tool.descriptor, hooks));
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
        attempts,
        traceId,
      },
      connection ? secretValues(tool.descriptor, connection) : [],
    );
  } catch {
    // Building a record must not turn a finished call into a failure.
  }
  return result;
}
