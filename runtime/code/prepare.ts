/**
 * Building the code mode: the listing at once; the declarations (printed by the compiler, ~1 s
 * for the four services), the warm checker and the bridge in the background, so `tools/list`
 * answers without waiting and the first search or execute waits only for what is left.
 */
import { createHash } from "node:crypto";
import type { Accounts } from "../mcp/accounts.js";
import { selectTools, toolsetsOf, type Selection, type ServiceCatalog } from "../mcp/catalog.js";
import { Bridge, type BridgeService } from "./bridge.js";
import { buildDeclarations, type ServiceDeclarations } from "./declarations.js";
import { operationTypesDeclarations, loadCompiler, loadTypeBlanker, type CodeService } from "./load.js";
import { CodeMode, type Prepared } from "./mode.js";
import { DEFAULT_BUDGETS, type SandboxBudgets, type ShapeEntry } from "./protocol.js";
import { Sandbox } from "./sandbox.js";
import { searchEntries } from "./search.js";
import { CodeChecker, type TypeBlanker } from "./typecheck.js";
import { InlineSandbox } from "./inline.js";
import type * as TS from "typescript";

export interface CodeModeOptions {
  /** The services the code may call (see loadCodeServices). */
  services: readonly CodeService[];
  /** The accounts calls run with; with several for a service the code names one. */
  connections: Accounts;
  /** Services, toolsets (their steps' operations), read-only (GET and HEAD only). */
  selection?: Selection | undefined;
  budgets?: Partial<SandboxBudgets> | undefined;
  /** Budget of one result's JSON in bytes (default 40,000, as the direct tools'). */
  resultBytes?: number | undefined;
  /** Longest a client-side limit may hold a call (default 10,000 ms; see StepforgeMcp). */
  maxLimitWaitMs?: number | undefined;
  /** The server's shutdown: cancels every run and call. */
  signal?: AbortSignal | undefined;
  /** Runs at once, each in a QuickJS module of its own (default 2). */
  workers?: number | undefined;
  /**
   * Where QuickJS runs: on worker threads (`worker`, the default; sandbox.ts) or on the server's
   * thread (`inline`: no thread hop per call, but the code's CPU time, up to its budget, holds the
   * server's thread; see inline.ts). Inline suits a server with one client (stdio).
   */
  sandbox?: "inline" | "worker" | undefined;
  /**
   * Start the code in the sandbox while it is type-checked, its calls held until the check passes
   * (default true). False: check first, then start the run (the order before; kept for measuring).
   */
  runWhileChecking?: boolean | undefined;
}

const DEFAULT_RESULT_BYTES = 40_000;
const DEFAULT_MAX_LIMIT_WAIT_MS = 10_000;

/** Declarations by their inputs: a test suite or a server builds the same ones many times. */
const declarationCache = new Map<string, ServiceDeclarations[]>();

/**
 * The client methods the code may call: the operations the selection's tool steps run (all steps
 * when no toolsets are named), reads only when read-only. An operation without a step is one the
 * spec keeps from agents (`x-stepforge-tool: skip`: a token endpoint, for one), and stays out here
 * too: code mode offers the same operations as the direct tools, not more.
 */
function methodsOf(services: readonly CodeService[], selection: Selection | undefined): Map<string, Set<string>> {
  const catalogs = services.map((s) => s.catalog);
  const picked = selectTools(catalogs, { ...selection, readOnly: false });
  const out = new Map<string, Set<string>>();
  for (const { catalog } of services) {
    const operations = catalog.tools[0]?.descriptor.operations ?? {};
    const names = new Set<string>();
    for (const step of picked) {
      if (step.kind !== "operation" || step.service !== catalog.id) continue;
      const op = operations[step.operationId];
      if (!op || (selection?.readOnly && op.method !== "GET" && op.method !== "HEAD")) continue;
      names.add(step.operationId);
    }
    out.set(catalog.id, names);
  }
  return out;
}

