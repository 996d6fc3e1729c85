/**
 * `tools/call` read as sent. The SDK's own schema refuses non-object arguments with a raw zod dump
 * (-32603) and its record parse drops a `"__proto__"` key; the server checks the params itself
 * (`toolCall`) and answers bad arguments as a tool result that names the problem.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { isObject } from "./results.js";

const RawCallToolRequestSchema = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });
export type RawCallToolRequest = z.infer<typeof RawCallToolRequestSchema>;

/** The name and arguments of a `tools/call`; malformed params are the protocol's invalid params (-32602). */
export function toolCall(params: unknown): { name: string; args: unknown } {
  const usage = 'tools/call takes params {"name": "<tool name from tools/list>", "arguments": {…}}';
  if (!isObject(params))
    throw new McpError(ErrorCode.InvalidParams, `${usage}; the params are missing or not an object`);
  if (typeof params.name !== "string" || params.name.length === 0)
    throw new McpError(ErrorCode.InvalidParams, `${usage}; "name" must be a tool's name (a string)`);
  return { name: params.name, args: params.arguments };
}

/**
 * Installs the `tools/call` handler through the protocol layer: the SDK's `Server` would first
 * check the request against its strict schema.
 */
export function setRawCallHandler(
  server: Server,
  handler: (request: RawCallToolRequest, extra: RequestHandlerExtra<never, never>) => Promise<CallToolResult>,
): void {
  (
    Protocol.prototype.setRequestHandler as (
      this: Server,
      schema: typeof RawCallToolRequestSchema,
      h: typeof handler,
    ) => void
  ).call(server, RawCallToolRequestSchema, handler);
}
