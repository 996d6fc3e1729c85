/**
 * The normalised model of one service: what the check stage (check/) builds and every emitter
 * reads. Emitters never look at the document: parameters, bodies and success responses are
 * resolved here (one `$ref` resolver, one merge rule, one success rule), each tool step is worked
 * out down to its wire mapping, and each operation carries what its mock validates and answers.
 *
 * Schemas stay JSON Schema nodes (they may hold `$ref`s to components, which `refs` resolves), so
 * the types, tools and mock emitters each render them in their own language.
 */
import type { DeclaredDescriptor, HttpMethod, PagingSpec } from "../runtime/descriptor.js";
import type { MockOperationSpec, MockService } from "../runtime/mock/extension.js";
import type { ApiCallTool, ToolCheck, Toolset } from "../runtime/tools/extension.js";
import type { ToolAnnotations } from "../runtime/tools/types.js";
import type { TriggersExtension } from "../runtime/triggers/extension.js";
import type { Diagnostic } from "./diagnostics.js";
import type { LoadedSpec } from "./load.js";
import type { Json, RefResolver } from "./refs.js";

export interface ParameterModel {
  /** The name on the wire. */
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  deprecated: boolean;
  description: string;
  /** JSON Schema of the value (a string when the spec gives none). */
  schema: unknown;
  style: string;
  explode: boolean;
  /** Declared with `content: application/json` rather than a schema: the value travels JSON-encoded. */
  json?: true | undefined;
  /** Set when the spec writes explode: false or a style other than form: whether the mock reads the value exploded. */
  explodeWritten?: boolean | undefined;
  example?: unknown;
}

export interface BodyModel {
  required: boolean;
  description: string;
  /** Every media type the operation accepts, in spec order. */
  contentTypes: string[];
  /** The JSON media type the client sends, and its schema, when there is one. */
  mediaType?: string | undefined;
  schema?: unknown;
  /**
   * Without a JSON media type: the one the client sends (the descriptor's `requestMediaType`), how
   * a tool step takes it (form fields, multipart parts, bytes as base64, text; `other`: left out),
   * its schema, and per multipart part the media type its `encoding` gives.
   */
  raw?: { mediaType: string; kind: RawBodyKind; schema?: unknown; partTypes: Record<string, string> } | undefined;
}

export type RawBodyKind = "form" | "multipart" | "bytes" | "text" | "other";

export interface SuccessModel {
  /** The lowest 2xx status the spec declares (200 when it declares none). */
  status: number;
  description: string;
  /** The first media type of the response, its JSON one when it has several. */
  mediaType?: string | undefined;
  schema?: unknown;
  /** The media type's `example`, or the value of its first `examples` entry. */
  example?: unknown;
}

/**
 * Schemas of the two tool inputs a body that is not JSON adds: a multipart file part
 * (`{ base64 | text, filename?, contentType? }`) and bytes as base64 (runtime/tools/bodies.ts).
 * The tools emitter writes them as `s.file()` and `s.base64()`; `{ type: "array", items: FILE_PART }`
 * is a list of files.
 */
export const FILE_PART = { "x-stepforge-input": "file" } as const;
export const BASE64_BODY = { "x-stepforge-input": "base64" } as const;

/** Where a wire value of a tool step comes from: a field of the step's input, or a fixed value. */
export type WireSource = { from: "input"; field: string } | { from: "fixed"; value: string | number | boolean | null };

export interface ToolFieldModel {
  /** The model-facing name in the step's input. */
  name: string;
  required: boolean;
  /** Replaces the schema's own description when given. */
  description?: string | undefined;
  schema: unknown;
  /** Accepted for compatibility and never sent. */
  ignored: boolean;
}

export interface ToolStepModel {
  name: string;
  title: string;
  /** For a model: what it does, when to use it, what it returns. */
  description: string;
  operationId: string;
  method: HttpMethod;
  path: string;
  annotations: ToolAnnotations;
  deprecated?: boolean | undefined;
  replacedBy?: string | undefined;
  /** For a non-idempotent write: the read step that shows whether it was applied (`x-stepforge-tool.check`). */
  check?: ToolCheck | undefined;
  /** The model-facing input fields, in order. */
  fields: ToolFieldModel[];
  /**
   * How the input becomes a call: wire name → source, per place; `bodyWhole` when the body is not an object of fields.
   */
  wire: {
    path: Array<[string, WireSource]>;
    query: Array<[string, WireSource]>;
    header: Array<[string, WireSource]>;
    body: Array<[string, WireSource]>;
    bodyWhole?: WireSource | undefined;
    /** The operation takes a body of fields (sent even when none is given). */
    bodyObject: boolean;
    /** A body that is not JSON or form fields: multipart parts, bytes from base64, or text. */
    encoding?: "multipart" | "base64" | "text" | undefined;
    /** Multipart file parts by wire name, with the part's media type when the spec gives one. */
    files?: Record<string, { contentType?: string }> | undefined;
  };
  output: { schema?: unknown; description: string; wrap: "none" | "items" | "value" };
}

