/**
 * The spec extensions that shape agent tool steps, validated like every other `x-stepforge` key
 * (`.strict()`: an unknown key is an error with file:line:col).
 *
 * - `x-stepforge-tool` on an operation: the name, title, wording and hints of the step generated
 *   for that operation, values it always sends, fields it hides or renames, or `skip` when the
 *   operation must not be a step (credential plumbing such as a token endpoint).
 * - `x-stepforge.tools` at the root: extra steps built on an operation (composite or legacy steps,
 *   e.g. "archive card" = update card with closed=true) and the service's API Call step.
 *
 * Field names here are the names of the step's flattened input: path and query parameters (kebab
 * or bracketed names become snake_case: `source-countries` → `source_countries`, `q_by[]` → `q_by`)
 * and body properties.
 *
 * As in runtime/descriptor.ts, the types are object type aliases written out beside their schemas
 * instead of being `z.infer`red (code naming them would make tsc resolve zod's inference);
 * test/types/model-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

/** ^[a-z0-9_]{1,64}$: accepted by OpenAI, Anthropic and MCP alike. */
export const TOOL_NAME = /^[a-z0-9_]{1,64}$/;
const toolName = z.string().regex(TOOL_NAME, "tool names are 1-64 lower-case letters, digits or _ (e.g. trello_create_card)");
const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a field name: letters, digits, _ (1-64, starting with a letter)");

/** What a step tells a client about its effects. */
export type ToolHints = {
  /** Only reads (default: GET/HEAD). */
  readOnly?: boolean | undefined;
  /** May delete or overwrite data irreversibly (default: DELETE). */
  destructive?: boolean | undefined;
  /** Repeating it with the same input has no further effect (default: the operation's idempotence). */
  idempotent?: boolean | undefined;
  /** Talks to an outside system whose data can change (default: true). */
  openWorld?: boolean | undefined;
};

/** Validates {@link ToolHints}. */
export const ToolHintsSchema = z
  .object({
    readOnly: z.boolean().optional(),
    destructive: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    openWorld: z.boolean().optional(),
  })
  .strict();

/** A model-facing field of a step that maps onto a field of the operation's flattened input. */
export type ToolField = {
  /** The operation field it fills (default: the field of the same name). */
  from?: string | undefined;
  /** Replaces the description taken from the spec. */
  description?: string | undefined;
  /** The model must give it, although the operation has it optional. */
  required?: boolean | undefined;
  /**
   * Accepted for compatibility with an older input shape and not sent (`from` is then unused).
   * `schema` is its JSON Schema (default: a string).
   */
  ignored?: boolean | undefined;
  schema?: Record<string, unknown> | undefined;
};

/** Validates {@link ToolField}. */
export const ToolFieldSchema = z
  .object({
    from: fieldName.optional(),
    description: z.string().min(1).optional(),
    required: z.boolean().optional(),
    ignored: z.boolean().optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * A value taken from the write step's input: a dotted path (`idList`, `input.0.email`); `[]` after
 * a segment maps over a list (`input[].email` → every email sent).
 */
const inputPath = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\[\])?(\.([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(\[\])?)*$/, "a path into the step's input: field names and list indexes joined by '.', '[]' to take every item (e.g. input[].email)");

const checkScalar = z.union([z.string(), z.number(), z.boolean()]);

/** `check` of a step: how to find out whether a write whose answer was lost was applied. */
export type ToolCheck = {
  /** The read step to run (a step of the same service). */
  step: string;
  /**
   * Its input: field → a path into the write's input (`idList`, `input.0.email`; `[]` after a
   * segment maps over a list: `input[].email`), or `{ value }` for a constant. Default `{}`.
   */
  input: Record<string, string | { value: string | number | boolean | Array<string | number | boolean> }>;
  /** A record in its result is the write's when each of these record fields equals (or is one of) the write's value at the path. */
  match: Record<string, string>;
};

/** Validates {@link ToolCheck}. */
export const CheckSchema = z
  .object({
    step: toolName,
    input: z.record(fieldName, z.union([inputPath, z.object({ value: z.union([checkScalar, z.array(checkScalar)]) }).strict()])).default({}),
    match: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, "a record field (dotted for nested fields)"), inputPath),
  })
  .strict();

/**
 * One object type with the fields of an intersection, as zod's inferred types are; a variant is
 * `Flat<Base & { … }>` so that it stays identical to the `z.infer` of its schema.
 */
type Flat<T> = { [K in keyof T]: T[K] };

