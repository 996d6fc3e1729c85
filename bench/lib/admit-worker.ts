/**
 * One process of bench/limiter-shared.ts's throughput section: `operations` operations on one
 * account, each with a window of its own and one they share (both with ample room, so nothing is
 * refused and only the store's speed counts), 8 calls in flight per operation for `ms`; prints how
 * many calls the store admitted.
 *
 *   tsx bench/lib/admit-worker.ts <folder | redis://…> <operations> <ms>
 */
import { SharedLimitRegistry } from "../../runtime/limits/shared.js";
import { FileStateStore } from "../../runtime/state/file.js";
import { RedisStateStore } from "../../runtime/state/redis.js";
import { readOperation, windowLimit } from "./limit-specs.js";

const [where = "", operations = "5", ms = "5000"] = process.argv.slice(2);
const store = where.startsWith("redis://") ? new RedisStateStore(where) : new FileStateStore(where);
const registry = new SharedLimitRegistry(store);
/** Room no run comes near: only the store's speed counts. */
const AMPLE = 1_000_000;
const plans = Array.from({ length: Number(operations) }, (_, k) =>
  registry.plan(
    "bench-admit",
    [windowLimit(AMPLE, 1, `own${k}`), windowLimit(AMPLE, 1, "shared")],
    readOperation(`op${k}`, `/things${k}`),
    { connection: "acct", fields: {} },
  ),
);
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
