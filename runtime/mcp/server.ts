/**
 * The MCP server over the tool steps, on the official SDK's low-level `Server` (the listing is
 * built here from the steps' JSON Schemas, so its size is under our control).
 *
 * Two ways to offer the steps:
 * - default: every selected step is a tool (name, title, description, input schema, hints);
 * - dynamic (`--dynamic`): four meta-tools, a few kilobytes whatever the number of steps:
 *   `search_steps`, `describe_step`, `call_step`, and `continue_result`.
 *
 * Every call runs through `executeTool` (validation, the runtime client with its auth, limits and
 * retries) with the account the call names. Failures are tool results with `isError: true` whose
 * text is the step's error object (kind, message naming the field and the fix, retryable, and for
 * a write whose answer was lost: outcome "unknown" and the check to run). Results over the byte
 * budget are cut at a record boundary, with a note and a cursor for `continue_result`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { executeTool } from "../tools/execute.js";
import { traceMetaOf, withTraceparent } from "../observe/otel.js";
import { ToolSchemas, type SchemaWork } from "../tools/export-schema.js";
import { shapeResult } from "../tools/shape.js";
import type { Accounts } from "./accounts.js";
import { selectTools, toolsetsOf, type Selection, type ServiceCatalog } from "./catalog.js";
import { callContext } from "./call-context.js";
import { CursorStore } from "./cursors.js";
import { setRawCallHandler, toolCall } from "./raw-call.js";
import { declaredFields, errorResult, inputError, internalError, isObject, type Json, READ_ONLY } from "./results.js";
import { budgetNotice, clientProfile, clientToolName, DEFAULT_LISTING_BUDGET } from "./budget.js";
import { fittingToolsets, overBudget } from "./budget.js";
import type { ClientName, ClientProfile, ListingBudget } from "./budget.js";
import {
  CONNECTION_FIELD,
  CONTINUE_TOOL,
  continueTool,
  outputShape,
  RESULT_FIELDS_FIELD,
  serveTool,
  summary,
  type ListedTool,
  type ServedTool,
} from "./listing.js";

/** What the server's instructions say of a write whose answer was lost. */
const UNKNOWN_OUTCOME =
  'A write whose result says outcome "unknown" may have been applied: run its check before trying again.';

export interface StepforgeMcpOptions {
  catalogs: readonly ServiceCatalog[];
  selection?: Selection | undefined;
  accounts: Accounts;
  /** Offer the meta-tools instead of one tool per step. */
  dynamic?: boolean | undefined;
  /** Budget of one result's JSON in bytes (default 40,000, about 10k tokens). */
  resultBytes?: number | undefined;
  cursors?: CursorStore | undefined;
  version?: string | undefined;
  /**
   * Longest a client-side limit may hold a call (default 10,000 ms): a longer wait fails at once
   * as `rate_limited` with `retryAfterMs`, nothing sent. MCP clients give up after about a minute
   * and a limit's window can be 15 minutes; a prompt answer lets the model decide what to do.
   * An account whose context sets `maxLimitWaitMs` keeps its own.
   */
  maxLimitWaitMs?: number | undefined;
  /** Cancels every call, queued or in flight: the server is shutting down. */
  signal?: AbortSignal | undefined;
  /** Counts the schema nodes the listing handles (tests and benchmarks measure work with it). */
  schemaWork?: SchemaWork | undefined;
  /**
   * When listing every step as a tool would pass it (default 120 KB or 128 tools, lowered by
   * `client`), serve the meta-tools instead and say why in `notice`. `false`: list every step.
   */
  budget?: Partial<ListingBudget> | false | undefined;
  /** The client the server is for (`cursor`, `vscode`, …): its tool cap, name length and result size. */
  client?: ClientName | ClientProfile | undefined;
  /** The name the client knows the server by (Cursor counts it in each tool's name); default "stepforge". */
  serverName?: string | undefined;
  /**
   * List each step's result shape (`outputSchema`, for steps whose result is an object) and return
   * `structuredContent` beside the text (MCP 2025-11-25). Off by default: it adds about 40% to the
   * listing (41 KB for the four services' 80 steps).
   */
  outputSchemas?: boolean | undefined;
  /** Another tool set served instead of the steps (code mode's search and execute, runtime/code). */
  toolSet?: ToolSet | undefined;
}

