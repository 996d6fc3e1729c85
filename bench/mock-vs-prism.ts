/**
 * The behavioural Trello mock side by side with what a user would pick instead, on one operation
 * (GET /1/cards/{id}, getCard, with key and token): Prism 5.14 (the contract mock, --errors) and a
 * bare node:http server that sends the very bytes the mock sends (status, headers, body) and does
 * nothing else — the ceiling of any Node mock. Each server runs in its own process; this process
 * only sends requests (node:http, keep-alive, one socket per worker), so the client's cost is the
 * same for all three.
 *
 *   npx tsx bench/mock-vs-prism.ts [--requests 4000] [--concurrency 8,32] [--rounds 3]
 *
 * Rounds alternate the servers (mock, bare, Prism, mock, …) so a noisy neighbour hurts all of them
 * alike; the table shows the median round. The mock runs with its limits off (`--no-limits`), as a
 * load test against it would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startMock, startPrism } from "../runtime/mock/index.js";
// Each generated mock registers itself when imported, so startMock("<id>") finds it.
import "../generated/contentsnare/mock.js";
import "../generated/marketo/mock.js";
import "../generated/trello/mock.js";
import "../generated/worldnews/mock.js";
import { freePort } from "../test/contract/helpers.js";
import { machineLine, median, table } from "./lib/report.js";

const CARD = "6123a9f0c4b5d6e7f8091a2b";
const AUTH = "key=0123456789abcdef0123456789abcdef&token=ATTAmocktoken0123456789abcdef0123456789abcdef";
const PATH = `/1/cards/${CARD}?${AUTH}`;

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "4000" },
    concurrency: { type: "string", default: "8,32" },
    rounds: { type: "string", default: "3" },
    serve: { type: "string" },
  },
});

// ---- the server processes ------------------------------------------------------------------------

if (values.serve === "mock") {
  const { descriptor } = await import("../generated/trello/descriptor.js");
  const mock = await startMock("trello", { limits: Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }])) });
  process.stdout.write(`${mock.url}\n`);
  process.on("SIGTERM", () => void mock.close().then(() => process.exit(0)));
} else if (values.serve === "bare") {
  // The mock's answer, captured once, sent as is: same status, headers and body bytes.
  const reply = JSON.parse(process.env.BENCH_REPLY!) as { status: number; headers: Record<string, string>; body: string };
  const body = Buffer.from(reply.body, "base64");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(reply.status, { ...reply.headers, "content-length": String(body.length) });
      res.end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
} else {
  await main();
}

// ---- the load ------------------------------------------------------------------------------------

interface Run {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
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

async function load(url: string, total: number, concurrency: number): Promise<Run> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  for (let i = 0; i < 200; i++) await get(agent, base); // warm-up: JIT, sockets
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
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: latencies[Math.floor(latencies.length * 0.5)]!, p99: latencies[Math.floor(latencies.length * 0.99)]!, failures };
}

function serve(kind: "mock" | "bare", env: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", import.meta.filename, "--serve", kind], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } });
  process.once("exit", () => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = /^(http:\/\/\S+)\n/.exec(out);
      if (line) resolve({ url: line[1]!, child });
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
  const bare = await serve("bare", { BENCH_REPLY: JSON.stringify(await capture(mock.url)) });
  const prism = await startPrism({ specFile: join(import.meta.dirname, "..", "specs", "trello.yaml"), port: await freePort(), errors: true });
  const servers = [
    { name: "stepforge behavioural mock", url: mock.url },
    { name: "bare node:http, same bytes", url: bare.url },
    { name: "Prism 5.14 --errors", url: prism.url },
  ];
  try {
    console.log(`mock throughput — ${machineLine()}`);
    for (const concurrency of levels) {
      const runs = servers.map(() => [] as Run[]);
      for (let round = 0; round < rounds; round++) {
        for (const [i, s] of servers.entries()) runs[i]!.push(await load(s.url, total, concurrency));
      }
      const mid = runs.map((rs) => ({
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        failures: rs.reduce((n, r) => n + r.failures, 0),
      }));
      const m = mid[0]!;
      console.log(`\ngetCard with key and token, ${total} requests × ${rounds} rounds (median shown), ${concurrency} concurrent, keep-alive, 127.0.0.1`);
      console.log(
        table(
          ["server", "req/s", "p50 ms", "p99 ms", "failures", "mock req/s vs this"],
          servers.map((s, i) => [s.name, mid[i]!.rps.toFixed(0), mid[i]!.p50.toFixed(2), mid[i]!.p99.toFixed(2), mid[i]!.failures, `${(m.rps / mid[i]!.rps).toFixed(2)}×`]),
        ),
      );
      console.log(`\nat ${concurrency} concurrent: mock / Prism ${(m.rps / mid[2]!.rps).toFixed(2)}×, mock / bare ${((100 * m.rps) / mid[1]!.rps).toFixed(0)} %`);
    }
  } finally {
    await prism.close();
    for (const c of [mock.child, bare.child]) c.kill("SIGTERM");
  }
}
