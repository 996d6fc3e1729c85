/**
 * Agent tool steps: one per operation (named `<service>_<snake_case(id)>` unless `x-stepforge-tool`
 * says otherwise), the steps of `x-stepforge.tools.steps`, and the API Call step — each worked out
 * here, in the check stage, down to its model-facing fields and its wire mapping, so `lint` and
 * `generate` report the same SF301 problems and the emitter only prints.
 *
 * The input is one flat object: path, query and header parameters and body properties side by side
 * (kebab or bracketed wire names become snake_case; a name taken twice gets a `query_`/`header_`/
 * `body_` prefix). A body with no JSON media type and cookie parameters are left out (SF172, SF173).
 * A spec without toolsets gets one per tag (check/toolsets.ts).
 */
import type { CompositeTool, OperationTool, ServiceTools, ToolField } from "../../runtime/tools/extension.js";
import { TOOL_NAME } from "../../runtime/tools/extension-types.js";
import {
  BASE64_BODY,
  FILE_PART,
  type SurfaceOperation,
  type ToolFieldModel,
  type ToolStepModel,
  type WireSource,
} from "../model.js";
import { flattenAllOf, hasFlag, kindOf, sentence } from "../schema.js";
import { asObject, isObject, type Json } from "../refs.js";
import type { CheckContext, Path } from "./context.js";
import { defaultToolsets } from "./toolsets.js";
import { snakeCase } from "../names.js";

/** Comparison operators in wire names (`StartTime<`, `price>=`): words, so `StartTime<` and `StartTime>` stay apart. */
const OPERATOR_WORDS: Array<[RegExp, string]> = [
  [/<=/g, "_lte_"],
  [/>=/g, "_gte_"],
  [/!=/g, "_ne_"],
  [/</g, "_lt_"],
  [/>/g, "_gt_"],
];

/** Longest field name: Anthropic's tool input keys are at most 64 characters (`^[a-zA-Z0-9_.-]{1,64}$`). */
const MAX_FIELD = 64;

/**
 * A wire name as an input field name: `source-countries` → `source_countries`, `q_by[]` → `q_by`,
 * `StartTime<` → `StartTime_lt`, `2fa` → `f_2fa`. Letters, digits and `_` only, at most 64
 * characters (a digest keeps cut names apart); the wire mapping keeps the real name.
 */
export function fieldNameOf(wire: string): string {
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(wire) && wire.length <= MAX_FIELD) return wire;
  let name = wire;
  for (const [operator, word] of OPERATOR_WORDS) name = name.replace(operator, word);
  name = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!/^[A-Za-z]/.test(name)) name = name ? `f_${name}` : "field";
  return name.length <= MAX_FIELD ? name : `${name.slice(0, MAX_FIELD - 7).replace(/_+$/, "")}_${digest(wire)}`;
}

/** Six base-36 characters of a string's hash: tells apart names cut to one length. */
function digest(text: string): string {
  let hash = 0;
  for (const c of text) hash = (hash * 31 + c.codePointAt(0)!) >>> 0;
  return hash.toString(36).padStart(6, "0").slice(0, 6);
}

/**
 * The input field names of one step, unique case-insensitively (a model reading `id` and `ID` side
 * by side cannot tell which is which). The first field keeps its name; a later one is prefixed
 * with its place (`query_id`), then numbered (`query_id_2`). Deterministic: spec order decides.
 */
class FieldNames {
  private readonly taken = new Set<string>();

  claim(wanted: string, place: string): string {
    const candidates = [wanted, fieldNameOf(`${place}_${wanted}`)];
    let name = candidates.find((c) => !this.taken.has(c.toLowerCase()));
    for (let i = 2; name === undefined; i++) {
      const numbered = fieldNameOf(`${candidates[1]}_${i}`);
      if (!this.taken.has(numbered.toLowerCase())) name = numbered;
    }
    this.taken.add(name.toLowerCase());
    return name;
  }
}

/**
 * `<service>_<snake_case(operationId)>`, cut to 64 characters (with a short digest so cut names
 * stay distinct) and numbered when a name is already taken. Names written in the spec are never
 * changed; only derived ones.
 */
