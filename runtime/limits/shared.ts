/**
 * The limiter over the shared state layer: the same limits as `LimitRegistry`, counted in a state
 * store that many processes use together (a folder on one machine, Redis across machines), so two
 * or forty workers on one account stay inside the service's limits together.
 *
 * - A window is a set of timed slots: a request takes one before it is sent (held while in flight,
 *   renewed), and on its answer holds it for one window more, as the in-process limiter counts.
 * - A concurrency limit is a set of leases: held while in flight and renewed; a worker that dies
 *   holding one loses it after `leaseMs`, so a crash never blocks a slot for good.
 * - Daily and monthly quotas are counters that reset at the period's start in the service's zone;
 *   header quotas are a budget the service's headers set. A refusal the service gave (a full
 *   window, a penalty period, a spent quota) is written to the store, so every process holds back.
 *
 * All limits of one call are taken at once (`admit` is atomic) or not at all. Waiters in a process
 * queue per operation, first come, first served, and the operations take turns: each pass of the
 * process's one loop asks the store for the first waiter of each, so a busy operation does not
 * starve the others on the same budget. A budget the store called full is not asked again until
 * the store says room frees up (a window's slot) or every `pollMs` (a lease another process may give
 * back any moment), and at once when this process frees a slot.
 *
 * When the store cannot be reached (Redis down or slower than `operationTimeoutMs`) a limit is
 * never exceeded silently: calls wait up to `unreachableWaitMs`, then fail with
 * StateUnavailableError (the client turns it into a NetworkError with code `state_unreachable`).
 * Counting per process instead is the explicit opt-in of the store itself (`fallbackToLocal`,
 * `STEPFORGE_STATE_FALLBACK=local`: runtime/state/fallback.ts). A store that comes back empty (Redis restarted without
 * its data) is noticed
 * by a marker record, and every window this process knows is held back for one window, since the
 * requests of the last window are no longer counted anywhere.
 */
import { randomUUID } from "node:crypto";
import type { ShippedLimit } from "../descriptor.js";
import {
  type AcquireOptions,
  isDeclaredRejection,
  type Limiter,
  LimitRegistry,
  type PlannedLimit,
  QuotaRefusedError,
  quotaPeriod,
  refusalFor,
  type RejectionOutcome,
  type Ticket,
  type WaiterBase,
  waiterBase,
} from "./limits.js";
import { hashed, stateKey } from "../state/keys.js";
import { type Admission, type AdmissionItem, StateUnavailableError, type StateStore } from "../state/types.js";
import { nextMidnight } from "../internal/time.js";

export interface SharedLimitOptions {
  /**
   * How long a call waits for an unreachable store before failing (default: the store's own `unreachableAfterMs`, else
   * 5 s).
   */
  unreachableWaitMs?: number | undefined;
  /** A store operation slower than this counts as unreachable (default 2 s). */
  operationTimeoutMs?: number | undefined;
  /** A lease (in-flight slot) lapses this long after its last renewal if its worker died (default 15 s). */
  leaseMs?: number | undefined;
  /** How often a waiter looks again for a lease another process may have freed (default 15 ms). */
  pollMs?: number | undefined;
}

interface Waiter extends WaiterBase {
  /** When it joined the line. */
  since: number;
  /** Resolved, rejected or aborted: skipped (and dropped) when it reaches the head of its line. */
  settled: boolean;
  /** Its admission the store has not answered yet (the answer was slower than the bound). */
  attempt?: Attempt | undefined;
}

/** One admission asked of the store: what it takes, under which id, and the store's answer to come. */
interface Attempt {
  id: string;
  items: AdmissionItem[];
  answer: Promise<Admission>;
}

/**
 * The store did not answer within the bound. The operation itself goes on (it waits on a folder's
 * lock, in a Redis client's queue) and may still act later.
 */
class NoAnswerInTime extends StateUnavailableError {}

type Step = { done: true } | { done: false; retryAt: number; blocking: string[] };

