/**
 * The behavioural Trello mock side by side with what a user would pick instead, on one operation
 * (GET /1/cards/{id}, getCard, with key and token): Prism 5.14 (the contract mock, --errors) and a
 * bare node:http server that sends the very bytes the mock sends (status, headers, body) and does
 * nothing else — the ceiling of any Node mock. Each server runs in its own process; this process
 * only sends requests (node:http, keep-alive, one socket per worker), so the client's cost is the
 * same for all three.
 *
 *   npx tsx bench/mock-vs-prism.ts [--requests 6000] [--concurrency 8,32] [--rounds 3] [--before DIR]
 *
 * `--before DIR` adds a row for the mock of another built checkout (e.g. a worktree of an older
 * commit), measured in the same rounds.
 *
 * Rounds alternate the servers (mock, bare, Prism, mock, …) so a noisy neighbour hurts all of them
 * alike; the table shows the median round. Besides req/s and latency it reports the CPU time each
 * server process spent per request (Linux /proc): on a shared machine req/s swings with the
 * neighbours, while CPU per request — what a server's capacity on one core is made of — moves far
 * less, so the capacity ratios are the steadier figure. The mock runs with its limits off (`--no-limits`), as a
 * load test against it would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { startPrism } from "../runtime/mock/index.js";
import { freePort } from "../test/contract/helpers.js";
import { machineLine, median, table } from "./lib/report.js";

const CARD = "6123a9f0c4b5d6e7f8091a2b";
const AUTH = "key=0123456789abcdef0123456789abcdef&token=ATTAmocktoken0123456789abcdef0123456789abcdef";
const PATH = `/1/cards/${CARD}?${AUTH}`;

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "6000" },
    concurrency: { type: "string", default: "8,32" },
    rounds: { type: "string", default: "3" },
    serve: { type: "string" },
    before: { type: "string" },
  },
});

// ---- the load ------------------------------------------------------------------------------------

interface Run {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** CPU time the server process spent per request, µs (Linux /proc; NaN elsewhere). */
  cpu: number;
}

/**
 * CPU time (user + system) a process has used, in µs, from /proc (10 ms ticks on Linux). On a
 * shared machine req/s swings with the neighbours; CPU per request is what a server's capacity
 * on one core is made of, and moves far less.
 */
function cpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}

function get(agent: Agent, base: URL): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, path: PATH, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function load(url: string, total: number, concurrency: number, pid: number | undefined): Promise<Run> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  for (let i = 0; i < 1000; i++) await get(agent, base); // warm-up: JIT, sockets
  const cpuBefore = cpuMicros(pid);
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const r = await get(agent, base);
        latencies.push(r.ms);
        if (r.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = (cpuMicros(pid) - cpuBefore) / total;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: total / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
    failures,
    cpu,
  };
}

/**
 * The mock as a user runs it: the compiled package (what `stepforge mock` runs), in a plain node
 * process without the TypeScript loader; from source under tsx only when `root` has no dist/.
 * `root` may be another checkout (the "before" row); a generated mock.js registers itself when
 * imported (older checkouts found it by path instead, and importing it first is harmless).
 */
function mockArgs(root: string): string[] {
  const dist = join(root, "dist");
  if (!existsSync(join(dist, "runtime", "mock", "index.js")))
    return ["--import", "tsx", import.meta.filename, "--serve", "mock"];
  const url = (...parts: string[]) => JSON.stringify(pathToFileURL(join(dist, ...parts)).href);
  const code = [
    `const runtime = await import(${url("runtime", "mock", "index.js")});`,
    `await import(${url("generated", "trello", "mock.js")});`,
    `const { descriptor } = await import(${url("generated", "trello", "descriptor.js")});`,
    "const overrides = Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }]));",
    "const mock = await runtime.startMock('trello', { limits: { overrides } });",
    "process.stdout.write(mock.url + ' dist\\n');",
    "process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));",
  ].join("\n");
  return ["--input-type=module", "-e", code];
}

