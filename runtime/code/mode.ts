/**
 * Code mode: two tools instead of one per step. `search` finds operations by intent and shows
 * their TypeScript signatures; `execute` type-checks the agent's code (the body of an async
 * function of `services`) against the generated declarations, strips its types and runs it in the
 * QuickJS sandbox, where `services.<service>.<method>(init)` reaches the runtime client through the
 * bridge. The result is shaped to the same byte budget as the direct tools' results, with the
 * console lines and each write's outcome beside it.
 *
 * Code whose types blank out without the checker starts in the sandbox while the main thread
 * checks it (the check and the run's start overlap); its calls are held by the sandbox until the
 * check passes, and a failing check cancels the run and is the answer. So what an agent sees is
 * what checking first and then running would give, a few milliseconds sooner.
 */
import { SourceMap } from "node:module";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ListedTool } from "../mcp/listing.js";
import { declaredFields, errorResult, inputError, internalError, type Json, READ_ONLY } from "../mcp/results.js";
import { shapeResult } from "../tools/shape.js";
import type { Bridge, WriteRecord } from "./bridge.js";
import type { ServiceDeclarations } from "./declarations.js";
import type { SandboxBudgets, SandboxOutcome, ShapeEntry } from "./protocol.js";
import type { CodeSandbox } from "./sandbox.js";
import { rank, render, type SearchEntry } from "./search.js";
import { MAIN, type CheckResult, type CodeChecker } from "./typecheck.js";

/** The share of the result budget console lines may take. */
const LOG_SHARE = 0.25;

/** What search and execute need beyond the listing, built once in the background (prepare.ts). */
export interface Prepared {
  declarations: readonly ServiceDeclarations[];
  checker: CodeChecker;
  bridge: Bridge;
  entries: SearchEntry[];
  shape: ShapeEntry[];
}

export interface CodeModeParts {
  /** Service ids, and per service the names of its accounts. */
  services: string[];
  accounts: ReadonlyMap<string, readonly string[]>;
  budgets: SandboxBudgets;
  resultBytes: number;
  readOnly: boolean;
  /** Start a run during its type-check (its calls held until the check passes). */
  runWhileChecking: boolean;
  sandbox: CodeSandbox;
  prepared: Promise<Prepared>;
  signal?: AbortSignal | undefined;
}

export class CodeMode {
  readonly instructions: string;
  private readonly listing: ListedTool[];
  private readonly budgets: SandboxBudgets;
  private readonly resultBytes: number;
  private readonly services: string[];
  private readonly sandbox: CodeSandbox;
  private readonly prepared: Promise<Prepared>;
  private readonly runWhileChecking: boolean;

  constructor(parts: CodeModeParts) {
    this.budgets = parts.budgets;
    this.resultBytes = parts.resultBytes;
    this.services = parts.services;
    this.sandbox = parts.sandbox;
    this.runWhileChecking = parts.runWhileChecking;
    this.prepared = parts.prepared;
    // A failure to prepare is reported by the first search or execute.
    this.prepared.catch(() => {});
    this.listing = this.tools(parts.readOnly, parts.accounts);
    this.instructions =
      "Write TypeScript against the services' typed clients: find operations with search, then run code with " +
      "execute. " +
      'A write whose outcome is "unknown" may have been applied: run its check before trying again.';
    parts.signal?.addEventListener("abort", () => void this.sandbox.close(), { once: true });
  }

  listTools(): ListedTool[] {
    return this.listing;
  }

  /** Ready once the declarations are built and the checker is warm (the listing does not wait for it). */
  async ready(): Promise<void> {
    await this.prepared;
  }