/** Builds the code mode; fails at once when the compiler is not installed. */
export async function createCodeMode(options: CodeModeOptions): Promise<CodeMode> {
  const compiler = loadCompiler();
  const ts = compiler.ts;
  // ts-blank-space walks the tree with its own `import "typescript"`: TypeScript 7's, when the
  // compiler here is ts-morph's copy, so it is left out then (the emitter strips the types instead).
  const blank = compiler.from === "typescript" ? await loadTypeBlanker() : undefined;
  const ids = options.selection?.services?.length
    ? options.selection.services
    : options.services.map((s) => s.catalog.id);
  for (const id of ids) {
    if (!options.services.some((s) => s.catalog.id === id))
      throw new Error(
        `unknown service "${id}"; the services are ${options.services.map((s) => s.catalog.id).join(", ")}`,
      );
  }
  const services = options.services.filter((s) => ids.includes(s.catalog.id));
  const accounts = new Map(services.map((s) => [s.catalog.id, options.connections.names(s.catalog.id)]));
  const budgets = { ...DEFAULT_BUDGETS, ...options.budgets };
  const sandbox =
    options.sandbox === "inline"
      ? new InlineSandbox({ engines: options.workers, memoryBytes: budgets.memoryBytes })
      : new Sandbox({ workers: options.workers, memoryBytes: budgets.memoryBytes });
  void sandbox.warm().catch(() => {});
  // After this turn, so that whoever creates the code mode can list its tools at once.
  const prepared = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
    prepare(ts, blank, compiler.readLib, services, accounts, options),
  );
  return new CodeMode({
    services: services.map((s) => s.catalog.id),
    accounts,
    budgets,
    resultBytes: options.resultBytes ?? DEFAULT_RESULT_BYTES,
    readOnly: options.selection?.readOnly === true,
    runWhileChecking: options.runWhileChecking !== false,
    sandbox,
    prepared,
    signal: options.signal,
  });
}

function prepare(
  ts: typeof TS,
  blank: TypeBlanker | undefined,
  readLib: (name: string) => string | undefined,
  services: CodeService[],
  accounts: Map<string, readonly string[]>,
  options: CodeModeOptions,
): Prepared {
  const methods = methodsOf(services, options.selection);
  const operationTypes = operationTypesDeclarations();
  const key = createHash("sha256")
    .update(
      JSON.stringify([
        services.map((s) => [s.catalog.id, s.client, s.types]),
        [...methods].map(([k, v]) => [k, [...v]]),
      ]),
    )
    .digest("hex");
  let declarations = declarationCache.get(key);
  if (!declarations) {
    declarations = buildDeclarations(ts, {
      services: services.map((s) => ({ id: s.catalog.id, client: s.client, types: s.types })),
      operationTypes,
      methods,
    });
    declarationCache.set(key, declarations);
  }
  const catalogs: ServiceCatalog[] = services.map((s) => s.catalog);
  const descriptorOf = (id: string) => services.find((s) => s.catalog.id === id)!.catalog.tools[0]!.descriptor;
  const bridgeServices = new Map<string, BridgeService>(
    declarations.map((d) => [
      d.id,
      {
        id: d.id,
        descriptor: descriptorOf(d.id),
        operations: new Map(d.operations.map((op) => [op.method, op])),
        steps: services.find((s) => s.catalog.id === d.id)!.catalog.tools,
      },
    ]),
  );
  const bridge = new Bridge(bridgeServices, options.connections, {
    maxLimitWaitMs: options.maxLimitWaitMs ?? DEFAULT_MAX_LIMIT_WAIT_MS,
    signal: options.signal,
  });
  const checker = new CodeChecker(ts, { declarations, accounts }, { blank, readLib });
  // A first check now: the library files are read and bound before the first run needs them.
  checker.check("return 0;");
  const http = (service: string, method: string) => {
    const op = descriptorOf(service).operations[method];
    return op ? `${op.method} ${op.path}` : "";
  };
  const tags = (service: string, method: string) => {
    const steps =
      catalogs.find((c) => c.id === service)?.tools.filter((t) => t.kind === "operation" && t.operationId === method) ??
      [];
    return [...new Set(steps.flatMap((t) => toolsetsOf(catalogs, t)))];
  };
  const write = (service: string, method: string) =>
    !["GET", "HEAD"].includes(descriptorOf(service).operations[method]?.method ?? "GET");
  const entries = searchEntries(declarations, http, tags, write, (id) => accounts.get(id) ?? []);
  const shape: ShapeEntry[] = declarations.map((d) => {
    const names = accounts.get(d.id) ?? [];
    return {
      id: d.id,
      ...(names.length > 1 ? { accounts: [...names] } : {}),
      methods: d.operations.map((op) => op.method),
    };
  });
  return { declarations, checker, bridge, entries, shape };
}