/** The ceiling: node:http sending the mock's captured answer (status, headers, body bytes) and nothing else. */
const BARE = `
import { createServer } from "node:http";
const reply = JSON.parse(process.env.BENCH_REPLY);
const body = Buffer.from(reply.body, "base64");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(reply.status, { ...reply.headers, "content-length": String(body.length) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write("http://127.0.0.1:" + server.address().port + " node\\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

function serve(
  kind: "mock" | "bare",
  env: NodeJS.ProcessEnv = {},
  root = join(import.meta.dirname, ".."),
): Promise<{ url: string; child: ChildProcess; how: string }> {
  const args = kind === "mock" ? mockArgs(root) : ["--input-type=module", "-e", BARE];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  process.once("exit", () => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = /^(http:\/\/\S+) ?(\S*)\n/.exec(out);
      if (line) resolve({ url: line[1]!, child, how: line[2] ?? "" });
    });
    child.once("exit", (code) => reject(new Error(`bench ${kind} server exited ${code}`)));
  });
}

async function capture(url: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const r = await fetch(url + PATH);
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (!["content-length", "connection", "keep-alive", "date", "transfer-encoding"].includes(k)) headers[k] = v;
  });
  return { status: r.status, headers, body: Buffer.from(await r.arrayBuffer()).toString("base64") };
}

async function main(): Promise<void> {
  const total = Number(values.requests);
  const levels = values.concurrency.split(",").map(Number);
  const rounds = Number(values.rounds);
  const mock = await serve("mock");
  const before = values.before ? await serve("mock", {}, values.before) : undefined;
  const bare = await serve("bare", { BENCH_REPLY: JSON.stringify(await capture(mock.url)) });
  const prism = await startPrism({
    specFile: join(import.meta.dirname, "..", "specs", "trello.yaml"),
    port: await freePort(),
    errors: true,
  });
  const servers = [
    { name: `stepforge behavioural mock (${mock.how})`, url: mock.url, pid: mock.child.pid },
    ...(before
      ? [{ name: `stepforge mock before (${values.before}, ${before.how})`, url: before.url, pid: before.child.pid }]
      : []),
    { name: "bare node:http, same bytes", url: bare.url, pid: bare.child.pid },
    { name: "Prism 5.14 --errors", url: prism.url, pid: prism.pid },
  ];
  const bareAt = servers.findIndex((s) => s.url === bare.url);
  const prismAt = servers.length - 1;
  try {
    console.log(`mock throughput — ${machineLine()}`);
    for (const concurrency of levels) {
      const runs = servers.map(() => [] as Run[]);
      for (let round = 0; round < rounds; round++) {
        for (const [i, s] of servers.entries()) runs[i]!.push(await load(s.url, total, concurrency, s.pid));
      }
      const mid = runs.map((rs) => ({
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        failures: rs.reduce((n, r) => n + r.failures, 0),
        cpu: median(rs.map((r) => r.cpu)),
      }));
      const m = mid[0]!;
      console.log(
        `\ngetCard with key and token, ${total} requests × ${rounds} rounds (median ` +
          `shown), ${concurrency} concurrent, keep-alive, 127.0.0.1`,
      );
      console.log(
        table(
          [
            "server",
            "req/s",
            "p50 ms",
            "p99 ms",
            "failures",
            "server CPU µs/req",
            "mock req/s vs this",
            "mock capacity vs this (CPU)",
          ],
          servers.map((s, i) => [
            s.name,
            mid[i]!.rps.toFixed(0),
            mid[i]!.p50.toFixed(2),
            mid[i]!.p99.toFixed(2),
            mid[i]!.failures,
            mid[i]!.cpu.toFixed(0),
            `${(m.rps / mid[i]!.rps).toFixed(2)}×`,
            `${(mid[i]!.cpu / m.cpu).toFixed(2)}×`,
          ]),
        ),
      );
      const bareCpu = mid[bareAt]!.cpu;
      console.log(
        `\nat ${concurrency} concurrent: req/s mock / Prism ${(m.rps / mid[prismAt]!.rps).toFixed(2)}×, ` +
          `mock / bare ${((100 * m.rps) / mid[bareAt]!.rps).toFixed(0)} %; ` +
          `by server CPU per request: mock / Prism ${(mid[prismAt]!.cpu / m.cpu).toFixed(2)}×, ` +
          `mock / bare ${((100 * bareCpu) / m.cpu).toFixed(0)} %`,
      );
    }
  } finally {
    await prism.close();
    for (const c of [mock.child, bare.child, before?.child]) c?.kill("SIGTERM");
  }
}

// ---- the server processes ------------------------------------------------------------------------

if (values.serve === "mock") {
  // From source under tsx, when the checkout has no dist/ (see mockChild).
  const runtime = await import("../runtime/mock/index.js");
  await import("../generated/trello/mock.js");
  const { descriptor } = await import("../generated/trello/descriptor.js");
  const mock = await runtime.startMock("trello", {
    limits: { overrides: Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }])) },
  });
  process.stdout.write(`${mock.url} source\n`);
  process.on("SIGTERM", () => void mock.close().then(() => process.exit(0)));
} else {
  await main();
}
