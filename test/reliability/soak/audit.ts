/** The checks on a soak's result: duplicate writes, a settled heap, tallies. */
import v8 from "node:v8";
import vm from "node:vm";
import type { RunningMock } from "../../../runtime/mock/index.js";
import { AMBIGUOUS, type Outcome } from "./run.js";
import { CREATED, type Service } from "./settings.js";

export interface WriteAudit {
  resource: string;
  /** Create calls made / succeeded / ended ambiguous / refused for sure. */
  calls: number;
  succeeded: number;
  ambiguous: number;
  refused: number;
  /** Records with a soak key in the mock, and how many of them ambiguous calls left behind. */
  records: number;
  appliedAmbiguous: number;
  /** The mock's own create counter for the resource, over its count of seeded records. */
  mockCreates: number;
  problems: string[];
}

/**
 * No duplicate write: every create carries a key no other call uses, so each key may appear at most
 * once in the mock's records. A successful create's key appears exactly once, under the id the step
 * returned; a create refused for sure (rate-limited, not found...) left nothing; an ambiguous one
 * (5xx, dropped, timed out) left at most one. The mock's create counter equals the number of new
 * records: nothing was created and dropped from view, and no resend made a second one.
 */
export function auditCreates(
  service: Service,
  outcomes: Outcome[],
  mock: RunningMock,
  seeded: Record<string, number>,
): WriteAudit[] {
  const audits: WriteAudit[] = [];
  for (const { resource, key } of CREATED[service]) {
    const creates = outcomes.filter((o) => o.call.creates?.resource === resource);
    const records = mock.records(resource);
    const soakRecords = records.filter(
      (r) => typeof key(r) === "string" && String(key(r)).startsWith("soak") && String(key(r)).includes(`${service}-`),
    );
    const byKey = new Map<string, Array<Record<string, unknown>>>();
    for (const r of soakRecords) {
      const k = String(key(r));
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
    }
    const audit: WriteAudit = {
      resource,
      calls: creates.length,
      succeeded: 0,
      ambiguous: 0,
      refused: 0,
      records: soakRecords.length,
      appliedAmbiguous: 0,
      mockCreates: mock.counters().creates[resource] ?? 0,
      problems: [],
    };
    for (const [k, list] of byKey)
      if (list.length > 1) audit.problems.push(`${resource} "${k}" was created ${list.length} times`);
    const planned = new Set(creates.map((o) => o.call.creates!.key));
    for (const k of byKey.keys()) if (!planned.has(k)) audit.problems.push(`${resource} "${k}" matches no create call`);
    for (const o of creates) {
      const k = o.call.creates!.key;
      const found = byKey.get(k) ?? [];
      const r = o.result;
      if (r?.ok) {
        audit.succeeded++;
        if (found.length !== 1)
          audit.problems.push(`#${o.call.seq} succeeded but "${k}" is there ${found.length} times`);
        const id = o.createdId;
        if (id === undefined) audit.problems.push(`#${o.call.seq} succeeded without an id`);
        else if (found[0] && String(found[0].id) !== String(id))
          audit.problems.push(
            `#${o.call.seq} returned id ${String(id)}, the record of "${k}" is ${String(found[0].id)}`,
          );
      } else if (r && AMBIGUOUS.has(r.error.kind)) {
        audit.ambiguous++;
        if (found.length === 1) audit.appliedAmbiguous++;
      } else {
        audit.refused++;
        if (found.length > 0)
          audit.problems.push(
            `#${o.call.seq} ended ${r?.ok === false ? r.error.kind : "?"} (refused) but "${k}" was created`,
          );
      }
    }
    const expectedNew = records.length - (seeded[resource] ?? 0);
    if (audit.mockCreates !== expectedNew)
      audit.problems.push(
        `the mock counted ${audit.mockCreates} ${resource} creates but holds ${expectedNew} new records`,
      );
    if (soakRecords.length !== expectedNew)
      audit.problems.push(`${expectedNew - soakRecords.length} new ${resource} records carry no soak key`);
    audits.push(audit);
  }
  return audits;
}

/** A full GC when the process allows it (vitest forks run without --expose-gc). */
export function forceGc(): boolean {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    try {
      v8.setFlagsFromString("--expose-gc");
      gc = vm.runInNewContext("gc") as () => void;
    } catch {
      gc = undefined;
    }
  }
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** heapUsed after the sockets and timers of the calls have settled and (when possible) a full GC. */
export async function settledHeap(): Promise<{ bytes: number; collected: boolean }> {
  await new Promise((r) => setTimeout(r, 50));
  const collected = forceGc();
  return { bytes: process.memoryUsage().heapUsed, collected };
}

export function tally<T>(items: T[], key: (item: T) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
