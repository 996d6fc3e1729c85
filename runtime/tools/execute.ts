/**
 * Executing a tool step: validate the model's input, (for the API Call step) guard the endpoint,
 * call the service through the runtime client of the caller's connection, and hand back a result
 * object. Nothing here throws at the agent.
 */
import type { HttpMethod } from "../descriptor.js";
import { checkEndpoint } from "./endpoint.js";
import { fieldErrors, invalidInput, toolErrorFrom } from "./errors.js";
import { credentialQueryNames } from "../credentials/auth.js";
import { rawCall } from "./raw.js";
import { MAX_FILE_BYTES, nullRemovesField } from "./bodies.js";
import { callClient } from "./context.js";
import { getPath, protoKeyPaths, setOwn } from "../internal/values.js";
import { inputLimitProblem } from "./input-limits.js";
import { observeToolCall } from "../observe/tool-calls.js";
import type { ServiceClient } from "../client/client.js";
import type {
  ApiCallToolDefinition,
  InputLimits,
  OperationToolDefinition,
  StepSchemaError,
  ToolContext,
  ToolDefinition,
  ToolFieldError,
  ToolResult,
} from "./types.js";

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Strict-mode models (OpenAI `strict: true`) send `null` for every optional field they leave out.
 * Null therefore means "not given": it is dropped from objects before validation. A field that
 * must be null is still accepted, because validation falls back to the input as sent. In a JSON
 * merge patch null removes a field, and is kept (`nullRemovesField`).
 *
 * Keys are copied as own properties: a `"__proto__"` key (JSON.parse makes it an own key) stays a
 * key that validation refuses, instead of becoming the copy's prototype whose fields would then
 * look given. The copies have no prototype either: zod reads `input[key]`, so on a plain object an
 * optional field named `constructor` or `toString` that the model left out would be "given" as
 * Object.prototype's function and refused.
 */
export function dropNulls(value: unknown): unknown {
  return ownCopy(value, true);
}

function ownCopy(value: unknown, dropNull: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => ownCopy(item, dropNull));
  if (!isPlainObject(value)) return value;
  const out = Object.create(null) as Json;
  for (const [key, child] of Object.entries(value)) {
    if (child !== null || !dropNull) setOwn(out, key, ownCopy(child, dropNull));
  }
  return out;
}

export function validateInput(
  tool: ToolDefinition,
  input: unknown,
  limits?: InputLimits,
): { ok: true; value: Json } | { ok: false; fields: ToolFieldError[] } {
  const known = Object.keys(tool.input.shape);
  if (input === undefined || input === null) input = {};
  if (!isPlainObject(input))
    return {
      ok: false,
      fields: [{ path: "", message: `the input must be a JSON object with the fields ${known.join(", ")}` }],
    };
  // First, in one linear pass: nothing below (validation, null dropping) meets an unbounded value.
  const tooBig = inputLimitProblem(input, limits);
  if (tooBig) return { ok: false, fields: [tooBig] };
  // Below the top level (the schema refuses unknown top-level keys): free-form maps such as an API
  // Call body would otherwise drop the key without a word.
  const proto: ToolFieldError[] = protoKeyPaths(input)
    .filter((path) => path.length > 1)
    .map((path) => ({ path: path.join("."), message: `"__proto__" is not allowed as a key; remove it` }));
  // In a JSON merge patch null removes the field: there a null the schema takes is the model's word.
  const stripped = nullRemovesField(tool) ? undefined : tool.input.safeParse(dropNulls(input));
  if (stripped?.success && proto.length === 0) return { ok: true, value: stripped.data as Json };
  const asSent = stripped?.success ? stripped : tool.input.safeParse(ownCopy(input, false));
  if (asSent.success && proto.length === 0) return { ok: true, value: asSent.data as Json };
  // Both failed: null means "not given" only where the schema refuses it. Drop exactly the nulls the
  // input as sent was refused for, keep those a nullable field takes (`owner: null` beside an
  // optional `vet: null` is valid, and dropping every null made `owner` look missing).
  const mixed = asSent.success ? undefined : withoutRefusedNulls(input, asSent.error);
  if (mixed) {
    const checked = tool.input.safeParse(mixed);
    if (checked.success && proto.length === 0) return { ok: true, value: checked.data as Json };
    if (!checked.success) return { ok: false, fields: withProto(fieldErrors(checked.error, known, mixed), proto) };
  }
  if (stripped === undefined)
    return { ok: false, fields: withProto(asSent.success ? [] : fieldErrors(asSent.error, known, input), proto) };
  let fields = stripped.success ? [] : fieldErrors(stripped.error, known, dropNulls(input));
  if (!stripped.success && !asSent.success) {
    // A field both forms fail on is the one to fix: a null the schema accepts (dropped above) is not
    // reported as missing when another field is what is wrong.
    const failedAsSent = new Set(fieldErrors(asSent.error, known, input).map((f) => f.path));
    const both = fields.filter((f) => failedAsSent.has(f.path));
    if (both.length > 0) fields = both;
  }
  return { ok: false, fields: withProto(fields, proto) };
}