export interface OperationModel {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  deprecated: boolean;
  /** Path-item and operation parameters merged (the operation's win), `$ref`s resolved. */
  parameters: ParameterModel[];
  body?: BodyModel | undefined;
  hasBody: boolean;
  bodyRequired: boolean;
  success: SuccessModel;
  /** The caller must pass an init object (required parameters or a required body). */
  requiresInput: boolean;
  idempotent: boolean;
  limitClass: "read" | "write";
  paging?: PagingSpec | undefined;
  seed?: { name: string; differs?: string | undefined } | undefined;
  /** What the behavioural mock validates and answers for this operation. */
  mock: MockOperationSpec;
}

export interface ServiceModel {
  spec: LoadedSpec;
  id: string;
  title: string;
  version: string;
  description: string;
  /** True when the spec declares `x-stepforge`; false when it was derived from a foreign spec. */
  declared: boolean;
  /** What the client ships: auth, limits, errors, operations (the mock section is not in it). */
  descriptor: DeclaredDescriptor;
  operations: OperationModel[];
  /** Every agent tool step, in spec order (operation steps, then `x-stepforge.tools.steps`). */
  toolSteps: ToolStepModel[];
  apiCall?: { name: string; config: ApiCallTool } | undefined;
  /**
   * Named groups of the steps (`x-stepforge.tools.toolsets`), every name checked; one per tag when the spec declares
   * none.
   */
  toolsets: Toolset[];
  /** True when `toolsets` were made from tags, not declared. */
  toolsetsFromTags?: boolean | undefined;
  /** How the behavioural mock behaves (`x-stepforge.mock`, or a derived one for a foreign spec). */
  mock: MockService;
  /** What the mock does per operation, and what of it was inferred (`stepforge mock --explain`, the README). */
  mockExplain: MockExplain;
  /** `components` of the document: the schemas `$ref`s in the model point at. */
  components: Json;
  refs: RefResolver;
  /** The document openapi-typescript types: the spec, or a copy carrying the check stage's repairs. */
  typesDocument: Json;
  /** `x-stepforge-triggers`: how events arrive and the service's triggers. */
  triggers?: TriggersExtension | undefined;
  /** Warnings of the check stage (repairs of a foreign spec, ignored keywords), in document order. */
  warnings: Diagnostic[];
}

/**
 * The model `stepforge diff` compares (checkSpec with `surfaceOnly`): everything the public surface
 * and the checker's declarations read, without the mock. Its operations' paging is what the spec
 * declares (the paging the mock infers from list shapes is not looked for), and their `mock` specs,
 * when built, name no served example; nothing in a surface reads either.
 */
export type SurfaceModel = Omit<ServiceModel, "mock" | "mockExplain" | "operations"> & {
  operations: SurfaceOperation[];
};

/**
 * An operation of a SurfaceModel. A lenient check for the surface builds no mock specs (nothing
 * reads them there); a strict one still does, for the route conflicts it refuses.
 */
export type SurfaceOperation = Omit<OperationModel, "mock"> & { mock?: MockOperationSpec };

/** What the mock does for one operation, in words. */
export interface MockExplainOperation {
  operationId: string;
  method: string;
  path: string;
  /** create, read, update, delete, list, or example (answers its example or a schema sample). */
  action: string;
  resource?: string | undefined;
  /** How the record is named: `path bookId → id (uuid)`. */
  id?: string | undefined;
  /** The parent records are kept under: `path shelfId → shelfId`. */
  parent?: string | undefined;
  /** Where a list answer's records and totals go: `items; total ← total`. */
  envelope?: string | undefined;
  /** The paging the client walks: `page page/per_page (from 1, at most 100)`. */
  paging?: string | undefined;
  /** Said when something was declared rather than inferred. */
  note?: string | undefined;
}

/** What was inferred for a spec's mock (or that it was declared). */
export interface MockExplain {
  /** False when the spec declares `x-stepforge.mock`: nothing was inferred. */
  inferred: boolean;
  auth: string;
  /** Which spec response each error answer is shaped from. */
  errors: string[];
  operations: MockExplainOperation[];
}
