/**
 * Building tool definitions. Generated `tools.ts` files call `defineWiredTool` with the step's
 * schemas and its wire mapping (data the check stage worked out from the spec), and
 * `defineApiCallTool` with the API Call step the spec declares under `x-stepforge.tools.apiCall`.
 * A hand-written step calls `defineOperationTool` with a handler function.
 */
import * as z from "zod";
import type { ServiceDescriptor } from "../descriptor.js";
import type { ApiCallTool, ToolCheck } from "./extension-types.js";
import type { Schema } from "./schema.js";
import { TOOL_NAME } from "./extension-types.js";
import type {
  ApiCallToolDefinition,
  OperationToolDefinition,
  StepObjectSchema,
  StepSchema,
  ToolAnnotations,
} from "./types.js";
import { credentialQueryNames } from "../credentials/auth.js";
import { getPath, setOwn } from "../internal/values.js";
import { type BodyEncoding, decodeBase64, multipartBody } from "./bodies.js";

/**
 * The builders of runtime/tools/schema.ts return zod schemas typed narrowly, and a hand-written step
 * may pass its own zod schema: every step schema is zod at run time (the exports turn it into JSON
 * Schema with zod). Anything else is refused here, where its author can still fix it.
 */
function zodSchema(schema: unknown, step: string, field: string, object: boolean): StepSchema {
  if (!(schema instanceof z.ZodType) || (object && !(schema instanceof z.ZodObject))) {
    const what = object ? "an object schema" : "a schema";
    throw new TypeError(
      `tool "${step}": ${field} must be ${what} made with \`s\` (stepforge/runtime/tools) or zod 4, ` +
        `not ${schema === null ? "null" : typeof schema}`,
    );
  }
  return schema as unknown as StepSchema;
}

function checkName(name: string, service: string): void {
  if (!TOOL_NAME.test(name) || !name.startsWith(`${service}_`)) {
    throw new Error(`tool name "${name}" must match ${TOOL_NAME} and start with "${service}_"`);
  }
}

/**
 * A step's input as its handler sees it. Generated steps do not ask the compiler to infer it from
 * the zod schema (`z.infer` over every step's schema was most of the type-check cost of tools.ts);
 * the schema validates at run time and the handler only forwards fields to the untyped `call`.
 * A hand-written step may name its input type: `defineOperationTool<MyInput>({ … })`.
 */
export type ToolInput = Readonly<Record<string, unknown>>;

/** Where a wire value of a generated step comes from: the name of an input field, or `{ fixed: value }`. */
export type WireValue = string | { fixed: string | number | boolean | null };

/**
 * How a generated step's input becomes its call: per place, wire name → value. `body` given: the
 * body is an object of those fields (sent even when empty); `bodyWhole`: the body is one value.
 * Data rather than a handler function per step: the mapping is the same few lines for every step,
 * and a consumer's compiler checks an object of strings far faster than 255 closures.
 */
export interface StepWire {
  path?: Record<string, WireValue>;
  query?: Record<string, WireValue>;
  header?: Record<string, WireValue>;
  body?: Record<string, WireValue>;
  bodyWhole?: WireValue;
  /**
   * A body that is not JSON or form fields (runtime/tools/bodies.ts): `multipart` sends `body` as
   * FormData (the wire names in `files` as file parts), `base64` decodes `bodyWhole` to bytes,
   * `text` sends it as it is.
   */
  encoding?: BodyEncoding;
  /** Multipart file parts by wire name, with the media type the spec gives the part. */
  files?: Record<string, { contentType?: string }>;
}

/**
 * What a hand-written step passes: its schemas (zod, or `Schema` from runtime/tools/schema.ts) and
 * a handler; `service` defaults to the descriptor's id.
 */
export type OperationToolSpec<I> = Omit<OperationToolDefinition<I>, "kind" | "input" | "output" | "service"> & {
  service?: string;
  input: Schema | StepObjectSchema;
  output: Schema | StepSchema;
};

export function defineOperationTool<I extends object = ToolInput>(
  definition: OperationToolSpec<I>,
): OperationToolDefinition<I> {
  const service = definition.service ?? definition.descriptor.id;
  checkName(definition.name, service);
  return {
    kind: "operation",
    ...definition,
    service,
    input: zodSchema(definition.input, definition.name, "input", true) as StepObjectSchema,
    output: zodSchema(definition.output, definition.name, "output", false),
  };
}

/**
 * What a generated step passes. A plain interface with `Schema`-typed schemas and no type
 * parameter, on purpose: a tools.ts calls this once per operation (255 times for Trello), and each
 * call of the generic `defineOperationTool` made the compiler instantiate its mapped spec type again.
 */
