/**
 * What observability costs per call (`npx tsx bench/observe.ts [--quick] [--call-log-only |
 * --tracing-only]`), side by side with the same call without it, in one process:
 *
 * - a tool call (`executeTool`, Trello's get-card step, against an in-process fetch so only the
 *   runtime's own cost is measured) with no call log, with the JSONL file log, with the Redis
 *   stream log (when a redis-server binary is present), and with a logger at debug level;
 * - the same tool call and a plain client call (`client.call("getCard")`) with tracing on (the
 *   OpenTelemetry SDK with a batch processor and an exporter that drops what it gets: the cost of
 *   building and ending the spans, not of shipping them) and with `validate: "warn"` (the card as
 *   the Trello mock serves it, so the check passes: the cost of checking, not of reporting);
 *
 * The variants run in alternating rounds (A B C A B C …) so drift of the machine affects them
 * alike; each figure is the median µs per call over the rounds, a log's writes included (each
 * round ends when its records are written).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { descriptor as trelloDescriptor } from "../generated/trello/descriptor.js";
import { trelloGetCard } from "../generated/trello/tools.js";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { createServiceClient, createSharedState, type ServiceClient } from "../runtime/index.js";
import { startMock } from "../runtime/mock/index.js";
import "../generated/trello/mock.js";
import { type CallLog, createCallLog, type Logger } from "../runtime/observe/index.js";
import { executeTool, type ToolContext } from "../runtime/tools/index.js";
import { haveRedis, startRedis } from "../test/helpers/redis.js";
import { machineLine, median, ratio, table } from "./lib/report.js";

const quick = process.argv.includes("--quick");
const CARD = { id: "6123a9f0c4b5d6e7f8091a2b", name: "Bench", idList: "60d5ecb74e2a1b3c4d5e6f72" };
const BODY = JSON.stringify(CARD);
const AUTH = { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" };

interface Variant {
  label: string;
  context: ToolContext;
  /** Waits for what the variant still has to write (its cost belongs to the round). */
  settle?: () => Promise<void>;
}

async function rounds(variants: Variant[], perRound: number, count: number): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.label, []]));
  const input = { id: CARD.id };
  for (const v of variants) for (let i = 0; i < 300; i++) await executeTool(trelloGetCard, input, v.context); // warm-up
  for (const v of variants) await v.settle?.();
  for (let r = 0; r < count; r++) {
    for (const v of variants) {
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await executeTool(trelloGetCard, input, v.context);
      await v.settle?.();
      samples.get(v.label)!.push(((performance.now() - started) * 1000) / perRound);
    }
  }
  return new Map([...samples].map(([label, xs]) => [label, median(xs)]));
}

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

