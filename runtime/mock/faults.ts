/**
 * Seeded, reproducible fault injection: the same seed and the same sequence of requests give the
 * same faults. Every request draws the same number of random values, whatever happens to it, so one
 * fault does not shift the draws of the requests after it.
 */

export interface FaultOptions {
  /** Seed of the random sequence (default 1). */
  seed?: number;
  /** Added delay before answering, at `rate` (0..1). */
  latency?: { rate: number; ms: number };
  /** A 5xx answer in the service's error shape instead of the real one. */
  error?: { rate: number; statuses?: number[] };
  /** The connection is closed without an answer. */
  drop?: { rate: number };
  /** The body is sent in small pieces with pauses between them. */
  slowBody?: { rate: number; delayMs: number; chunkBytes?: number };
  /** Only these operations get faults (default: every operation). */
  operations?: string[];
}

export interface FaultDecision {
  drop: boolean;
  errorStatus?: number | undefined;
  latencyMs: number;
  slowBody?: { delayMs: number; chunkBytes: number } | undefined;
}

/** mulberry32: a small, fast 32-bit PRNG; good enough for picking faults and ids. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private readonly random: () => number;

  constructor(private readonly options: FaultOptions) {
    for (const key of ["latency", "error", "drop", "slowBody"] as const) {
      const rate = options[key]?.rate;
      if (rate !== undefined && !(rate >= 0 && rate <= 1))
        throw new RangeError(`faults.${key}.rate must be between 0 and 1`);
    }
    this.random = prng(options.seed ?? 1);
  }

  decide(operationId: string): FaultDecision | undefined {
    const o = this.options;
    if (o.operations && !o.operations.includes(operationId)) return undefined;
    const [d, e, l, s, pick] = [this.random(), this.random(), this.random(), this.random(), this.random()];
    const statuses = o.error?.statuses?.length ? o.error.statuses : [500, 502, 503];
    return {
      drop: o.drop !== undefined && d < o.drop.rate,
      errorStatus: o.error !== undefined && e < o.error.rate ? statuses[Math.floor(pick * statuses.length)] : undefined,
      latencyMs: o.latency !== undefined && l < o.latency.rate ? o.latency.ms : 0,
      slowBody:
        o.slowBody !== undefined && s < o.slowBody.rate
          ? { delayMs: o.slowBody.delayMs, chunkBytes: o.slowBody.chunkBytes ?? 16 }
          : undefined,
    };
  }
}
