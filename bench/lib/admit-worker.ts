/**
 * One process of bench/limiter-shared.ts's throughput section: `operations` operations on one
 * account, each with a window of its own and one they share (both with ample room, so nothing is
 * refused and only the store's speed counts), 8 calls in flight per operation for `ms`; prints how
 * many calls the store admitted.
 *
 *   tsx bench/lib/admit-worker.ts <folder | redis://…> <operations> <ms>
 */
import type { LimitSpec, OperationDescriptor } from "../../runtime/descriptor.js";
import { SharedLimitRegistry } from "../../runtime/limits/shared.js";
import { FileStateStore } from "../../runtime/state/file.js";
import { RedisStateStore } from "../../runtime/state/redis.js";

const [where = "", operations = "5", ms = "5000"] = process.argv.slice(2);
const store = where.startsWith("redis://") ? new RedisStateStore(where) : new FileStateStore(where);
const registry = new SharedLimitRegistry(store);
const ample = (id: string): LimitSpec =>
  ({
    id,
    kind: "window",
    requests: 1_000_000,
    windowSeconds: 1,
    applies: "all",
    per: "connection",
    description: "ample",
    rejection: { status: 429 },
  }) as LimitSpec;
const plans = Array.from({ length: Number(operations) }, (_, k) => {
  const op: OperationDescriptor = {
    operationId: `op${k}`,
    method: "GET",
    path: `/things${k}`,
    idempotent: true,
    limitClass: "read",
  };
  return registry.plan("bench-admit", [ample(`own${k}`), ample("shared")], op, { connection: "acct", fields: {} });
});
const end = Date.now() + Number(ms);
let admitted = 0;
const caller = async (planned: (typeof plans)[number]) => {
  while (Date.now() < end) {
    const ticket = await registry.acquire(planned);
    admitted++;
    ticket.release({ sent: true });
  }
};
await Promise.all(plans.flatMap((planned) => Array.from({ length: 8 }, () => caller(planned))));
console.log(admitted);
await store.close();
process.exit(0);
