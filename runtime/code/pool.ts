/**
 * The members a sandbox runs code in (worker slots, or QuickJS engines on the server's thread): at
 * most `size` of them, each taken by one run at a time; a run that finds none free waits its turn
 * in order. Both sandboxes (sandbox.ts, inline.ts) keep theirs here.
 */
export interface PoolMember {
  busy: boolean;
}

export interface PoolRules<T extends PoolMember> {
  size: number;
  /** A new member (it may still be loading: the run that takes it waits for it). */
  make: () => T;
  /** Whether a member can take runs at all (a worker that ended, an engine that was dropped cannot). */
  usable: (member: T) => boolean;
  /** Whether a member leaves the pool when a run looks for one (and so frees its place). */
  discard: (member: T) => boolean;
}

export class MemberPool<T extends PoolMember> {
  private list: T[] = [];
  private readonly waiting: Array<() => void> = [];
  private ended = false;

  constructor(private readonly rules: PoolRules<T>) {}

  get closed(): boolean {
    return this.ended;
  }

  get members(): readonly T[] {
    return this.list;
  }

  add(): T {
    const member = this.rules.make();
    this.list.push(member);
    return member;
  }

  remove(member: T): void {
    const index = this.list.indexOf(member);
    if (index >= 0) this.list.splice(index, 1);
  }

  /** A free usable member, a new one while there is room, else the next one released. */
  async acquire(): Promise<T> {
    for (;;) {
      if (this.ended) throw new Error("the sandbox is closed");
      this.list = this.list.filter((m) => !this.rules.discard(m));
      const free =
        this.list.find((m) => !m.busy && this.rules.usable(m)) ??
        (this.list.length < this.rules.size ? this.add() : undefined);
      if (free) {
        free.busy = true;
        return free;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  release(member: T): void {
    member.busy = false;
    this.waiting.shift()?.();
  }

  /** Takes no more runs; those waiting wake up and fail as the sandbox being closed. */
  close(): void {
    this.ended = true;
    for (const wake of this.waiting.splice(0)) wake();
  }
}