/** Field errors, then the `__proto__` keys not already named among them. */
function withProto(fields: ToolFieldError[], proto: ToolFieldError[]): ToolFieldError[] {
  return [...fields, ...proto.filter((p) => !fields.some((f) => f.path === p.path))];
}

/**
 * A copy of `input` without the nulls validation refused as sent (wrong-type issues whose value is
 * null), or undefined when it refused none.
 */
function withoutRefusedNulls(input: Json, error: StepSchemaError): Json | undefined {
  const refused = error.issues
    .filter((issue) => issue.code === "invalid_type" && getPath(input, issue.path) === null)
    .map((issue) => issue.path);
  if (refused.length === 0) return undefined;
  const copy = ownCopy(input, false) as Json;
  for (const path of refused) {
    const parent = getPath(copy, path.slice(0, -1));
    if (isPlainObject(parent)) delete parent[String(path[path.length - 1])];
  }
  return copy;
}

/** The success body as an object: lists become `{ items }`, scalars `{ value }`, nothing `{}`. */
export function wrapOutput(data: unknown, wrap: "none" | "items" | "value"): Json {
  if (data === undefined || data === "") return {};
  if (wrap === "items" || Array.isArray(data)) return { items: data };
  if (wrap === "value" || !isPlainObject(data)) return { value: data };
  return data;
}

/**
 * A binary answer (the client gives a Blob: an image, a PDF, bytes) as a step result a model can
 * read: its media type, its size and its bytes in base64, at most MAX_FILE_BYTES of them (a cut one
 * says `truncated`). As JSON a Blob would be `{}`.
 */
export async function binaryOutput(blob: Blob): Promise<Json> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const kept = bytes.subarray(0, MAX_FILE_BYTES);
  return {
    contentType: blob.type || "application/octet-stream",
    bytes: bytes.length,
    base64: Buffer.from(kept).toString("base64"),
    ...(kept.length < bytes.length ? { truncated: true } : {}),
  };
}

const stepOutput = (data: unknown, wrap: "none" | "items" | "value") =>
  data instanceof Blob ? binaryOutput(data) : wrapOutput(data, wrap);

async function runOperation(tool: OperationToolDefinition, input: Json, context: ToolContext): Promise<unknown> {
  return stepOutput(await tool.handler(callClient(context, tool.descriptor), input), tool.outputWrap);
}

