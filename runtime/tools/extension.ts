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
 * test/types/extension-types.ts proves each identical to its schema's `z.infer`. Fields are documented
 * on the types.
 */
import * as z from "zod";

export * from "./extension-types.js";
import { API_CALL_METHODS, TOOL_NAME } from "./extension-types.js";

const toolName = z
  .string()
  .regex(TOOL_NAME, "tool names are 1-64 lower-case letters, digits or _ (e.g. trello_create_card)");
const fieldName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a field name: letters, digits, _ (1-64, starting with a letter)");

/** Validates {@link ToolHints}. */
export const ToolHintsSchema = z
  .object({
    readOnly: z.boolean().optional(),
    destructive: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    openWorld: z.boolean().optional(),
  })
  .strict();

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
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\[\])?(\.([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(\[\])?)*$/,
    "a path into the step's input: field names and list indexes joined by '.', '[]' to " +
      "take every item (e.g. input[].email)",
  );

const checkScalar = z.union([z.string(), z.number(), z.boolean()]);

/** Validates {@link ToolCheck}. */
export const CheckSchema = z
  .object({
    step: toolName,
    input: z
      .record(
        fieldName,
        z.union([inputPath, z.object({ value: z.union([checkScalar, z.array(checkScalar)]) }).strict()]),
      )
      .default({}),
    match: z.record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, "a record field (dotted for nested fields)"),
      inputPath,
    ),
  })
  .strict();

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

/** Validates {@link OperationTool}. */
export const OperationToolSchema = z
  .object({
    name: toolName.optional(),
    skip: z.boolean().optional(),
    reason: z.string().min(1).optional(),
    ...StepShape,
  })
  .strict()
  .refine((t) => t.skip !== true || t.reason !== undefined, {
    message: "say why the operation has no step: add `reason`",
    path: ["reason"],
  })
  .refine((t) => t.reason === undefined || t.skip === true, {
    message: "`reason` explains a skipped operation; add `skip: true` or remove `reason`",
    path: ["reason"],
  });

/** Validates {@link CompositeTool}. */
export const CompositeToolSchema = z
  .object({
    name: toolName,
    operation: z.string().min(1),
    ...StepShape,
  })
  .strict();

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

/** Validates {@link Toolset}. */
export const ToolsetSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, "a toolset name: lower-case letters, digits and _ (e.g. cards)"),
    description: z.string().min(1),
    steps: z.array(toolName).min(1),
  })
  .strict();

/** Validates {@link ServiceTools}. */
export const ServiceToolsSchema = z
  .object({
    apiCall: ApiCallToolSchema.optional(),
    steps: z.array(CompositeToolSchema).default([]),
    toolsets: z.array(ToolsetSchema).default([]),
  })
  .strict();