/** A set of tools served in place of the steps: its listing, its calls, its instructions. */
export interface ToolSet {
  readonly instructions: string;
  listTools(): ListedTool[];
  callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult>;
}

export const DEFAULT_RESULT_BYTES = 40_000;
export const DEFAULT_MAX_LIMIT_WAIT_MS = 10_000;
export const SERVER_NAME = "stepforge";
export { CONTINUE_TOOL };

export class StepforgeMcp {
  readonly served: ServedTool[];
  private readonly byName: Map<string, ServedTool>;
  private readonly options: StepforgeMcpOptions;
  private readonly cursors: CursorStore;
  private readonly resultBytes: number;
  private readonly maxLimitWaitMs: number;
  private readonly listing: ListedTool[];
  /** Meta-tools instead of one tool per step: asked for (`dynamic`), or the listing was over the budget. */
  readonly dynamic: boolean;
  /** Why the server serves the meta-tools though not asked to (the budget), for the one stderr line. */
  readonly notice?: string;
  /** The steps' schemas, converted once for all of them (see ToolSchemas). */
  private readonly schemas: ToolSchemas;
  /**
   * The JSON Schema validator of every SDK server made here. Without one, the SDK's Server builds
   * its own (a new Ajv with its formats: about 1 ms of CPU), and Streamable HTTP makes a server per
   * request. The servers never validate with it (it checks elicitation answers; none is asked).
   */
  private validator: AjvJsonSchemaValidator | undefined;

  constructor(options: StepforgeMcpOptions) {
    this.options = options;
    const profile = typeof options.client === "string" ? clientProfile(options.client) : options.client;
    this.cursors = options.cursors ?? new CursorStore();
    const clientCut = profile?.maxResultBytes ?? Number.POSITIVE_INFINITY;
    this.resultBytes = Math.min(options.resultBytes ?? DEFAULT_RESULT_BYTES, clientCut);
    this.maxLimitWaitMs = options.maxLimitWaitMs ?? DEFAULT_MAX_LIMIT_WAIT_MS;
    const steps = selectTools(options.catalogs, options.selection);
    this.schemas = new ToolSchemas(steps, options.schemaWork);
    this.served = steps.map((t) =>
      serveTool(t, options.accounts.names(t.service), this.schemas, { outputSchema: options.outputSchemas }),
    );
    if (profile?.maxQualifiedName !== undefined) {
      const room = profile.maxQualifiedName - (options.serverName ?? SERVER_NAME).length - 1;
      for (const s of this.served) s.listed = { ...s.listed, name: clientToolName(s.listed.name, room) };
    }
    // By the name listed, and by the step's own name (a client that was told it elsewhere).
    this.byName = new Map(this.served.map((s) => [s.definition.name, s]));
    for (const s of this.served) this.byName.set(s.listed.name, s);
    const direct = [...this.served.map((s) => s.listed), continueTool()];
    let dynamic = options.dynamic === true;
    if (!dynamic && options.budget !== false && !options.toolSet) {
      const budget = { ...DEFAULT_LISTING_BUDGET, ...options.budget };
      const why = overBudget(direct, budget, profile);
      if (why) {
        dynamic = true;
        this.notice = budgetNotice(why, fittingToolsets(options.catalogs, this.served, budget, profile), profile);
      }
    }
    this.dynamic = dynamic;
    // Code mode's tool set replaces the listing whole (search and execute over the same steps).
    this.listing = options.toolSet ? options.toolSet.listTools() : dynamic ? this.metaTools() : direct;
  }

  /** What `tools/list` answers. */
  listTools(): ListedTool[] {
    return this.listing;
  }

