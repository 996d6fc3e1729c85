/**
 * Work a thread puts off until it is likely to be idle: done after a delay, or at once when
 * something that needs it comes first. The sandbox's worker puts off freeing a finished run's
 * QuickJS runtime and preparing the next one (about 1.4 ms of CPU) until its outcome has been
 * answered: on a busy machine the server's thread, woken by the outcome, shared a core with the
 * worker and ran only once the worker had done both (round 11's timeline: the last reply to the
 * outcome took 1.6 ms, of which the recycling was 1.4 ms).
 */
export class PutOff {
  private work: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly delayMs: number) {}

  /** Puts `work` off for the delay; work still put off is done first, so none is lost or reordered. */
  later(work: () => void): void {
    this.now();
    this.work = work;
    this.timer = setTimeout(() => this.now(), this.delayMs);
  }

  /** Does the work put off, if any, now (and once). */
  now(): void {
    const work = this.work;
    if (!work) return;
    clearTimeout(this.timer);
    this.work = undefined;
    this.timer = undefined;
    work();
  }
}
