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
 *   the Trello mock serves it, so the check passes: the cost of checking, not of reporting), each
 *   twice: against an in-process fetch (the runtime's own cost, a call of tens of µs) and over
 *   HTTP against the Trello behavioural mock on 127.0.0.1 (a real call's cost; the mock runs in
 *   this process, so its work is in every row's time, the plain row's too).
 *
 * The variants run in alternating rounds (A B C A B C …) so drift of the machine affects them
 * alike; each figure is the median µs per call over the rounds, a log's writes included (each
 * round ends when its records are written). The tracing tables give wall clock and CPU time (this
 * process's user + system time: on a machine shared with other jobs, wall clock also counts the
 * time this process waited for a core) and the worst round (its ratio to the plain row's round).
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

/** One way of making the call, timed beside the others. */
interface Timed {
  label: string;
  run: () => Promise<unknown>;
  /** Waits for what the variant still has to do (its spans exported): its cost belongs to the round. */
  settle?: (() => Promise<void>) | undefined;
}

/** µs per call of each variant in each round, wall clock and CPU; the variants alternate (A B C A B C …). */
async function timeRounds(variants: Timed[], perRound: number, count: number): Promise<Map<string, Sample[]>> {
  for (const v of variants) for (let i = 0; i < Math.min(300, perRound); i++) await v.run(); // warm-up
  for (const v of variants) await v.settle?.();
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.label, []]));
  for (let r = 0; r < count; r++) {
    for (const v of variants) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await v.run();
      await v.settle?.();
      const wall = ((performance.now() - started) * 1000) / perRound;
      const used = process.cpuUsage(cpu);
      samples.get(v.label)!.push({ wall, cpu: (used.user + used.system) / perRound });
    }
  }
  return samples;
}

/** One round of one variant: wall-clock µs per call, and CPU µs per call (this process, all threads). */
interface Sample {
  wall: number;
  cpu: number;
}

interface Summary {
  us: number;
  ratio: number;
  worst: number;
}

/**
 * Median µs and the median's ratio against the first variant, and the worst round: the largest
 * ratio of a round against the first variant's same round (rounds alternate, so each pair saw the
 * same machine).
 */
function summary(samples: Map<string, Sample[]>, of: keyof Sample): Map<string, Summary> {
  const plain = [...samples.values()][0]!.map((x) => x[of]);
  const base = median(plain);
  return new Map(
    [...samples].map(([label, rounds]) => {
      const xs = rounds.map((x) => x[of]);
      return [label, { us: median(xs), ratio: median(xs) / base, worst: Math.max(...xs.map((x, i) => x / plain[i]!)) }];
    }),
  );
}

const GOAL = 1.2;
const mark = (r: number) => `${r.toFixed(2)}×${r <= GOAL ? "" : " ✗"}`;

async function tracingAndValidation(): Promise<void> {
  const limits = Object.fromEntries(trelloDescriptor.limits.map((l) => [l.id, { disabled: true }]));
  // The mock's own rate limits off too: every call is answered at once, none is held or refused.
  const mock = await startMock("trello", { limits: { overrides: limits } });
  const dropAll: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const processor = new BatchSpanProcessor(dropAll, { maxQueueSize: 65536, maxExportBatchSize: 4096 });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("bench");
  try {
    const connection = { name: "bench", fields: AUTH, limits };
    const init = { params: { path: { id: CARD.id } } };
    // The card as the mock serves it: the in-process answer passes validation as the mock's does.
    const probe = createServiceClient(trelloDescriptor, { connection, baseUrl: mock.url, validate: "off" });
    const body = JSON.stringify(await probe.call("getCard", init));
    const inProcess: typeof fetch = async () =>
      new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    const flush = () => processor.forceFlush();
    const variants = [
      { label: "plain", options: {} },
      // An observer that names no event types reads all: the request and response events with their
      // masked addresses are built for it (a logger pays this; a tracer reads fewer types).
      { label: "all events (an observer of every type)", options: { observers: [{ onEvent() {} }] } },
      { label: "tracing (SDK, exporter drops)", options: { tracing: { tracer } }, settle: flush },
      { label: 'validate: "warn"', options: { validate: "warn" as const } },
      { label: "tracing + validate", options: { tracing: { tracer }, validate: "warn" as const }, settle: flush },
    ];
    const transports = [
      { name: "in-process fetch", fetch: inProcess, baseUrl: undefined, perRound: quick ? 300 : 1000 },
      { name: "HTTP, Trello mock on 127.0.0.1", fetch: undefined, baseUrl: mock.url, perRound: quick ? 100 : 300 },
    ];
    const count = quick ? 5 : 9;
    const input = { id: CARD.id };
    for (const level of ["tool call", "client call"] as const) {
      const results: Map<string, Sample[]>[] = [];
      for (const t of transports) {
        const timed: Timed[] = variants.map((v) => {
          const base = { connection, shared: createSharedState(), callLog: false as const, validate: "off" as const };
          const context: ToolContext = { ...base, tracing: false, fetch: t.fetch, baseUrl: t.baseUrl, ...v.options };
          if (level === "tool call") {
            return { label: v.label, run: () => executeTool(trelloGetCard, input, context), settle: v.settle };
          }
          const client: ServiceClient = createServiceClient(trelloDescriptor, context);
          return { label: v.label, run: () => client.call("getCard", init), settle: v.settle };
        });
        results.push(await timeRounds(timed, t.perRound, count));
      }
      console.log(
        `\n${level}: ${transports.map((t) => `${t.name} ${t.perRound}`).join(" / ")} sequential calls × ${count} ` +
          "rounds; µs/call and ratio to plain are medians of the rounds, worst the largest round's ratio " +
          `(✗: over the ${GOAL}× goal)`,
      );
      for (const of of ["wall", "cpu"] as const) {
        const summaries = results.map((r) => summary(r, of));
        const rows = variants.map((v) => [
          v.label,
          ...summaries.flatMap((m) => {
            const { us, ratio, worst } = m.get(v.label)!;
            return [us.toFixed(1), mark(ratio), mark(worst)];
          }),
        ]);
        const unit = of === "wall" ? "wall µs" : "CPU µs";
        const what = of === "wall" ? "wall clock" : "CPU time (this process: client, SDK and, over HTTP, the mock)";
        console.log(`\n${what}`);
        console.log(table(["variant", `in-process ${unit}`, "ratio", "worst", `HTTP ${unit}`, "ratio", "worst"], rows));
      }
    }
  } finally {
    await provider.shutdown();
    await mock.close();
  }
}

console.log(`stepforge observability overhead — ${machineLine()}`);
if (!process.argv.includes("--tracing-only")) await toolCalls();
// `--call-log-only`: the tool-call table alone (the call log and logger rows), for a quick before/after.
if (!process.argv.includes("--call-log-only")) await tracingAndValidation();
