/**
 * The types of the tool-step extensions (`x-stepforge-tool`, `x-stepforge.tools`), with no zod in them. The service
 * descriptor names them, so every project that compiles a generated client reads this file: it must
 * not pull zod's declaration files into that program. The schemas validating these shapes are in
 * extension.ts beside it; test/types/extension-types.ts proves each type identical to its schema's `z.infer`.
 */
/** ^[a-z0-9_]{1,64}$: accepted by OpenAI, Anthropic and MCP alike. */
export const TOOL_NAME = /^[a-z0-9_]{1,64}$/;

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

/** `check` of a step: how to find out whether a write whose answer was lost was applied. */
export type ToolCheck = {
  /** The read step to run (a step of the same service). */
  step: string;
  /**
   * Its input: field → a path into the write's input (`idList`, `input.0.email`; `[]` after a
   * segment maps over a list: `input[].email`), or `{ value }` for a constant. Default `{}`.
   */
  input: Record<string, string | { value: string | number | boolean | Array<string | number | boolean> }>;
  /**
   * A record in its result is the write's when each of these record fields equals (or is one of) the write's value at
   * the path.
   */
  match: Record<string, string>;
};

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

/** `x-stepforge-tool` on an operation. */
export type OperationTool = Flat<
  ToolStepShape & {
    /** Step name (default `<service>_<snake_case(operationId)>`); must start with the service id. */
    name?: string | undefined;
    /** No step for this operation (say why in `reason`). */
    skip?: boolean | undefined;
    /** Why the operation is skipped: required with `skip: true`, refused without it. */
    reason?: string | undefined;
  }
>;

/** A step of `x-stepforge.tools.steps`: built on one operation of the spec. */
export type CompositeTool = Flat<
  ToolStepShape & {
    name: string;
    operation: string;
  }
>;

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

/** `x-stepforge.tools` at the root. */
export type ServiceTools = {
  apiCall?: ApiCallTool | undefined;
  /** Default `[]`. */
  steps: CompositeTool[];
  /** Default `[]`. */
  toolsets: Toolset[];
};