/** Where the marker that tells a live store from one that lost its data is kept. */
const EPOCH_KEY = stateKey("limits", "epoch");
/** Leases are renewed this many times per lease period. */
const RENEW_FRACTION = 3;
/**
 * A waiter on a full window looks again at least this often (the store's time may be pessimistic while requests are in
 * flight).
 */
const WINDOW_RECHECK_MS = 250;

export class SharedLimitRegistry implements Limiter {
  /** Works out what a refusal means, and keeps this process's view for `snapshot`. */
  private readonly local = new LimitRegistry();
  private readonly unreachableWaitMs: number;
  private readonly operationTimeoutMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /**
   * Waiters in line per plan (clients reuse one plan per operation, so a busy process has a few
   * lines of many waiters): a pass asks the store once per line, never once per waiter.
   */
  private readonly lines = new Map<PlannedLimit[], Waiter[]>();
  private waiting = 0;
  private pumping = false;
  private wakeUp: (() => void) | undefined;
  /** Something freed room while the loop was busy at the store: look again before sleeping. */
  private dirty = false;
  /** Budgets the store said are full (or could not answer for): not asked again before this time. */
  private readonly heldBack = new Map<string, number>();
  /** What a call costs under a header quota, as the service last reported (1 until it says). */
  private readonly costs = new Map<string, number>();
  /** Every budget this process has planned, so a lost store can be made safe again. */
  private readonly known = new Map<string, ShippedLimit>();
  private epoch: string | undefined;
  private epochCheckedAt = 0;
  /** The store failed since the last successful operation: check the marker before trusting it. */
  private suspect = false;
  /** Since when the store has not answered (0: it answers). */
  private downSince = 0;

  constructor(
    readonly store: StateStore,
    options: SharedLimitOptions = {},
  ) {
    // The bound the user gave the store (`unreachableAfterMs`, STEPFORGE_STATE_WAIT_MS) is the bound of a call.
    this.unreachableWaitMs = options.unreachableWaitMs ?? store.unreachableAfterMs ?? 5_000;
    this.operationTimeoutMs = options.operationTimeoutMs ?? 2_000;
    this.leaseMs = options.leaseMs ?? 15_000;
    // A folder lock costs more per look than a Redis round trip: look less often there.
    this.pollMs = options.pollMs ?? (store.backend === "file" ? 50 : 15);
  }

  /** The local plan (`LimitRegistry.plan`), each key turned into a store key. */
  plan(...args: Parameters<Limiter["plan"]>): PlannedLimit[] {
    const [service] = args;
    const planned = this.local.plan(...args);
    // Store keys: the local key hashed (it holds connection names and hashed field values).
    const shared = planned.map((p) => ({ ...p, key: stateKey("limits", service, p.spec.id, hashed(p.key)) }));
    for (const p of shared) this.known.set(p.key, p.spec);
    return shared;
  }

