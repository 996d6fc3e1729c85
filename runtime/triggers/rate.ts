/**
 * The minimum data rate of request bodies: a body still arriving is judged once per window on the
 * bytes that window brought (a stalled body brings none), not on its average since the start — a
 * sender that sends most of a body at once and then stalls would pass an average for minutes.
 */

/** A body being read, as the rate check sees it. */
export interface Arriving {
  size: number;
  /** `size` and the time at the start of the current window. */
  mark: number;
  since: number;
  tooSlow: () => void;
}

/** Calls `tooSlow` of each body that brought less than the minimum in its last window. */
export class RateWatch {
  private readonly arriving = new Set<Arriving>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly windowMs: number,
  ) {}

  add(body: Arriving): void {
    this.arriving.add(body);
    this.timer ??= setInterval(() => this.sweep(), Math.max(10, this.windowMs / 2)).unref();
  }

  delete(body: Arriving): void {
    this.arriving.delete(body);
    if (this.arriving.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const body of this.arriving) {
      const elapsed = now - body.since;
      if (elapsed < this.windowMs) continue;
      if ((body.size - body.mark) * 1000 < this.bytesPerSecond * elapsed) body.tooSlow();
      else Object.assign(body, { mark: body.size, since: now });
    }
  }
}