export function derivedName(service: string, operationId: string, taken: (name: string) => boolean): string {
  let name = `${service}_${snakeCase(operationId) || "operation"}`;
  if (name.length > 64) {
    let hash = 0;
    for (const c of operationId) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    name = `${name.slice(0, 57).replace(/_+$/, "")}_${hash.toString(36).slice(0, 6)}`;
  }
  let candidate = name;
  for (let i = 2; taken(candidate); i++) candidate = `${name.slice(0, 64 - String(i).length - 1)}_${i}`;
  return candidate;
}

/**
 * Header parameters OpenAPI says to ignore: the connection's auth sends Authorization, the body
 * its Content-Type, and the client asks for what it accepts.
 */
const IGNORED_HEADERS = ["accept", "content-type", "authorization"];

/** Headers a step never asks the model for: the ignored ones and the API keys the connection sends. */
function unaskedHeaders(context: CheckContext): Set<string> {
  const schemes = Object.values(asObject(asObject(context.doc.components)?.securitySchemes) ?? {}).map((s) =>
    context.refs.deref(s),
  );
  const keys = schemes
    .filter((s) => s.type === "apiKey" && s.in === "header" && typeof s.name === "string")
    .map((s) => String(s.name).toLowerCase());
  return new Set([...IGNORED_HEADERS, ...keys]);
}

/** One field of the operation's flattened input, before a step hides, fixes or renames it. */
interface FlatField {
  name: string;
  in: "path" | "query" | "header" | "body" | "bodyWhole";
  wire: string;
  required: boolean;
  schema: unknown;
  description: string;
}

function flatFields(context: CheckContext, op: SurfaceOperation): FlatField[] {
  const fields: FlatField[] = [];
  const names = new FieldNames();
  const add = (field: FlatField, place: string) => fields.push({ ...field, name: names.claim(field.name, place) });
  // Cookie parameters are not sent (SF173, reported with the operation).
  const unasked = unaskedHeaders(context);
  for (const where of ["path", "query", "header"] as const) {
    for (const p of op.parameters.filter(
      (x) => x.in === where && !(where === "header" && unasked.has(x.name.toLowerCase())),
    )) {
      const own = context.refs.deref(p.schema);
      const text = p.description || (typeof own.description === "string" ? own.description : "");
      const description =
        p.example !== undefined
          ? `${sentence(text)} Example: ${typeof p.example === "string" ? p.example : JSON.stringify(p.example)}.`
          : text;
      // Arrays stay arrays: the runtime serialises `explode: false` ones from the descriptor.
      add(
        { name: fieldNameOf(p.name), in: where, wire: p.name, required: p.required, schema: p.schema, description },
        where,
      );
    }
  }
  const body = op.body;
  const raw = body?.mediaType === undefined ? body?.raw : undefined;
  const bodyFields = (schema: unknown, value: (key: string, schema: unknown) => unknown): boolean => {
    const merged = flattenAllOf(context.refs, context.refs.deref(schema));
    const props = isObject(merged.properties) ? merged.properties : undefined;
    if (kindOf(context.refs, schema) !== "object" || !props || Object.keys(props).length === 0) return false;
    const required = new Set(Array.isArray(merged.required) ? merged.required.map(String) : []);
    for (const [key, property] of Object.entries(props)) {
      if (hasFlag(context.refs, property, "readOnly")) continue;
      add(
        {
          name: fieldNameOf(key),
          in: "body",
          wire: key,
          required: body!.required && required.has(key),
          schema: value(key, property),
          description: "",
        },
        "body",
      );
    }
    return true;
  };
  const whole = (schema: unknown, description: string) =>
    add({ name: "body", in: "bodyWhole", wire: "", required: body!.required, schema, description }, "body");
  if (body?.mediaType) {
    if (!bodyFields(body.schema, (_key, schema) => schema)) whole(body.schema, body.description || "The request body.");
  } else if (raw?.kind === "form") {
    bodyFields(raw.schema, (_key, schema) => schema);
  } else if (raw?.kind === "multipart") {
    bodyFields(raw.schema, (key, schema) => filePartOf(context, schema, raw.partTypes[key]) ?? schema);
  } else if (raw?.kind === "bytes") {
    whole(
      BASE64_BODY,
      `${body!.description ? `${sentence(body!.description)} ` : ""}The request body (${raw.mediaType}) as base64.`,
    );
  } else if (raw?.kind === "text") {
    const own = context.refs.deref(raw.schema);
    whole(
      own.type === "string" ? raw.schema : { type: "string" },
      `${body!.description ? `${sentence(body!.description)} ` : ""}The request body as ${raw.mediaType} text.`,
    );
  }
  return fields;
}