  acquire(planned: PlannedLimit[], options: AcquireOptions = {}): Promise<Ticket> {
    if (planned.length === 0) return Promise.resolve({ release() {} });
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { ...waiterBase(planned, resolve, reject, options), since: Date.now(), settled: false };
      if (options.signal) {
        waiter.onAbort = () => {
          if (this.remove(waiter)) reject(options.signal!.reason);
        };
        options.signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      const line = this.lines.get(planned);
      if (line) line.push(waiter);
      else this.lines.set(planned, [waiter]);
      this.waiting++;
      void this.pump();
    });
  }

  noteRejection(...args: Parameters<Limiter["noteRejection"]>): RejectionOutcome {
    const [planned, status, code] = args;
    // The local registry works out what the refusal means (and remembers it for the fallback).
    const result = this.local.noteRejection(...args);
    const now = Date.now();
    for (const p of planned) {
      if (!isDeclaredRejection(p.spec, status, code)) continue;
      const spec = p.spec;
      // Written without waiting: the same process's next admit is queued behind it on the store.
      if (spec.kind === "daily-quota" || spec.kind === "monthly-quota") {
        const { resetsAt } = quotaPeriod(spec, now);
        void this.quietly(this.store.setCounter(this.counterKey(p, now), spec.requests, resetsAt.getTime()));
      } else if (spec.kind === "header-quota") {
        void this.quietly(this.store.setCounter(p.key, 0, nextMidnight(spec.resetTimeZone, now).getTime()));
      } else if (result.waitMs !== undefined) {
        void this.quietly(this.store.block(p.key, now + result.waitMs));
      }
    }
    return result;
  }

  snapshot(): Array<{ key: string; kind: string; value: number }> {
    return this.local.snapshot();
  }

  /** Takes a waiter out of line (it is dropped from its line's head later); false when it already was. */
  private remove(waiter: Waiter): boolean {
    if (waiter.settled) return false;
    waiter.settled = true;
    this.waiting--;
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
    // Its admission may still be answered, and take room, after it gave up: that room goes back.
    const late = waiter.attempt;
    waiter.attempt = undefined;
    if (late) {
      void late.answer.then(
        (admission) => {
          if (admission.ok)
            void this.quietly(this.freeAll(waiter.planned, late.items, late.id)).then(() => this.roomFreed());
        },
        () => undefined,
      );
    }
    return true;
  }

  /** The first waiter of a line still waiting (settled ones are dropped on the way). */
  private head(planned: PlannedLimit[], line: Waiter[]): Waiter | undefined {
    while (line.length > 0 && line[0]!.settled) line.shift();
    if (line.length === 0) this.lines.delete(planned);
    return line[0];
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    if (w) w();
    else this.dirty = true;
  }

  /** Room was given back: every budget is worth asking again. */
  private roomFreed(): void {
    this.heldBack.clear();
    void this.pump();
  }

  /**
   * One loop per process works the queue; it sleeps until the soonest moment room may free up.
   * Each pass asks once for the head of every line (round robin), not for a whole line: under a
   * contended store an answer takes about as long as a busy operation's next call takes to come, so
   * a line worked through before the next would keep the others waiting until its window is full.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return this.wake();
    this.pumping = true;
    try {
      while (this.waiting > 0) {
        this.dirty = false;
        let admittedSome = false;
        let soonest = Infinity;
        for (const [planned, line] of [...this.lines]) {
          const until = Math.max(0, ...planned.map((p) => this.heldBack.get(p.key) ?? 0));
          if (until > Date.now()) {
            soonest = Math.min(soonest, until);
            continue;
          }
          const waiter = this.head(planned, line);
          if (!waiter) continue;
          const step = await this.step(waiter);
          if (step.done) {
            admittedSome = true;
            continue;
          }
          // Later lines on the same budget wait their turn behind this one (first come, first served).
          const keys = step.blocking.length > 0 ? step.blocking : planned.map((p) => p.key);
          for (const key of keys) this.heldBack.set(key, step.retryAt);
          soonest = Math.min(soonest, step.retryAt);
        }
        if (this.waiting <= 0) {
          this.lines.clear(); // only settled waiters are left in them
          break;
        }
        if (admittedSome) continue; // the next waiters may have room now
        const wait = Math.max(0, soonest - Date.now());
        if (wait > 0 && !this.dirty) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              this.wakeUp = undefined;
              resolve();
            }, Math.ceil(wait));
            this.wakeUp = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }
    } finally {
      this.pumping = false;
      this.heldBack.clear();
    }
  }

  /** One attempt of one waiter at the store. */
  private async step(waiter: Waiter): Promise<Step> {
    const now = Date.now();
    // An admission the store did not answer in time is still in line there and may yet take room:
    // the waiter waits for that answer instead of asking again (each retry left one more behind,
    // which took a slot for a window and a lease with an id nobody frees).
    let attempt: Attempt | undefined;
    let admission;
    try {
      await this.checkEpoch(now);
      const asked = (waiter.attempt ??= this.ask(waiter.planned, now));
      attempt = asked;
      // An answer that came (an error) ends the attempt; one still awaited stays the waiter's.
      admission = await this.timed(asked.answer).catch((error: unknown) => {
        if (!(error instanceof NoAnswerInTime) && waiter.attempt === asked) waiter.attempt = undefined;
        throw error;
      });
      this.suspect = false;
      this.downSince = 0;
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        this.remove(waiter);
        waiter.reject(error);
        return { done: true };
      }
      this.suspect = true;
      this.downSince ||= now;
      // Every waiter that has waited out the bound while the store was down fails now, not one per
      // bound. Measured to now, when the attempt failed, not to when it began: the attempt itself
      // may have waited up to the store's own bound, and a call must not wait that much longer.
      const failedAt = Date.now();
      for (const line of this.lines.values()) {
        for (const w of line) {
          if (!w.settled && failedAt - Math.max(w.since, this.downSince) >= this.unreachableWaitMs && this.remove(w))
            w.reject(error);
        }
      }
      if (waiter.settled) return { done: true };
      return {
        done: false,
        retryAt: now + Math.min(250, this.unreachableWaitMs / 10) * (0.5 + Math.random()),
        blocking: [],
      };
    }
    // Gave up while the store answered: `remove` gives back what the attempt took.
    if (!attempt || waiter.attempt !== attempt) return { done: true };
    waiter.attempt = undefined;
    if (admission.ok) {
      this.remove(waiter);
      waiter.resolve(this.ticket(waiter.planned, attempt.items, attempt.id, admission.remaining));
      return { done: true };
    }
    const p = waiter.planned[admission.item]!;
    if (admission.exhausted) {
      this.remove(waiter);
      waiter.reject(new QuotaRefusedError(refusalFor(p.spec, now)));
      return { done: true };
    }
    // A lease may be given back by another process any moment: look again soon. A window's slot
    // frees when the store says (sooner only if its request is still in flight).
    const cap = p.spec.kind === "concurrency" ? this.pollMs : WINDOW_RECHECK_MS;
    const retryAt = Math.min(admission.retryAt, now + cap);
    if (!waiter.throttled.has(p.spec.id)) {
      waiter.throttled.add(p.spec.id);
      try {
        waiter.onThrottle?.(p.spec.id, Math.max(0, admission.retryAt - now));
      } catch {
        /* hooks never break calls */
      }
    }
    return { done: false, retryAt, blocking: [p.key] };
  }

  private counterKey(p: PlannedLimit, now: number): string {
    return `${p.key}:${quotaPeriod(p.spec, now).period}`;
  }

  /** Asks the store to admit one call of `planned`, under an id of its own. */
  private ask(planned: PlannedLimit[], now: number): Attempt {
    const id = randomUUID();
    const items = planned.map((p) => this.itemFor(p, now));
    return { id, items, answer: this.store.admit(items, id) };
  }

  private itemFor(p: PlannedLimit, now: number): AdmissionItem {
    const spec = p.spec;
    switch (spec.kind) {
      case "window":
        return { kind: "slots", key: p.key, capacity: spec.requests, holdMs: spec.windowSeconds * 1000 + this.leaseMs };
      case "concurrency":
        return { kind: "slots", key: p.key, capacity: spec.max, holdMs: this.leaseMs };
      case "daily-quota":
      case "monthly-quota":
        return {
          kind: "counter",
          key: this.counterKey(p, now),
          limit: spec.requests,
          cost: 1,
          resetAt: quotaPeriod(spec, now).resetsAt.getTime(),
        };
      case "header-quota":
        return { kind: "budget", key: p.key, cost: this.costs.get(p.key) ?? 1 };
    }
  }

  private ticket(
    planned: PlannedLimit[],
    items: AdmissionItem[],
    id: string,
    remaining: ReadonlyArray<number | undefined> | undefined,
  ): Ticket {
    // Leases and in-flight slots are renewed while the request runs, so only a dead worker's lapse.
    const renew = setInterval(
      () => {
        for (const item of items)
          if (item.kind === "slots") void this.quietly(this.store.hold(item.key, id, item.holdMs));
      },
      Math.max(50, Math.floor(this.leaseMs / RENEW_FRACTION)),
    );
    renew.unref?.();
    let released = false;
    return {
      release: ({ sent, headers }) => {
        if (released) return;
        released = true;
        clearInterval(renew);
        const now = Date.now();
        const work: Array<Promise<unknown>> = [];
        for (const [i, p] of planned.entries()) {
          const item = items[i]!;
          const spec = p.spec;
          if (spec.kind === "window") work.push(this.store.hold(item.key, id, sent ? spec.windowSeconds * 1000 : 0));
          else if (spec.kind === "concurrency") work.push(this.store.hold(item.key, id, 0));
          else if ((spec.kind === "daily-quota" || spec.kind === "monthly-quota") && !sent && item.kind === "counter")
            work.push(this.store.addToCounter(item.key, -1, item.resetAt));
          else if (spec.kind === "header-quota" && headers) {
            const remaining = numberHeader(headers, spec.remainingHeader);
            if (remaining !== undefined)
              work.push(this.store.setCounter(p.key, remaining, nextMidnight(spec.resetTimeZone, now).getTime()));
            const spent = spec.costHeader ? numberHeader(headers, spec.costHeader) : undefined;
            if (spent !== undefined && spent > 0) this.costs.set(p.key, Math.max(1, spent));
          }
        }
        // A release the store does not take is safe: the slot lapses by itself after its hold.
        void this.quietly(Promise.all(work)).then(() => this.roomFreed());
      },
      // As the store's admission reported it (a store that does not report leaves it unknown).
      remaining: () => remaining ?? planned.map(() => undefined),
    };
  }

  private freeAll(planned: PlannedLimit[], items: AdmissionItem[], id: string): Promise<unknown> {
    return Promise.all(
      planned.map((_, i) => {
        const item = items[i]!;
        if (item.kind === "slots") return this.store.hold(item.key, id, 0);
        if (item.kind === "counter") return this.store.addToCounter(item.key, -1, item.resetAt);
        return undefined;
      }),
    );
  }

  /**
   * A store that lost its data (Redis restarted empty) would let a whole new window through while
   * the last one's requests are still counted by the service. The marker record tells: when it is
   * gone or replaced, every window this process knows is held back for one window.
   */
  private async checkEpoch(now: number): Promise<void> {
    // Only a server can come back empty; a folder keeps its files.
    if (this.store.backend !== "redis") return;
    if (!this.suspect && this.epoch !== undefined && now - this.epochCheckedAt < 1_000) return;
    const current = await this.timed(this.store.get<string>(EPOCH_KEY));
    let value = current?.value;
    if (value === undefined) {
      const mine = randomUUID();
      const written = await this.timed(this.store.set(EPOCH_KEY, mine, { ifVersion: 0 }));
      value = written.ok ? mine : ((written.current?.value as string | undefined) ?? mine);
    }
    if (this.epoch !== undefined && value !== this.epoch) {
      await Promise.all(
        [...this.known].map(([key, spec]) => {
          if (spec.kind === "window") return this.timed(this.store.block(key, now + spec.windowSeconds * 1000));
          return undefined;
        }),
      );
    }
    this.epoch = value;
    this.epochCheckedAt = now;
  }

  /** The store's answer, or StateUnavailableError when it is slower than the bound. */
  private timed<T>(operation: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NoAnswerInTime(this.store.backend, `no answer within ${this.operationTimeoutMs} ms`)),
        this.operationTimeoutMs,
      );
    });
    return Promise.race([operation, timeout]).finally(() => clearTimeout(timer));
  }

  private quietly<T>(operation: Promise<T>): Promise<T | undefined> {
    return this.timed(operation).catch((error: unknown) => {
      if (error instanceof StateUnavailableError) this.suspect = true;
      return undefined;
    });
  }
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}
