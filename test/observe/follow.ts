/** Reading a call log's `follow` in tests: what it delivers while records are written. */
import type { CallRecord } from "../../runtime/observe/record.js";
import type { CallLogFilter, CallLogSink } from "../../runtime/observe/sink.js";

/**
 * Follows `sink` with `filter`, gives it `settleMs` to open the log (follow starts at the log's end,
 * so records written before it has opened would be missed on a busy machine), runs `write`, then
 * waits at most 5 s for `count` records and stops following. The ids delivered, in order.
 */
export async function followedIds(
  sink: Pick<CallLogSink, "follow">,
  filter: CallLogFilter,
  settleMs: number,
  write: () => Promise<void>,
  count: number,
): Promise<string[]> {
  const got: string[] = [];
  const stop = new AbortController();
  const following = sink.follow(filter, (r) => got.push(r.id), stop.signal);
  await new Promise((r) => setTimeout(r, settleMs));
  await write();
  const deadline = Date.now() + 5000;
  while (got.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await following;
  return got;
}

/** Appends the records `record(from)` to `record(to)` to `sink`, one after another (as calls would). */
export async function appendNumbered(
  sink: Pick<CallLogSink, "append">,
  record: (n: number) => CallRecord,
  from: number,
  to: number,
): Promise<void> {
  for (let n = from; n <= to; n++) await sink.append(record(n));
}
