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
 */
import * as z from "zod";

/** ^[a-z0-9_]{1,64}$: accepted by OpenAI, Anthropic and MCP alike. */
export const TOOL_NAME = /^[a-z0-9_]{1,64}$/;
const toolName = z.string().regex(TOOL_NAME, "tool names are 1-64 lower-case letters, digits or _ (e.g. trello_create_card)");
const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a field name: letters, digits, _ (1-64, starting with a letter)");

export const ToolHintsSchema = z
  .object({
    /** Only reads (default: GET/HEAD). */
    readOnly: z.boolean().optional(),
    /** May delete or overwrite data irreversibly (default: DELETE). */
    destructive: z.boolean().optional(),
    /** Repeating it with the same input has no further effect (default: the operation's idempotence). */
    idempotent: z.boolean().optional(),
    /** Talks to an outside system whose data can change (default: true). */
    openWorld: z.boolean().optional(),
  })
  .strict();

/** A model-facing field of a step that maps onto a field of the operation's flattened input. */
export const ToolFieldSchema = z
  .object({
    /** The operation field it fills (default: the field of the same name). */
    from: fieldName.optional(),
    /** Replaces the description taken from the spec. */
    description: z.string().min(1).optional(),
    /** The model must give it, although the operation has it optional. */
    required: z.boolean().optional(),
    /**
     * Accepted for compatibility with an older input shape and not sent (`from` is then unused).
     * `schema` is its JSON Schema (default: a string).
     */
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
export const CheckSchema = z
  .object({
    /** The read step to run (a step of the same service). */
    step: toolName,
    /** Its input: field → a path into the write's input, or `{ value }` for a constant. */
    input: z.record(fieldName, z.union([inputPath, z.object({ value: z.union([checkScalar, z.array(checkScalar)]) }).strict()])).default({}),
    /** A record in its result is the write's when each of these record fields equals (or is one of) the write's value at the path. */
    match: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, "a record field (dotted for nested fields)"), inputPath),
  })
  .strict();

const StepShape = {
  title: z.string().min(1).optional(),
  /** What the step does and when to use it, written for a model (the operation's text follows). */
  description: z.string().min(1).optional(),
  /** Values the step always sends, by flattened field name; hidden from the model. */
  fixed: z.record(fieldName, z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  /** Flattened fields hidden from the model (optional ones only). */
  omit: z.array(fieldName).optional(),
  /**
   * Model-facing fields that differ from the operation's: renamed (`from`), re-described, made
   * required, or legacy-only (`ignored`). Fields not listed keep the operation's name and text.
   */
  fields: z.record(fieldName, ToolFieldSchema).optional(),
  /** Only the listed (model-facing) fields are offered; the rest are hidden. */
  only: z.array(fieldName).optional(),
  hints: ToolHintsSchema.optional(),
  /**
   * For a write that is not idempotent: the read step that shows whether it was applied, used when
   * its answer was lost after sending (timeout, dropped connection). The agent is told to run it
   * before calling the write again, so a lost answer never turns into a duplicate.
   */
  check: CheckSchema.optional(),
  /** An older step kept for agents built against it; newer agents should use `replacedBy`. */
  deprecated: z.boolean().optional(),
  replacedBy: toolName.optional(),
};

/** `x-stepforge-tool` on an operation. */
export const OperationToolSchema = z
  .object({
    /** Step name (default `<service>_<snake_case(operationId)>`); must start with the service id. */
    name: toolName.optional(),
    /** No step for this operation (say why in `reason`). */
    skip: z.boolean().optional(),
    /** Why the operation is skipped: required with `skip: true`, refused without it. */
    reason: z.string().min(1).optional(),
    ...StepShape,
  })
  .strict()
  .refine((t) => t.skip !== true || t.reason !== undefined, { message: "say why the operation has no step: add `reason`", path: ["reason"] })
  .refine((t) => t.reason === undefined || t.skip === true, { message: "`reason` explains a skipped operation; add `skip: true` or remove `reason`", path: ["reason"] });

/** A step of `x-stepforge.tools.steps`: built on one operation of the spec. */
export const CompositeToolSchema = z
  .object({
    name: toolName,
    operation: z.string().min(1),
    ...StepShape,
  })
  .strict();

export const API_CALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The generic API Call step: any endpoint under the connection's base address. */
export const ApiCallToolSchema = z
  .object({
    /** Default `<service>_api_call`. */
    name: toolName.optional(),
    title: z.string().min(1),
    description: z.string().min(1),
    methods: z.array(z.enum(API_CALL_METHODS)).min(1),
    /** Name of the query-parameter field (`query_parameters`, or `params` for the news service); absent: none. */
    queryField: fieldName.optional(),
    /** Name of the request-body field; absent: the step sends no body. */
    bodyField: fieldName.optional(),
    /** Example endpoints for the description, e.g. `/1/members/me/boards`. */
    examples: z.array(z.string().startsWith("/")).default([]),
  })
  .strict();

/**
 * A named group of a service's steps (`cards`, `boards`, `news`), so an agent can be offered ten
 * steps instead of eighty (`stepforge mcp --toolsets cards,boards`, `cards:read` for its read-only
 * steps). A step may be in several toolsets.
 */
export const ToolsetSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, "a toolset name: lower-case letters, digits and _ (e.g. cards)"),
    /** One sentence for a model and a user choosing toolsets. */
    description: z.string().min(1),
    /** Step names (as generated or named in x-stepforge-tool). */
    steps: z.array(toolName).min(1),
  })
  .strict();

/** `x-stepforge.tools` at the root. */
export const ServiceToolsSchema = z
  .object({
    apiCall: ApiCallToolSchema.optional(),
    steps: z.array(CompositeToolSchema).default([]),
    toolsets: z.array(ToolsetSchema).default([]),
  })
  .strict();

export type ToolHints = z.infer<typeof ToolHintsSchema>;
export type ToolField = z.infer<typeof ToolFieldSchema>;
export type OperationTool = z.infer<typeof OperationToolSchema>;
export type CompositeTool = z.infer<typeof CompositeToolSchema>;
export type ApiCallTool = z.infer<typeof ApiCallToolSchema>;
export type ServiceTools = z.infer<typeof ServiceToolsSchema>;
export type Toolset = z.infer<typeof ToolsetSchema>;
export type ToolCheck = z.infer<typeof CheckSchema>;
export type ApiCallMethod = (typeof API_CALL_METHODS)[number];