async function runApiCall(tool: ApiCallToolDefinition, input: Json, context: ToolContext): Promise<ToolResult> {
  const { config, descriptor } = tool;
  const fail = (fields: ToolFieldError[]): ToolResult => ({
    ok: false,
    error: invalidInput(fields, tool.name, tool.service),
  });
  let client: ServiceClient;
  try {
    client = callClient(context, descriptor);
  } catch (error) {
    return { ok: false, error: toolErrorFrom(error, tool.name, tool.service) };
  }
  const checked = checkEndpoint(input.endpoint, client.baseUrl);
  if (!checked.ok) {
    return fail([
      {
        path: "endpoint",
        message:
          `refused: ${checked.reason}. Give a path under the service's base address, ` +
          `e.g. ${config.examples[0] ?? "/"}`,
      },
    ]);
  }
  const method = input.method as HttpMethod;
  const query = config.queryField ? (input[config.queryField] as Json | undefined) : undefined;
  const body = config.bodyField ? input[config.bodyField] : undefined;
  const problems: ToolFieldError[] = [];
  if (query) {
    const reserved = new Set(credentialQueryNames(descriptor).map((n) => n.toLowerCase()));
    for (const key of Object.keys(query)) {
      if (reserved.has(key.toLowerCase()))
        problems.push({
          path: `${config.queryField}.${key}`,
          message: `"${key}" carries the connection's credentials and is added automatically; remove it`,
        });
      // eslint-disable-next-line no-control-regex
      if (key.length === 0 || /[\u0000-\u001f\u007f]/.test(key))
        problems.push({
          path: `${config.queryField}.${key}`,
          message: "query parameter names must be non-empty printable text",
        });
    }
  }
  if (body !== undefined && (method === "GET" || (method as string) === "HEAD")) {
    problems.push({
      path: config.bodyField!,
      message:
        `a ${method} request cannot have a body; use POST/PUT or move the values to ` +
        `${config.queryField ?? "the endpoint"}`,
    });
  }
  if (problems.length) return fail(problems);
  try {
    const data = await rawCall(client, { method, path: checked.path, query, body });
    return { ok: true, data: await stepOutput(data, "none") };
  } catch (error) {
    return {
      ok: false,
      error: toolErrorFrom(
        error,
        tool.name,
        tool.service,
        [config.queryField ?? "", config.bodyField ?? "", "endpoint"].filter(Boolean),
        { definition: tool, input },
      ),
    };
  }
}

/**
 * Runs one step with the caller's context; always resolves to a result object (and records it in the call log, if any).
 */
export function executeTool(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<ToolResult> {
  return observeToolCall(tool, input, context, (observed) => runTool(tool, input, observed));
}

async function runTool(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<ToolResult> {
  try {
    const parsed = validateInput(tool, input, context.inputLimits);
    if (!parsed.ok) return { ok: false, error: invalidInput(parsed.fields, tool.name, tool.service) };
    if (tool.kind === "api_call") return await runApiCall(tool, parsed.value, context);
    try {
      return { ok: true, data: await runOperation(tool, parsed.value, context) };
    } catch (error) {
      return {
        ok: false,
        error: toolErrorFrom(error, tool.name, tool.service, Object.keys(tool.input.shape), {
          definition: tool,
          input: parsed.value,
        }),
      };
    }
  } catch (error) {
    return { ok: false, error: toolErrorFrom(error, tool.name, tool.service) };
  }
}

/** Finds a step by name in a catalogue and runs it; an unknown name is a result, not a throw. */
export async function executeToolByName(
  tools: readonly ToolDefinition[],
  name: string,
  input: unknown,
  context: ToolContext | ((tool: ToolDefinition) => ToolContext),
): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const close = tools
      .filter((t) => t.name.split("_")[0] === name.split("_")[0])
      .map((t) => t.name)
      .slice(0, 20);
    return {
      ok: false,
      error: {
        kind: "unknown_tool",
        message:
          `There is no step named "${name}".` + `${close.length ? ` Steps of this service: ${close.join(", ")}.` : ""}`,
        retryable: false,
        fields: [],
      },
    };
  }
  return executeTool(tool, input, typeof context === "function" ? context(tool) : context);
}
