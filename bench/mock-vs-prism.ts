/**
 * Requests per second of the behavioural Trello mock against Prism 5.14 on the same operation
 * (GET /1/cards/{id}, getCard), side by side in one run, on loopback. Bounded: a fixed number of
 * requests per tool, sent by a fixed number of concurrent workers with Node's fetch (keep-alive).
 *
 *   npx tsx bench/mock-vs-prism.ts [--requests 2000] [--concurrency 8]
 *
 * The mock runs with its limits switched off (the default 100 / 10 s per token would refuse most of
 * the run); Prism runs as the contract tests run it, with --errors.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startMock, startPrism } from "../runtime/mock/index.js";
import { freePort } from "../test/contract/helpers.js";
import { machineLine, table } from "./lib/report.js";

const { values } = parseArgs({ options: { requests: { type: "string", default: "2000" }, concurrency: { type: "string", default: "8" } } });
const total = Number(values.requests);
const concurrency = Number(values.concurrency);
const card = "6123a9f0c4b5d6e7f8091a2b";
const auth = "key=0123456789abcdef0123456789abcdef&token=ATTAmocktoken0123456789abcdef0123456789abcdef";

async function run(base: string): Promise<{ seconds: number; rps: number; failures: number }> {
  const url = `${base}/1/cards/${card}?${auth}`;
  for (let i = 0; i < 100; i++) await (await fetch(url)).arrayBuffer(); // warm-up
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const r = await fetch(url);
        await r.arrayBuffer();
        if (r.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, rps: total / seconds, failures };
}

const mock = await startMock("trello", { limits: { perToken: { disabled: true }, perKey: { disabled: true }, members: { disabled: true } } });
const prism = await startPrism({ specFile: join(import.meta.dirname, "..", "specs", "trello.yaml"), port: await freePort(), errors: true });
try {
  const m = await run(mock.url);
  const p = await run(prism.url);
  const row = (name: string, r: { seconds: number; rps: number; failures: number }) => [name, total, r.seconds.toFixed(2), r.rps.toFixed(0), r.failures, `${(r.rps / m.rps).toFixed(2)}×`];
  console.log(`mock throughput — ${machineLine()}`);
  console.log(`\ngetCard, ${total} requests per tool, ${concurrency} concurrent, 127.0.0.1`);
  console.log(table(["server", "requests", "seconds", "req/s", "failures", "req/s vs stepforge mock"], [row("stepforge behavioural mock", m), row("Prism 5.14 --errors", p)]));
  console.log(`\nbehavioural mock / Prism: ${(m.rps / p.rps).toFixed(2)}×`);
} finally {
  await mock.close();
  await prism.close();
}
