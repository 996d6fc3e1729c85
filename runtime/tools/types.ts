/**
 * What a tool step is (as generated code declares it) and what executing one returns.
 *
 * A step's result never throws at the agent: it is `{ ok: true, data }` or `{ ok: false, error }`
 * where `error.kind` says who can fix it (the model: `invalid_input`; the caller: `connection`;
 * nobody right now: `rate_limited`, `server`, ...), `retryable` whether the same call may work
 * later, and `fields` which input fields were wrong.
 */
import type { ClientOptions, ServiceClient } from "../client/client.js";
import type { ErrorKind, ServiceDescriptor } from "../descriptor.js";
import type { ApiCallTool, ToolCheck } from "./extension-types.js";
import type { CallLog } from "../observe/call-log.js";
import type { Logger } from "../observe/logger.js";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * A step's schema, declared by what its callers use of it. At run time every one is a zod schema
 * (the builders of schema.ts and define.ts make them, and `defineOperationTool` refuses anything
 * else); declared without zod's types, an application that type-checks against the tool steps
 * never loads zod's declaration files (about a hundred, most of the README samples' check).
 */
export interface StepSchema {
  safeParse(value: unknown): StepParseResult;
}

/** An object schema: its fields by name. */
export interface StepObjectSchema extends StepSchema {
  readonly shape: Readonly<Record<string, unknown>>;
}

export type StepParseResult =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error: StepSchemaError };

/** Why a value was refused: one issue per problem (zod's issues; `code` says which fields follow). */
export interface StepSchemaError {
  readonly issues: readonly StepIssue[];
}

export interface StepIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

interface ToolBase {
  /** `^[a-z0-9_]{1,64}$`, starting with the service id. */
  name: string;
  service: string;
  title: string;
  /** For a model: what it does, when to use it. Field meanings live in the input schema. */
  description: string;
  annotations: ToolAnnotations;
  descriptor: ServiceDescriptor;
  /** Validates everything the model sends (unknown fields are refused). */
  input: StepObjectSchema;
  /** What `data` holds on success (always an object; arrays come as `{ items }`). */
  output: StepSchema;
  deprecated?: boolean | undefined;
  replacedBy?: string | undefined;
  /** For a non-idempotent write: the read step that shows whether it was applied (x-stepforge-tool.check). */
  check?: ToolCheck | undefined;
}

/** A step bound to one operation of the spec. */
export interface OperationToolDefinition<I = any> extends ToolBase {
  kind: "operation";
  operationId: string;
  /** How the success body becomes an object: as is, `{ items: body }` (arrays) or `{ value: body }`. */
  outputWrap: "none" | "items" | "value";
  /** Calls the operation through the service client (auth, limits, retries). */
  handler(client: ServiceClient, input: I): Promise<unknown>;
}

/** The generic API Call step. */
export interface ApiCallToolDefinition extends ToolBase {
  kind: "api_call";
  config: ApiCallTool;
}

export type ToolDefinition = OperationToolDefinition | ApiCallToolDefinition;

/**
 * Where a step runs: the caller's connection and transport, never chosen by the model. The step's
 * client is `client` when given (built once by the caller for `connection`), else one built from
 * these options on the first call and kept for the context object's life (runtime/tools/context.ts):
 * reuse one context across calls and every call shares one client. `signal` and `maxLimitWaitMs`
 * apply per call, whichever client runs it.
 */
export interface ToolContext extends ClientOptions {
  /** A client already built for `connection` (reused across calls); built from the options otherwise. */
  client?: ServiceClient | undefined;
  /** Caps on the model's input (default 1 MiB, 32 levels). */
  inputLimits?: InputLimits | undefined;
  /** Where the call is recorded (default: the log STEPFORGE_CALL_LOG names, if any); false: not recorded. */
  callLog?: CallLog | false | undefined;
  /** A pino-style logger for the call's events (silent when absent). */
  logger?: Logger | undefined;
}

/** The kinds a tool step adds to the service's: who must fix it is the model, the caller or stepforge. */
export const TOOL_ONLY_ERROR_KINDS = ["invalid_input", "connection", "unknown_tool", "internal"] as const;

export type ToolErrorKind = ErrorKind | (typeof TOOL_ONLY_ERROR_KINDS)[number];

/** Caps on what a model may send a step (input-limits.ts applies them). */
export interface InputLimits {
  /** Bytes of the input as JSON (UTF-8), about. Default 1 MiB. */
  maxBytes?: number | undefined;
  /** Levels of objects and lists, the input object itself being level 1. Default 32. */
  maxDepth?: number | undefined;
}

export interface ToolFieldError {
  /** Dotted path in the step's input (`idList`, `input.0.email`); "" for the input as a whole. */
  path: string;
  message: string;
}

export interface ToolError {
  kind: ToolErrorKind;
  /** What happened and what to do about it, for the model. */
  message: string;
  /** The same call may succeed later (after `retryAfterMs` when given). */
  retryable: boolean;
  fields: ToolFieldError[];
  service?: string | undefined;
  tool?: string | undefined;
  status?: number | undefined;
  code?: string | undefined;
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  resetsAt?: string | undefined;
  /**
   * "unknown": a write that is not idempotent was sent and its answer was lost (timeout, dropped
   * connection), so it may or may not have been applied. Such an error is never `retryable`.
   */
  outcome?: "unknown" | undefined;
  /**
   * How to find out whether it was applied: run `step` with `input`; the write's record is one whose fields equal
   * `match`.
   */
  check?: ToolCheckAdvice | undefined;
}

export interface ToolCheckAdvice {
  step: string;
  input: Record<string, unknown>;
  /** Record field → the value this write sent (a list: any of them). */
  match: Record<string, unknown>;
}

export type ToolResult<T = unknown> = { ok: true; data: T } | { ok: false; error: ToolError };