async function toolCalls(): Promise<void> {
  const fetchImpl: typeof fetch = async () =>
    new Response(BODY, { status: 200, headers: { "content-type": "application/json" } });
  // Limits off: the runtime's own cost, not waiting for a budget.
  const limits = Object.fromEntries(trelloDescriptor.limits.map((l) => [l.id, { disabled: true }]));
  const base: ToolContext = {
    connection: { name: "bench", fields: AUTH, limits },
    fetch: fetchImpl,
    shared: createSharedState(),
  };
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-observe-"));
  const logs: CallLog[] = [];
  const log = (config: Parameters<typeof createCallLog>[0]) => {
    const made = createCallLog(config);
    logs.push(made);
    return made;
  };
  const fileLog = log({ file: join(dir, "calls.jsonl"), fileOptions: { maxBytes: 256 * 1024 * 1024 } });
  const variants: Variant[] = [
    { label: "no call log", context: { ...base, callLog: false } },
    { label: "call log: JSONL file", context: { ...base, callLog: fileLog }, settle: () => fileLog.flush() },
    { label: "logger (debug, no-op sink)", context: { ...base, callLog: false, logger: silent } },
  ];
  const redis = haveRedis() ? await startRedis() : undefined;
  if (redis) {
    const redisLog = log({ redisUrl: redis.url });
    variants.splice(2, 0, {
      label: "call log: Redis stream",
      context: { ...base, callLog: redisLog },
      settle: () => redisLog.flush(),
    });
  }
  try {
    const perRound = quick ? 300 : 1000;
    const count = quick ? 5 : 9;
    const results = await rounds(variants, perRound, count);
    const off = results.get("no call log")!;
    console.log(
      `\ntool call (executeTool, in-process fetch; ${perRound} sequential calls × ${count} rounds, median µs/call)`,
    );
    console.log(
      table(
        ["variant", "µs/call", "vs none"],
        [...results].map(([label, us]) => [label, us.toFixed(1), ratio(us, off)]),
      ),
    );
  } finally {
    for (const l of logs) await l.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The card as the Trello mock serves it: an answer that passes validation. */
async function mockCard(): Promise<string> {
  const mock = await startMock("trello");
  try {
    const connection = { name: "b", fields: AUTH };
    const client = createServiceClient(trelloDescriptor, { connection, baseUrl: mock.url });
    return JSON.stringify(await client.call("getCard", { params: { path: { id: CARD.id } } }));
  } finally {
    await mock.close();
  }
}

async function tracingAndValidation(): Promise<void> {
  const body = await mockCard();
  const fetchImpl: typeof fetch = async () =>
    new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  const limits = Object.fromEntries(trelloDescriptor.limits.map((l) => [l.id, { disabled: true }]));
  const dropAll: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const processor = new BatchSpanProcessor(dropAll, { maxQueueSize: 65536, maxExportBatchSize: 4096 });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("bench");
  const base: ToolContext = {
    connection: { name: "bench", fields: AUTH, limits },
    fetch: fetchImpl,
    shared: createSharedState(),
    callLog: false,
    validate: "off",
    tracing: false,
  };
  const variants: Variant[] = [
    { label: "plain", context: { ...base } },
    // The pipeline builds its events only when someone listens: this row is that cost alone.
    { label: "events on (a no-op observer)", context: { ...base, observers: [{ onEvent() {} }] } },
    {
      label: "tracing (SDK, exporter drops)",
      context: { ...base, tracing: { tracer } },
      settle: () => processor.forceFlush(),
    },
    { label: 'validate: "warn"', context: { ...base, validate: "warn" } },
    {
      label: "tracing + validate",
      context: { ...base, tracing: { tracer }, validate: "warn" },
      settle: () => processor.forceFlush(),
    },
  ];
  const perRound = quick ? 300 : 1000;
  const count = quick ? 5 : 9;
  const tools = await rounds(variants, perRound, count);
  const plainTool = tools.get("plain")!;
  const shape = `${perRound} sequential calls × ${count} rounds, median µs/call`;
  const rows = (m: Map<string, number>, against: number) =>
    [...m].map(([l, us]) => [l, us.toFixed(1), ratio(us, against)]);
  console.log(`\ntool call with tracing / validation (${shape})`);
  console.log(table(["variant", "µs/call", "vs plain"], rows(tools, plainTool)));

  // The same, one level down: the typed client's call, no tool step around it (no tool span).
  const clients = variants.map((v) => ({
    label: v.label,
    client: createServiceClient(trelloDescriptor, v.context),
    settle: v.settle,
  }));
  const init = { params: { path: { id: CARD.id } } };
  const run = (c: ServiceClient) => c.call("getCard", init);
  for (const c of clients) for (let i = 0; i < 300; i++) await run(c.client);
  const samples = new Map<string, number[]>(clients.map((c) => [c.label, []]));
  for (let r = 0; r < count; r++) {
    for (const c of clients) {
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await run(c.client);
      await c.settle?.();
      samples.get(c.label)!.push(((performance.now() - started) * 1000) / perRound);
    }
  }
  const calls = new Map([...samples].map(([l, xs]) => [l, median(xs)]));
  const plainCall = calls.get("plain")!;
  console.log(`\nclient call with tracing / validation (${shape})`);
  console.log(table(["variant", "µs/call", "vs plain"], rows(calls, plainCall)));
  await provider.shutdown();
}

console.log(`stepforge observability overhead — ${machineLine()}`);
if (!process.argv.includes("--tracing-only")) await toolCalls();
// `--call-log-only`: the tool-call table alone (the call log and logger rows), for a quick before/after.
if (!process.argv.includes("--call-log-only")) await tracingAndValidation();
