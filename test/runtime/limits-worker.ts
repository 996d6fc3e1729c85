/**
 * One worker process of the multi-process limiter tests (run under tsx by limits-harness.ts). It
 * reads its plan from the STEPFORGE_LIMITS_PLAN environment variable, builds generated clients of
 * the four services against their behavioural mocks, sharing state through the backend the plan
 * names (memory: this process alone, the old behaviour), prints {"ready":true}, reads the start
 * time from its stdin (so slow starts do not skew a run), offers calls at a fixed rate from then
 * for `durationMs`, gives up the calls still waiting at the end, and prints one JSON line with
 * what happened: successes, and failures by kind and code.
 */
import { createServiceClient, createSharedState, type ServiceDescriptor, StepforgeError } from "../../runtime/index.js";
import { descriptor as contentsnare } from "../../generated/contentsnare/descriptor.js";
import { descriptor as marketo } from "../../generated/marketo/descriptor.js";
import { descriptor as trello } from "../../generated/trello/descriptor.js";
import { descriptor as worldnews } from "../../generated/worldnews/descriptor.js";

export interface WorkerPlan {
  backend: "memory" | "file" | "redis";
  /** The connection's name: one per scenario, so scenarios sharing a Redis do not share budgets. */
  account: string;
  stateDir?: string;
  redisUrl?: string;
  /** How long a call may wait for an unreachable store (the Redis outage test). */
  unreachableAfterMs?: number;
  durationMs: number;
  services: Array<{
    id: string;
    url: string;
    fields: Record<string, string>;
    ops: Array<{ operationId: string; init: Record<string, unknown>; perSecond: number }>;
  }>;
}

export interface WorkerReport {
  ok: number;
  /** "service/kind/code" → count (aborted calls that were still waiting at the end are not failures). */
  failed: Record<string, number>;
  /** Calls that failed because the shared state was unreachable, by second since start. */
  unreachableAt: number[];
  error?: string;
}

const descriptors: Record<string, ServiceDescriptor> = { contentsnare, marketo, trello, worldnews };

async function main(): Promise<void> {
  const plan = JSON.parse(process.env.STEPFORGE_LIMITS_PLAN ?? "{}") as WorkerPlan;
  // The harness clears STEPFORGE_REDIS_URL / STEPFORGE_STATE_DIR, so `memory` is one process alone.
  const shared = createSharedState(
    plan.backend === "file"
      ? { stateDir: plan.stateDir }
      : plan.backend === "redis"
        ? { redisUrl: plan.redisUrl, unreachableAfterMs: plan.unreachableAfterMs }
        : {},
  );
  const report: WorkerReport = { ok: 0, failed: {}, unreachableAt: [] };
  const stop = new AbortController();
  const calls: Array<Promise<void>> = [];
  const clients = plan.services.map((service) =>
    createServiceClient(descriptors[service.id]!, {
      connection: { name: plan.account, fields: service.fields },
      baseUrl: service.url,
      shared,
      // Every refusal is counted by the mock; a retry would only hide it.
      retry: { attempts: 0, timeoutMs: 10_000 },
      signal: stop.signal,
    }),
  );
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const startAt = await new Promise<number>((resolve) => {
    let text = "";
    process.stdin.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes("\n")) resolve(Number(text.trim()));
    });
  });
  process.stdin.pause();
  const end = startAt + plan.durationMs;
  for (const [i, service] of plan.services.entries()) {
    const client = clients[i]!;
    for (const op of service.ops) {
      const every = 1000 / op.perSecond;
      for (let at = startAt; at < end; at += every) {
        calls.push(
          (async () => {
            await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
            try {
              await client.call(op.operationId, op.init);
              report.ok++;
            } catch (error) {
              if (stop.signal.aborted) return;
              const e = error as StepforgeError;
              const key = `${service.id}/${e instanceof StepforgeError ? e.kind : "crash"}/${e.code ?? e.status ?? ""}`;
              report.failed[key] = (report.failed[key] ?? 0) + 1;
              if (e.code === "state_unreachable") report.unreachableAt.push(Math.floor((Date.now() - startAt) / 1000));
            }
          })(),
        );
      }
    }
  }
  setTimeout(() => stop.abort(), Math.max(0, end - Date.now()));
  await Promise.all(calls);
  await shared.store.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stdout.write(
    `${JSON.stringify({ ok: 0, failed: {}, unreachableAt: [], error: String((error as Error)?.stack ?? error) })}\n`,
  );
  process.exitCode = 1;
});