  private tools(readOnly: boolean, accounts: ReadonlyMap<string, readonly string[]>): ListedTool[] {
    const several = [...accounts]
      .filter(([, names]) => names.length > 1)
      .map(([id, names]) => `services.${id}.<account> (${names.join(", ")})`);
    const b = this.budgets;
    return [
      {
        name: "search",
        title: "Search operations",
        description:
          `Find operations of ${this.services.join(", ")} for a task. Returns TypeScript: each ` +
          `operation's call signature as execute's code calls it, and the types it uses.`,
        inputSchema: {
          type: "object",
          properties: {
            query: {
              type: "string",
              description: 'Words for the task, e.g. "move card to list"; "" lists every operation.',
            },
            service: { type: "string", enum: this.services },
            limit: {
              type: "integer",
              minimum: 1,
              maximum: 30,
              description: "At most this many operations (default 5).",
            },
            types: { type: "array", items: { type: "string" }, description: "Names of types to show in full." },
          },
          required: ["query"],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
      {
        name: "execute",
        title: "Run code",
        description:
          "Run TypeScript that calls the services and return its result. `code` is the body of an async function " +
          "of `services`, e.g. " +
          `\`const found = await services.${this.services[0] ?? "<service>"}.<operation>(…); return found;\` — write ` +
          "calls as search shows them" +
          (several.length ? `; with several accounts: ${several.join("; ")}` : "") +
          ". It is type-checked first (errors come back with line and column). Return JSON data; console.log " +
          "lines come back too. " +
          "A failed call throws a ServiceError (kind, message, status, retryable). Every write is listed with " +
          "its outcome: done, failed, " +
          "or unknown with the check to run before trying again. " +
          `Per run: ${b.calls} calls, ${b.cpuMs / 1000} s of CPU, ${b.wallMs / 1000} s in all, ` +
          `${Math.round(b.memoryBytes / 1048576)} MiB. No network, files or timers.`,
        inputSchema: {
          type: "object",
          properties: {
            code: { type: "string", description: "The body of an async function of `services`; `return` the result." },
          },
          required: ["code"],
          additionalProperties: false,
        },
        annotations: readOnly ? READ_ONLY : {},
      },
    ];
  }

  /** One `tools/call`; never throws. */
  async callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult> {
    try {
      if (name === "search") return this.search(args, await this.prepared);
      if (name === "execute") return await this.execute(args, await this.prepared, signal);
      return errorResult({
        kind: "unknown_tool",
        message: `There is no tool named "${name}" here; the tools are search and execute.`,
        retryable: false,
        fields: [{ path: "name", message: "unknown tool" }],
        tool: name,
      });
    } catch (error) {
      return internalError(name, error);
    }
  }

  private search(args: unknown, prepared: Prepared): CallToolResult {
    const checked = declaredFields("search", args, ["query", "service", "limit", "types"]);
    if (!checked.ok) return checked.result;
    const a = checked.args;
    if (typeof a.query !== "string")
      return inputError("search", "query", 'required: words for the task, or "" for every operation');
    if (a.service !== undefined && !this.services.includes(a.service as string))
      return inputError(
        "search",
        "service",
        `must be one of ${this.services.map((s) => JSON.stringify(s)).join(", ")}`,
      );
    const limit = a.limit ?? 5;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 30)
      return inputError("search", "limit", "must be a whole number from 1 to 30");
    if (
      a.types !== undefined &&
      (!Array.isArray(a.types) || a.types.some((t) => typeof t !== "string") || a.types.length > 20)
    ) {
      return inputError("search", "types", 'must be a list of at most 20 type names, e.g. ["Card"]');
    }
    const service = a.service as string | undefined;
    const found = rank(prepared.entries, a.query, service);
    const text = render(
      found,
      found.length,
      { query: a.query, service, limit, types: a.types as string[] | undefined },
      prepared.declarations,
    );
    return { content: [{ type: "text", text }] };
  }

  /** Type-checks `code` (exposed for measuring the check alone). */
  async check(code: string): Promise<CheckResult> {
    return (await this.prepared).checker.check(code);
  }

  private async execute(args: unknown, prepared: Prepared, signal?: AbortSignal): Promise<CallToolResult> {
    const checked = declaredFields("execute", args, ["code"]);
    if (!checked.ok) return checked.result;
    const code = checked.args.code;
    if (typeof code !== "string" || code.trim() === "")
      return inputError(
        "execute",
        "code",
        "required: the body of an async function of `services` that returns the result",
      );
    if (code.length > 200_000)
      return inputError("execute", "code", "is longer than 200,000 characters; write shorter code");
    const pending = prepared.checker.begin(code);
    const { host, writes } = prepared.bridge.forRun();
    // The run's parts either way; its JavaScript comes from the check.
    const job = { main: MAIN, shape: prepared.shape, host, budgets: this.budgets, signal };
    if (pending.js !== undefined && this.runWhileChecking) {
      // Run while checking: the worker starts the code now and its calls wait for the check.
      let settle!: (passed: boolean) => void;
      const checked = new Promise<boolean>((resolve) => (settle = resolve));
      const running = this.sandbox.run({ ...job, js: pending.js, checked });
      // Not awaited when the check fails: a run refused by a closing sandbox must not be an unhandled rejection.
      running.catch(() => {});
      let compiled: CheckResult | undefined;
      try {
        compiled = pending.finish();
      } finally {
        settle(compiled?.ok === true);
      }
      // A failed check is the answer whatever the run did; the run is cancelled, nothing it called was sent.
      if (!compiled.ok) return typeError(compiled);
      return this.result(await running, writes, undefined);
    }
    const compiled = pending.finish();
    if (!compiled.ok) return typeError(compiled);
    const outcome = await this.sandbox.run({ ...job, js: compiled.js });
    return this.result(outcome, writes, compiled.sourceMap);
  }

  private result(outcome: SandboxOutcome, writes: WriteRecord[], sourceMap: string | undefined): CallToolResult {
    const extras: Json = {};
    const notes: string[] = [];
    if (outcome.logs.length) {
      const logs = this.fitLogs(outcome.logs);
      extras.logs = logs.kept;
      if (logs.dropped) notes.push(`${logs.dropped} more console lines were left out to stay under the result budget.`);
    }
    if (writes.length) extras.writes = writes;
    extras.calls = outcome.calls;
    if (outcome.failure) {
      const { kind, message, thrown } = outcome.failure;
      const at = thrown?.stack ? position(thrown.stack, sourceMap) : undefined;
      const service = thrown?.name === "ServiceError" ? serviceFields(thrown) : undefined;
      const error: Json = {
        kind: kind === "error" ? "thrown" : kind,
        message,
        ...(at ?? {}),
        ...(service ? { service } : {}),
      };
      return {
        isError: true,
        content: [
          { type: "text", text: JSON.stringify({ error, ...extras }) },
          ...(notes.length ? [{ type: "text" as const, text: notes.join(" ") }] : []),
        ],
      };
    }
    const value: unknown = outcome.value === undefined ? undefined : JSON.parse(outcome.value);
    const room = Math.max(2_000, this.resultBytes - Buffer.byteLength(JSON.stringify(extras)));
    const shaped = shapeResult(value, { maxBytes: room });
    if (shaped.cut) {
      const where = shaped.cut.path.length ? `"${shaped.cut.path.join(".")}"` : "the list";
      notes.push(
        `Result cut to stay under ${this.resultBytes} bytes: ${where} holds records 1-${shaped.cut.returned} of ` +
          `${shaped.cut.total}. Return fewer records or fields (e.g. map them to { id, name }), or a slice.`,
      );
    } else if (shaped.stringsCut) {
      notes.push(
        `Result shortened to stay under ${this.resultBytes} bytes: long texts end in "…[cut]". Return less to ` +
          `see them whole.`,
      );
    }
    const body = { ...(value === undefined ? {} : { result: shaped.data }), ...extras };
    return {
      content: [
        { type: "text", text: JSON.stringify(body) },
        ...(notes.length ? [{ type: "text" as const, text: notes.join(" ") }] : []),
      ],
    };
  }

  /** The first console lines that fit their share of the result budget. */
  private fitLogs(logs: string[]): { kept: string[]; dropped: number } {
    const budget = this.resultBytes * LOG_SHARE;
    const kept: string[] = [];
    let used = 0;
    for (const line of logs) {
      const text = line.length > 2_000 ? `${line.slice(0, 2_000)}…[cut]` : line;
      used += Buffer.byteLength(text) + 3;
      if (used > budget) break;
      kept.push(text);
    }
    return { kept, dropped: logs.length - kept.length };
  }

  async close(): Promise<void> {
    await this.sandbox.close();
  }
}

/** The answer to code that does not type-check: its diagnostics, with the code's lines and columns. */
function typeError(compiled: Extract<CheckResult, { ok: false }>): CallToolResult {
  return errorResult({
    kind: "type_error",
    message:
      `The code does not type-check; fix ${compiled.diagnostics.length > 1 ? "these" : "this"} and ` +
      `run it again. Nothing was run.`,
    diagnostics: compiled.diagnostics,
    ...(compiled.more ? { more: compiled.more } : {}),
  });
}

/** A thrown ServiceError's fields (kind, status, outcome, check, …) without its name and message. */
function serviceFields(thrown: Json): Json {
  const { name: _name, message: _message, stack: _stack, ...rest } = thrown;
  return rest;
}

/**
 * Where in the agent's code an error was thrown: QuickJS's first frame in agent.js, mapped back
 * through the emitter's source map, or as it is when the JavaScript kept the code's positions.
 * The checked file's line 0 is the function's header, so its line n is the code's line n.
 */
function position(stack: string, sourceMap: string | undefined): { line: number; column: number } | undefined {
  const frame = /agent\.js:(\d+)(?::(\d+))?/.exec(stack);
  if (!frame) return undefined;
  if (sourceMap === undefined) return { line: Math.max(1, Number(frame[1]) - 1), column: Number(frame[2] ?? 1) };
  if (!sourceMap) return undefined;
  try {
    const entry = new SourceMap(JSON.parse(sourceMap) as never).findEntry(
      Number(frame[1]) - 1,
      Math.max(0, Number(frame[2] ?? 1) - 1),
    );
    if (!("originalLine" in entry)) return undefined;
    return { line: Math.max(1, entry.originalLine), column: entry.originalColumn + 1 };
  } catch {
    return undefined;
  }
}