  /**
   * One `tools/call`; never throws. `signal` is the request's own (the client cancelled it, timed
   * out, or went away): a call still queued behind a limit is then dropped before it is sent.
   */
  async callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
    try {
      if (this.options.toolSet) return await this.options.toolSet.callTool(name, args, signal);
      if (name === CONTINUE_TOOL) return this.continueResult(args);
      if (this.dynamic) {
        if (name === "search_steps") return this.searchSteps(args);
        if (name === "describe_step") return this.describeStep(args);
        if (name === "call_step") {
          const checked = declaredFields(name, args, ["name", "input"]);
          if (!checked.ok) return checked.result;
          const a = checked.args;
          if (typeof a.name !== "string")
            return inputError(name, "name", "required: the step's name, from search_steps");
          if (a.input !== undefined && !isObject(a.input))
            return inputError(name, "input", "must be an object with the step's fields (see describe_step)");
          return this.callStep(a.name, a.input ?? {}, signal);
        }
      }
      return this.callStep(name, args, signal);
    } catch (error) {
      return internalError(name, error);
    }
  }

  /** A new SDK server answering from this catalogue (one per transport or HTTP request). */
  createServer(): Server {
    const server = new Server(
      { name: this.options.serverName ?? SERVER_NAME, version: this.options.version ?? "0.0.0" },
      {
        capabilities: { tools: {} },
        jsonSchemaValidator: (this.validator ??= new AjvJsonSchemaValidator()),
        instructions: this.options.toolSet
          ? this.options.toolSet.instructions
          : this.dynamic
            ? "Steps act on the connected services. Find one with search_steps, read its input with describe_step, " +
              `run it with call_step. ${UNKNOWN_OUTCOME}`
            : `Each tool is a step on a connected service. ${UNKNOWN_OUTCOME} Cut results give a cursor for ` +
              "continue_result.",
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listing as never }));
    setRawCallHandler(server, async (request, extra) => {
      const { name, args } = toolCall(request.params);
      // A client's W3C trace context (`_meta.traceparent`): the call's spans continue its trace.
      return withTraceparent(traceMetaOf(request.params), () => this.callTool(name, args, extra.signal));
    });
    return server;
  }

  private unknownStep(name: string): CallToolResult {
    const prefix = name.split("_")[0];
    const close = this.served
      .filter((s) => s.listed.name.startsWith(`${prefix}_`))
      .map((s) => s.listed.name)
      .slice(0, 30);
    const hint = this.dynamic
      ? " Find steps with search_steps."
      : close.length
        ? ` Steps of ${prefix}: ${close.join(", ")}.`
        : ` The tools are listed by tools/list.`;
    return errorResult({
      kind: "unknown_tool",
      message: `There is no step named "${name}" on this server.${hint}`,
      retryable: false,
      fields: [{ path: "name", message: "unknown step" }],
      tool: name,
    });
  }

  private async callStep(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
    const served = this.byName.get(name);
    if (!served) return this.unknownStep(name);
    const tool = served.definition;
    // Absent arguments are no fields; anything else but an object (null, a list, a string) is refused.
    if (!isObject(args) && args !== undefined) {
      const got = args === null ? "null" : Array.isArray(args) ? "a list" : typeof args;
      return inputError(
        name,
        "",
        `the input must be a JSON object with the fields ` +
          `${Object.keys(served.listed.inputSchema.properties as Json).join(", ")}, not ${got}`,
      );
    }
    const input: Json = isObject(args) ? { ...args } : {};
    // The server's own fields exist only where it lists them (several accounts; a list result);
    // elsewhere the name is an unknown field like any other, refused by the step's validation.
    const own = served.fields;
    let requested: unknown;
    if (own.connection) {
      requested = input[own.connection];
      delete input[own.connection];
    }
    let fields: string[] | undefined;
    if (own.resultFields) {
      const raw = input[own.resultFields];
      delete input[own.resultFields];
      if (raw !== undefined && raw !== null) {
        if (
          !Array.isArray(raw) ||
          raw.some((f) => typeof f !== "string" || f.length === 0 || f.length > 200) ||
          raw.length > 100
        ) {
          return inputError(name, own.resultFields, 'must be a list of field names such as ["id","name"]');
        }
        fields = raw as string[];
      }
    }
    const account = this.options.accounts.resolve(tool.service, requested, name, own.connection ?? CONNECTION_FIELD);
    if (!account.ok) return errorResult(account.error);
    const result = await executeTool(
      tool,
      input,
      callContext(account.account.context, tool, [signal, this.options.signal], this.maxLimitWaitMs),
    );
    if (!result.ok) return errorResult(result.error);
    return this.shaped(name, result.data, served.recordsKey, fields, 0);
  }

  /** The result as text, cut to the budget, with a note and a cursor when records were left out. */
  private shaped(
    tool: string,
    data: unknown,
    recordsKey: string | undefined,
    fields: string[] | undefined,
    offset: number,
    total?: number,
  ): CallToolResult {
    const shaped = shapeResult(data, { maxBytes: this.resultBytes, recordsKey, fields });
    const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(shaped.data) }];
    const notes: string[] = [];
    const fieldsName = this.byName.get(tool)?.fields.resultFields ?? RESULT_FIELDS_FIELD;
    if (shaped.unknownFields?.length)
      notes.push(
        `No record has the field${shaped.unknownFields.length > 1 ? "s" : ""} ` +
          `${shaped.unknownFields.map((f) => JSON.stringify(f)).join(", ")} named in ${fieldsName}.`,
      );
    if (shaped.cut) {
      const all = total ?? shaped.cut.total;
      const from = offset + 1;
      const to = offset + shaped.cut.returned;
      const cursor = this.cursors.put(
        { tool, path: shaped.cut.path, records: shaped.cut.rest, offset: to, total: all },
        shaped.fullBytes - shaped.bytes,
      );
      const narrower =
        recordsKey && !fields
          ? `, or call ${tool} again with ${fieldsName} (e.g. ["id","name"]) for smaller records`
          : "";
      const shown = shaped.preview
        ? `"preview" holds only the start of the JSON text of record` +
          `${from === to ? ` ${from}` : `s ${from}-${to}`} of ${all}, too large to show whole`
        : `"${shaped.cut.path.join(".")}" holds records ${from}-${to} of ${all}`;
      notes.push(
        `Result cut to stay under ${this.resultBytes} bytes: ${shown}. For the next records ` +
          `call ${CONTINUE_TOOL} with {"cursor":"${cursor}"}${narrower}.`,
      );
    } else if (shaped.stringsCut) {
      notes.push(
        `Result shortened to stay under ${this.resultBytes} bytes: long texts end in ` +
          `"…[cut]". Ask for fewer or smaller records to see them whole.`,
      );
    }
    if (notes.length) content.push({ type: "text", text: notes.join(" ") });
    // A step that lists an output schema owes the client its data as structuredContent.
    const structured = this.byName.get(tool)?.listed.outputSchema !== undefined && isObject(shaped.data);
    return structured ? { content, structuredContent: shaped.data as Json } : { content };
  }

  private continueResult(args: unknown): CallToolResult {
    const checked = declaredFields(CONTINUE_TOOL, args, ["cursor"]);
    if (!checked.ok) return checked.result;
    const cursor = checked.args.cursor;
    if (typeof cursor !== "string" || cursor.length === 0)
      return inputError(CONTINUE_TOOL, "cursor", "required: the cursor from a cut result's note");
    const pending = this.cursors.take(cursor);
    if (!pending)
      return inputError(
        CONTINUE_TOOL,
        "cursor",
        "unknown or expired (a cursor works once, for 15 minutes); call the step again",
      );
    const key = pending.path[pending.path.length - 1] ?? "items";
    return this.shaped(pending.tool, { [key]: pending.records }, key, undefined, pending.offset, pending.total);
  }

  // ------------------------------------------------------------ dynamic mode

  private metaTools(): ListedTool[] {
    const services = [...new Set(this.served.map((s) => s.definition.service))];
    return [
      {
        name: "search_steps",
        title: "Search steps",
        description:
          `Find steps that act on ${services.join(", ")} for a task. Returns ` +
          `names and one-line summaries; read a step's input with describe_step, run it with ` +
          `call_step.`,
        inputSchema: {
          type: "object",
          properties: {
            query: {
              type: "string",
              description: 'Words for the task, e.g. "create card" or "news about tesla"; "" lists every step.',
            },
            service: { type: "string", enum: services },
            limit: { type: "integer", minimum: 1, maximum: 100, description: "At most this many steps (default 10)." },
          },
          required: ["query"],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
      {
        name: "describe_step",
        title: "Describe a step",
        description: "A step's full description, input schema (for call_step), result shape and hints.",
        inputSchema: {
          type: "object",
          properties: { name: { type: "string", description: "Step name from search_steps." } },
          required: ["name"],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
      {
        name: "call_step",
        title: "Run a step",
        description: "Run a step with its input (fields as describe_step lists them). Errors name the field to fix.",
        inputSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "Step name." },
            input: { type: "object", description: "The step's input fields.", additionalProperties: true },
          },
          required: ["name", "input"],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      },
      continueTool(),
    ];
  }

  private searchSteps(args: unknown): CallToolResult {
    const checked = declaredFields("search_steps", args, ["query", "service", "limit"]);
    if (!checked.ok) return checked.result;
    const a = checked.args;
    if (typeof a.query !== "string")
      return inputError("search_steps", "query", 'required: words for the task, or "" for every step');
    const services = [...new Set(this.served.map((s) => s.definition.service))];
    if (a.service !== undefined && !services.includes(a.service as string))
      return inputError(
        "search_steps",
        "service",
        `must be one of ${services.map((x) => JSON.stringify(x)).join(", ")}`,
      );
    const limit = a.limit === undefined ? 10 : a.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100)
      return inputError("search_steps", "limit", "must be a whole number (not a string) from 1 to 100");
    const stem = (w: string) => w.replace(/(ies|es|s)$/, (m) => (m === "ies" ? "y" : ""));
    const words = a.query
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 1)
      .map(stem);
    const scored = this.served
      .filter((s) => a.service === undefined || s.definition.service === a.service)
      .map((s) => {
        const t = s.definition;
        const head = `${t.name.replace(/_/g, " ")} ${t.title}`.toLowerCase();
        const sets = toolsetsOf(this.options.catalogs, t).join(" ");
        const body = t.description.toLowerCase();
        let score = words.length === 0 ? 1 : 0;
        for (const w of words)
          score += (head.includes(w) ? 3 : 0) + (sets.includes(w) ? 2 : 0) + (body.includes(w) ? 1 : 0);
        if (t.deprecated) score -= 0.5;
        return { s, score };
      })
      .filter((x) => x.score > 0)
      .sort((x, y) => y.score - x.score);
    const steps = scored.slice(0, limit).map(({ s }) => ({
      name: s.listed.name,
      title: s.definition.title,
      summary: summary(s.definition.description),
      readOnly: s.definition.annotations.readOnlyHint,
      ...(s.definition.deprecated ? { deprecated: true } : {}),
    }));
    return {
      content: [
        {
          type: "text",
          text: JSON.stringify({
            steps,
            matched: scored.length,
            ...(scored.length > limit
              ? { note: `${scored.length - limit} more; raise limit or narrow the query` }
              : {}),
          }),
        },
      ],
    };
  }

  private describeStep(args: unknown): CallToolResult {
    const checked = declaredFields("describe_step", args, ["name"]);
    if (!checked.ok) return checked.result;
    const name = checked.args.name;
    if (typeof name !== "string") return inputError("describe_step", "name", "required: a step name from search_steps");
    const served = this.byName.get(name);
    if (!served) return this.unknownStep(name);
    const t = served.definition;
    const body = {
      name: served.listed.name,
      title: t.title,
      description: served.listed.description,
      service: t.service,
      toolsets: toolsetsOf(this.options.catalogs, t),
      annotations: served.listed.annotations,
      inputSchema: served.listed.inputSchema,
      result: outputShape(t, this.schemas),
      ...(t.check ? { checkAfterLostAnswer: t.check.step } : {}),
    };
    return { content: [{ type: "text", text: JSON.stringify(body) }] };
  }
}