/**
 * A multipart property that is a file (`format: binary`, a 3.1 `contentMediaType` without a
 * `contentEncoding`, or a part whose `encoding` names a media type that is not text), as the file
 * part schema; a list of files as a list of them. Undefined for any other property.
 */
function filePartOf(context: CheckContext, schema: unknown, partType: string | undefined): unknown {
  const s = context.refs.deref(schema);
  const isFile = (node: Json) =>
    node.format === "binary" ||
    (typeof node.contentMediaType === "string" && node.contentEncoding === undefined) ||
    (partType !== undefined &&
      !/^text\/|json/i.test(partType) &&
      (node.type === "string" || node.type === undefined) &&
      node.properties === undefined);
  const description = typeof s.description === "string" ? { description: s.description } : {};
  if (s.type === "array" && isObject(s.items) && isFile(context.refs.deref(s.items)))
    return { type: "array", items: FILE_PART, ...description };
  return isFile(s) ? { ...FILE_PART, ...description } : undefined;
}

export interface ToolSteps {
  steps: ToolStepModel[];
  apiCall?: { name: string; config: NonNullable<ServiceTools["apiCall"]> } | undefined;
  toolsets: ServiceTools["toolsets"];
  toolsetsFromTags: boolean;
}

export function checkToolSteps(
  context: CheckContext,
  id: string,
  operations: SurfaceOperation[],
  tools: ServiceTools | undefined,
  overrides: Map<string, OperationTool>,
): ToolSteps {
  const report = (path: Path, message: string) => context.report("SF301", path, message);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const apiCallName = tools?.apiCall ? (tools.apiCall.name ?? `${id}_api_call`) : undefined;
  const declared = new Set([
    ...[...overrides.values()].flatMap((t) => (t.name ? [t.name] : [])),
    ...(tools?.steps ?? []).map((s) => s.name),
    ...(apiCallName ? [apiCallName] : []),
  ]);
  const derived = new Set<string>();
  const steps: Array<ToolStepModel & { at: Path; named?: boolean }> = [];
  for (const op of operations) {
    const tool = overrides.get(op.operationId) ?? {};
    if (tool.skip) continue;
    const name = tool.name ?? derivedName(id, op.operationId, (n) => declared.has(n) || derived.has(n));
    if (!tool.name) derived.add(name);
    const step = stepOf(context, report, name, op, tool, [
      "paths",
      op.path,
      op.method.toLowerCase(),
      "x-stepforge-tool",
    ]);
    if (step) steps.push({ ...step, named: tool.name !== undefined });
  }
  tools?.steps.forEach((composite, i) => {
    const op = byId.get(composite.operation);
    const at: Path = ["x-stepforge", "tools", "steps", i];
    if (!op)
      return report(
        [...at, "operation"],
        `step "${composite.name}" is built on operation "${composite.operation}", which the spec does not have`,
      );
    const step = stepOf(context, report, composite.name, op, composite, at);
    if (step) steps.push({ ...step, named: true });
  });
  const seen = new Set<string>();
  // Where each name is written: the step's own `name`, else the service id it is derived from.
  const idAt: Path = context.doc["x-stepforge"] !== undefined ? ["x-stepforge", "id"] : ["info", "title"];
  const named = [
    ...steps.map((s) => ({ name: s.name, at: s.named ? [...s.at, "name"] : idAt })),
    ...(apiCallName ? [{ name: apiCallName, at: ["x-stepforge", "tools", "apiCall"] }] : []),
  ];
  for (const { name, at } of named) {
    if (!TOOL_NAME.test(name) || !name.startsWith(`${id}_`))
      report(at, `tool name "${name}" must match ${TOOL_NAME} and start with "${id}_"; name it in x-stepforge-tool`);
    if (seen.has(name))
      report(at, `tool name "${name}" is used twice; give one of them another name with x-stepforge-tool.name`);
    seen.add(name);
  }
  // A step's `check` and every toolset name steps of this service.
  const declaredSets = tools?.toolsets ?? [];
  declaredSets.forEach((set, i) =>
    set.steps.forEach(
      (name, j) =>
        seen.has(name) ||
        report(
          ["x-stepforge", "tools", "toolsets", i, "steps", j],
          `toolset "${set.name}" names step "${name}", which this spec does not have`,
        ),
    ),
  );
  // A spec that declares no toolsets gets one per tag (check/toolsets.ts), so --toolsets can trim.
  const toolsets = declaredSets.length > 0 ? declaredSets : defaultToolsets(context.doc, operations, steps);
  for (const step of steps) {
    if (step.check && !seen.has(step.check.step))
      report(
        [...step.at, "check", "step"],
        `step "${step.name}" is checked with "${step.check.step}", which this spec does not have`,
      );
  }
  return {
    steps: steps.map(({ at: _at, named: _named, ...step }) => step),
    toolsets,
    toolsetsFromTags: declaredSets.length === 0,
    ...(tools?.apiCall ? { apiCall: { name: apiCallName!, config: tools.apiCall } } : {}),
  };
}

