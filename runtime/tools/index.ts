/**
 * Agent tool steps: definitions (generated per service), execution with a result envelope, the API
 * Call endpoint guard, result shaping, and JSON Schema exports for OpenAI, Anthropic, MCP and Gemini.
 */
export * from "./types.js";
export * from "./extension-types.js";
export { defineOperationTool, defineWiredTool, defineApiCallTool, apiCallInput, apiCallOutput } from "./define.js";
export type { ToolInput, OperationToolSpec, WiredToolSpec, StepWire, WireValue } from "./define.js";
export { s } from "./schema.js";
export { defineWiredTools } from "./data.js";
export type { SchemaData, ChainData, WiredStepData, WiredToolsData } from "./data.js";
export { MAX_FILE_BYTES, multipartBody, decodeBase64 } from "./bodies.js";
export type { BodyEncoding } from "./bodies.js";
export type { Schema } from "./schema.js";
export { executeTool, executeToolByName, validateInput, dropNulls, wrapOutput } from "./execute.js";
export { checkEndpoint } from "./endpoint.js";
export type { EndpointAccepted, EndpointRefusal } from "./endpoint.js";
export { rawCall, rawOperation, API_CALL_OPERATION } from "./raw.js";
export { credentialQueryNames } from "../credentials/auth.js";
export type { RawRequest } from "./raw.js";
export { fieldErrors, invalidInput, toolErrorFrom } from "./errors.js";
export {
  canonicalize,
  canonicalSchema,
  openaiStrictSchema,
  openaiStrictViolations,
  OPENAI_STRICT_LIMITS,
  anthropicViolations,
  mcpViolations,
  toOpenAI,
  toAnthropic,
  toMcp,
  pruneDepth,
  OUTPUT_SCHEMA_LEVELS,
  exportTools,
  fullDescription,
  ToolSchemas,
} from "./export.js";
export { toGemini, geminiSchema, geminiViolations, GEMINI_NAME } from "./gemini.js";
export type { GeminiTool } from "./gemini.js";
export { shapeResult, selectFields, recordsKeyOf } from "./shape.js";
export type { Shaped, ShapeOptions } from "./shape.js";
export { inputLimitProblem, DEFAULT_INPUT_LIMITS } from "./input-limits.js";
export { checkAdvice, valuesAt } from "./errors.js";
export type {
  ExportFormat,
  ExportResult,
  OpenAITool,
  AnthropicTool,
  McpTool,
  RuleViolation,
  StrictResult,
  JsonSchema,
} from "./export.js";
export type { CanonicalOptions, SchemaWork } from "./export-schema.js";