export interface WiredToolSpec {
  name: string;
  /** Default: the descriptor's id. */
  service?: string | undefined;
  operationId: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  descriptor: ServiceDescriptor;
  input: Schema;
  output: Schema;
  outputWrap: "none" | "items" | "value";
  wire: StepWire;
  deprecated?: boolean | undefined;
  replacedBy?: string | undefined;
  check?: ToolCheck | undefined;
}

/** A step whose call is its wire mapping: what generated tools.ts files declare for each operation. */
export function defineWiredTool(definition: WiredToolSpec): OperationToolDefinition<ToolInput> {
  const { wire, ...rest } = definition;
  return defineOperationTool<ToolInput>({ ...rest, handler: wireHandler(definition.operationId, wire) });
}

/** The handler a wire mapping describes: each place an object of wire name → value, as `client.call` takes it. */
function wireHandler(operationId: string, wire: StepWire): OperationToolDefinition<ToolInput>["handler"] {
  return (client, input) => {
    const init: Record<string, unknown> = {};
    const params: Record<string, unknown> = {};
    if (wire.path) params.path = wireObject(wire.path, input);
    if (wire.query) params.query = wireObject(wire.query, input);
    if (wire.header) params.header = wireObject(wire.header, input);
    if (wire.path || wire.query || wire.header) init.params = params;
    if (wire.bodyWhole !== undefined) {
      const value = wireValue(wire.bodyWhole, input);
      init.body = wire.encoding === "base64" && typeof value === "string" ? decodeBase64(value) : value;
    } else if (wire.body) {
      const fields = wireObject(wire.body, input);
      init.body = wire.encoding === "multipart" ? multipartBody(fields, wire.files ?? {}) : fields;
    }
    return client.call(operationId, init);
  };
}

function wireObject(entries: Record<string, WireValue>, input: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entries)) setOwn(out, name, wireValue(value, input));
  return out;
}

/** A fixed value, or the input field's own value (a field named "constructor" never reads the prototype). */
function wireValue(value: WireValue, input: object): unknown {
  return typeof value === "string" ? getPath(input, [value]) : value.fixed;
}

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** "POST, PUT and DELETE": only the methods this service's API Call step accepts. */
function inProse(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Input schema of an API Call step, from the spec's declaration. */
export function apiCallInput(descriptor: ServiceDescriptor, config: ApiCallTool): StepObjectSchema {
  const example = config.examples[0] ?? "/";
  const credentialNames = credentialQueryNames(descriptor);
  const shape: Record<string, z.ZodType> = {
    method: z.enum(config.methods as [string, ...string[]]).describe(`HTTP method: ${config.methods.join(", ")}.`),
    endpoint: z
      .string()
      .min(1)
      .max(2048)
      .describe(
        `Path of the ${descriptor.title} endpoint under the connection's base address, ` +
          `starting with "/", e.g. ${config.examples.map((e) => `"${e}"`).join(", ") || `"${example}"`}. ` +
          `Not a full URL, no "..", no query string` +
          `${config.queryField ? ` (put query parameters in "${config.queryField}")` : ""}.`,
      ),
  };
  if (config.queryField) {
    shape[config.queryField] = z
      .record(z.string(), z.union([scalar, z.array(scalar)]))
      .optional()
      .describe(
        `Query parameters as an object of name → value (a list repeats the parameter), e.g. {"fields": "name,url"}.` +
          (credentialNames.length
            ? ` Credentials (${credentialNames.join(", ")}) are added by the connection; do not send them.`
            : ""),
      );
  }
  if (config.bodyField) {
    shape[config.bodyField] = z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        `JSON request body as an object (for ${inProse(config.methods.filter((m) => m !== "GET"))} ` +
          `when the endpoint takes one). Not allowed with GET.`,
      );
  }
  return z.strictObject(shape);
}

export const apiCallOutput: StepSchema = z
  .looseObject({})
  .describe(
    "The service's JSON answer: an object as returned, a list as { items: [...] }, anything else as { value }.",
  );

export function defineApiCallTool(descriptor: ServiceDescriptor, config: ApiCallTool): ApiCallToolDefinition {
  const name = config.name ?? `${descriptor.id}_api_call`;
  checkName(name, descriptor.id);
  const annotations: ToolAnnotations = {
    readOnlyHint: false,
    destructiveHint: config.methods.includes("DELETE") || config.methods.includes("PUT"),
    idempotentHint: false,
    openWorldHint: true,
  };
  return {
    kind: "api_call",
    name,
    service: descriptor.id,
    title: config.title,
    description: config.description,
    annotations,
    descriptor,
    input: apiCallInput(descriptor, config),
    output: apiCallOutput,
    config,
  };
}
