/**
 * Agent tool steps: definitions (generated per service), execution with a result envelope, the API
 * Call endpoint guard, and JSON Schema exports for OpenAI, Anthropic and MCP.
 */
export * from "./types.js";
export * from "./model.js";
export { defineOperationTool, defineApiCallTool, apiCallInput, apiCallOutput } from "./define.js";
export type { ToolInput, OperationToolSpec } from "./define.js";
export { s } from "./schema.js";
export type { Schema } from "./schema.js";
export { executeTool, executeToolByName, validateInput, dropNulls, wrapOutput } from "./execute.js";
export { checkEndpoint } from "./endpoint.js";
export type { EndpointAccepted, EndpointRefusal } from "./endpoint.js";
export { rawCall, rawOperation, API_CALL_OPERATION } from "./raw.js";
export { credentialQueryNames } from "../auth.js";
export type { RawRequest } from "./raw.js";
export { fieldErrors, invalidInput, toolErrorFrom } from "./errors.js";
export {
  canonicalize,
  canonicalSchema,
  openaiStrictSchema,
  openaiStrictViolations,
  anthropicViolations,
  mcpViolations,
  toOpenAI,
  toAnthropic,
  toMcp,
  pruneDepth,
  OUTPUT_SCHEMA_LEVELS,
  exportTools,
} from "./export.js";
export type { ExportFormat, ExportResult, OpenAITool, AnthropicTool, McpTool, RuleViolation, StrictResult, JsonSchema } from "./export.js";
