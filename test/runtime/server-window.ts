/**
 * A server-side sliding window, counted at arrival as a real service does: the oracle the limiter
 * tests measure the client against.
 */
export class ServerWindow {
  private arrivals: number[] = [];
  readonly all: number[] = [];
  rejected = 0;
  constructor(
    readonly requests: number,
    readonly ms: number,
  ) {}
  admit(at: number): boolean {
    this.arrivals = this.arrivals.filter((t) => t > at - this.ms);
    if (this.arrivals.length >= this.requests) {
      this.rejected++;
      return false;
    }
    this.arrivals.push(at);
    this.all.push(at);
    return true;
  }
  /** The most requests it admitted inside any one window. */
  peak(): number {
    let best = 0;
    for (const start of this.all)
      best = Math.max(best, this.all.filter((t) => t >= start && t < start + this.ms).length);
    return best;
  }
}