/** What every step declared in a spec may set: its wording, fixed values, fields, hints and check. */
export type ToolStepShape = {
  title?: string | undefined;
  /** What the step does and when to use it, written for a model (the operation's text follows). */
  description?: string | undefined;
  /** Values the step always sends, by flattened field name; hidden from the model. */
  fixed?: Record<string, string | number | boolean | null> | undefined;
  /** Flattened fields hidden from the model (optional ones only). */
  omit?: string[] | undefined;
  /**
   * Model-facing fields that differ from the operation's: renamed (`from`), re-described, made
   * required, or legacy-only (`ignored`). Fields not listed keep the operation's name and text.
   */
  fields?: Record<string, ToolField> | undefined;
  /** Only the listed (model-facing) fields are offered; the rest are hidden. */
  only?: string[] | undefined;
  hints?: ToolHints | undefined;
  /**
   * For a write that is not idempotent: the read step that shows whether it was applied, used when
   * its answer was lost after sending (timeout, dropped connection). The agent is told to run it
   * before calling the write again, so a lost answer never turns into a duplicate.
   */
  check?: ToolCheck | undefined;
  /** An older step kept for agents built against it; newer agents should use `replacedBy`. */
  deprecated?: boolean | undefined;
  replacedBy?: string | undefined;
};

/** The fields of {@link ToolStepShape}. */
const StepShape = {
  title: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  fixed: z.record(fieldName, z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  omit: z.array(fieldName).optional(),
  fields: z.record(fieldName, ToolFieldSchema).optional(),
  only: z.array(fieldName).optional(),
  hints: ToolHintsSchema.optional(),
  check: CheckSchema.optional(),
  deprecated: z.boolean().optional(),
  replacedBy: toolName.optional(),
};

/** `x-stepforge-tool` on an operation. */
export type OperationTool = Flat<ToolStepShape & {
  /** Step name (default `<service>_<snake_case(operationId)>`); must start with the service id. */
  name?: string | undefined;
  /** No step for this operation (say why in `reason`). */
  skip?: boolean | undefined;
  /** Why the operation is skipped: required with `skip: true`, refused without it. */
  reason?: string | undefined;
}>;

/** Validates {@link OperationTool}. */
export const OperationToolSchema = z
  .object({
    name: toolName.optional(),
    skip: z.boolean().optional(),
    reason: z.string().min(1).optional(),
    ...StepShape,
  })
  .strict()
  .refine((t) => t.skip !== true || t.reason !== undefined, { message: "say why the operation has no step: add `reason`", path: ["reason"] })
  .refine((t) => t.reason === undefined || t.skip === true, { message: "`reason` explains a skipped operation; add `skip: true` or remove `reason`", path: ["reason"] });

/** A step of `x-stepforge.tools.steps`: built on one operation of the spec. */
export type CompositeTool = Flat<ToolStepShape & {
  name: string;
  operation: string;
}>;

/** Validates {@link CompositeTool}. */
export const CompositeToolSchema = z
  .object({
    name: toolName,
    operation: z.string().min(1),
    ...StepShape,
  })
  .strict();

export const API_CALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type ApiCallMethod = (typeof API_CALL_METHODS)[number];

/** The generic API Call step: any endpoint under the connection's base address. */
export type ApiCallTool = {
  /** Default `<service>_api_call`. */
  name?: string | undefined;
  title: string;
  description: string;
  methods: ApiCallMethod[];
  /** Name of the query-parameter field (`query_parameters`, or `params` for the news service); absent: none. */
  queryField?: string | undefined;
  /** Name of the request-body field; absent: the step sends no body. */
  bodyField?: string | undefined;
  /** Example endpoints for the description, e.g. `/1/members/me/boards`. Default `[]`. */
  examples: string[];
};

/** Validates {@link ApiCallTool}. */
export const ApiCallToolSchema = z
  .object({
    name: toolName.optional(),
    title: z.string().min(1),
    description: z.string().min(1),
    methods: z.array(z.enum(API_CALL_METHODS)).min(1),
    queryField: fieldName.optional(),
    bodyField: fieldName.optional(),
    examples: z.array(z.string().startsWith("/")).default([]),
  })
  .strict();

/**
 * A named group of a service's steps (`cards`, `boards`, `news`), so an agent can be offered ten
 * steps instead of eighty (`stepforge mcp --toolsets cards,boards`, `cards:read` for its read-only
 * steps). A step may be in several toolsets.
 */
export type Toolset = {
  /** Lower-case letters, digits and _ (e.g. cards). */
  name: string;
  /** One sentence for a model and a user choosing toolsets. */
  description: string;
  /** Step names (as generated or named in x-stepforge-tool). */
  steps: string[];
};

/** Validates {@link Toolset}. */
export const ToolsetSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, "a toolset name: lower-case letters, digits and _ (e.g. cards)"),
    description: z.string().min(1),
    steps: z.array(toolName).min(1),
  })
  .strict();

/** `x-stepforge.tools` at the root. */
export type ServiceTools = {
  apiCall?: ApiCallTool | undefined;
  /** Default `[]`. */
  steps: CompositeTool[];
  /** Default `[]`. */
  toolsets: Toolset[];
};

/** Validates {@link ServiceTools}. */
export const ServiceToolsSchema = z
  .object({
    apiCall: ApiCallToolSchema.optional(),
    steps: z.array(CompositeToolSchema).default([]),
    toolsets: z.array(ToolsetSchema).default([]),
  })
  .strict();