function stepOf(
  context: CheckContext,
  report: (path: Path, message: string) => void,
  name: string,
  op: SurfaceOperation,
  overrides: OperationTool | CompositeTool,
  at: Path,
): (ToolStepModel & { at: Path }) | undefined {
  const before = context.diagnostics.length;
  const flat = flatFields(context, op);
  const byName = new Map(flat.map((f) => [f.name, f]));
  const fieldList = () => [...byName.keys()].join(", ");
  const fixed = overrides.fixed ?? {};
  const omit = overrides.omit ?? [];
  for (const key of Object.keys(fixed))
    if (!byName.has(key))
      report([...at, "fixed", key], `"${key}" is not a field of ${op.operationId} (fields: ${fieldList()})`);
  for (const key of omit) {
    const f = byName.get(key);
    if (!f) report([...at, "omit"], `"${key}" is not a field of ${op.operationId}`);
    else if (f.required)
      report(
        [...at, "omit"],
        `"${key}" is required by ${op.operationId}; give it a value under fixed instead of omitting it`,
      );
  }
  const declared: Record<string, ToolField> = overrides.fields ?? {};
  const renamedFrom = new Map<string, string>();
  for (const [facing, spec] of Object.entries(declared)) {
    if (spec.ignored) continue;
    const from = spec.from ?? facing;
    if (!byName.has(from))
      report(
        [...at, "fields", facing, "from"],
        `"${from}" is not a field of ${op.operationId} (fields: ${fieldList()})`,
      );
    else renamedFrom.set(from, facing);
  }
  // Model-facing fields: each source field once, under its (possibly new) name.
  const facing: Array<ToolFieldModel & { source?: FlatField }> = [];
  for (const f of flat) {
    // Own keys only: a body property named "constructor" is a field like any other.
    if (Object.hasOwn(fixed, f.name) || omit.includes(f.name)) continue;
    const facingName = renamedFrom.get(f.name) ?? f.name;
    const spec = Object.hasOwn(declared, facingName) ? declared[facingName] : undefined;
    facing.push({
      name: facingName,
      source: f,
      required: f.required || spec?.required === true,
      description: spec?.description ?? (f.description || undefined),
      schema: f.schema,
      ignored: false,
    });
  }
  for (const [facingName, spec] of Object.entries(declared)) {
    if (spec.ignored)
      facing.push({
        name: facingName,
        required: false,
        description: `${spec.description ?? "Accepted for compatibility"} (not sent).`,
        schema: spec.schema ?? { type: "string" },
        ignored: true,
      });
  }
  let offered = facing;
  if (overrides.only) {
    for (const f of facing)
      if (!overrides.only.includes(f.name) && f.required)
        report(
          [...at, "only"],
          `"${f.name}" is required by ${op.operationId}; list it under only or give it under fixed`,
        );
    offered = facing.filter((f) => overrides.only!.includes(f.name));
  }
  // Derived names never collide (FieldNames); a name the step declares under `fields` may.
  const names = new Set<string>();
  for (const f of offered) {
    if (names.has(f.name)) report([...at, "fields", f.name], `two fields are named "${f.name}"; rename one`);
    names.add(f.name);
  }
  if (context.diagnostics.length > before) return undefined;

  const wire: ToolStepModel["wire"] = {
    path: [],
    query: [],
    header: [],
    body: [],
    bodyObject: flat.some((f) => f.in === "body"),
  };
  const raw = op.body?.mediaType === undefined ? op.body?.raw : undefined;
  if (raw?.kind === "multipart" && wire.bodyObject) {
    wire.encoding = "multipart";
    const isFile = (schema: unknown) =>
      isObject(schema) &&
      (schema["x-stepforge-input"] === "file" ||
        (isObject(schema.items) && schema.items["x-stepforge-input"] === "file"));
    wire.files = {};
    for (const f of flat.filter((x) => x.in === "body" && isFile(x.schema))) {
      const type = raw.partTypes[f.wire];
      Object.defineProperty(wire.files, f.wire, {
        value: type ? { contentType: type } : {},
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  } else if (raw?.kind === "bytes") wire.encoding = "base64";
  else if (raw?.kind === "text") wire.encoding = "text";
  for (const f of flat) {
    const offeredField = offered.find((x) => x.source === f);
    const source: WireSource | undefined = Object.hasOwn(fixed, f.name)
      ? { from: "fixed", value: fixed[f.name]! }
      : offeredField
        ? { from: "input", field: offeredField.name }
        : undefined;
    if (source === undefined) continue;
    if (f.in === "bodyWhole") wire.bodyWhole = source;
    else wire[f.in].push([f.wire, source]);
  }
  const success = op.success;
  const json = success.mediaType !== undefined && /json/i.test(success.mediaType) && success.schema !== undefined;
  const kind = json ? kindOf(context.refs, success.schema) : undefined;
  const parts = [overrides.description ? sentence(overrides.description) : sentence(op.summary)];
  // A step that narrows its operation (only some fields, or fixed values) and says what it does
  // itself: the operation's description would tell the model about fields it cannot send
  // (trello_archive_card offered "Setting idList moves the card").
  const narrowed =
    overrides.description !== undefined && (overrides.only !== undefined || Object.keys(fixed).length > 0);
  if (op.description && !narrowed) parts.push(sentence(op.description.split(/\n\s*\n/)[0]!));
  if (success.description)
    parts.push(`Returns: ${sentence(success.description).replace(/^./, (c) => c.toLowerCase())}`);
  const hints = overrides.hints ?? {};
  const readOnly = hints.readOnly ?? (op.method === "GET" || op.method === "HEAD");
  return {
    name,
    title: overrides.title ?? op.seed?.name ?? op.summary,
    description: parts.filter(Boolean).join(" "),
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: readOnly ? false : (hints.destructive ?? op.method === "DELETE"),
      idempotentHint: hints.idempotent ?? (readOnly || op.idempotent),
      openWorldHint: hints.openWorld ?? true,
    },
    deprecated: overrides.deprecated,
    replacedBy: overrides.replacedBy,
    ...(overrides.check ? { check: overrides.check } : {}),
    at,
    fields: offered.map(({ source: _source, ...field }) => field),
    wire,
    output: {
      ...(json ? { schema: success.schema } : {}),
      description: success.description,
      wrap: kind === undefined || kind === "object" ? "none" : kind === "array" ? "items" : "value",
    },
  };
}
