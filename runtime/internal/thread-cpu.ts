/**
 * CPU time of one OS thread, for the code mode's CPU budget. Wall time is not CPU time: on a busy
 * machine a thread waits for a core, and a budget counted in wall time stops code that has used a
 * fraction of its CPU (the sandbox attack suite failed that way at load 15 on 2 cores). Linux says
 * what each thread used in /proc; elsewhere these answer undefined and callers keep their wall clock.
 */
import { readdirSync, readFileSync } from "node:fs";

/** /proc counts in USER_HZ ticks, which Linux fixes at 100 per second for every program. */
const MS_PER_TICK = 10;

/** The calling thread's id as /proc names it (/proc/self/task/ID), or undefined off Linux. */
export function currentThreadId(): number | undefined {
  return statFields("/proc/thread-self/stat")?.id;
}

/**
 * CPU time (user + system, in ms, to a tick) the thread `id` of this process has used, or the calling
 * thread's without one; undefined when /proc does not say (not Linux, or the thread has ended).
 */
export function threadCpuMs(id?: number): number | undefined {
  return statFields(id === undefined ? "/proc/thread-self/stat" : `/proc/self/task/${id}/stat`)?.cpuMs;
}

function statFields(file: string): { id: number; cpuMs: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, "latin1");
  } catch {
    return undefined;
  }
  // "ID (name) state ppid …": the name may hold spaces and parentheses, so fields count from its end.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // utime and stime are the 14th and 15th fields; `rest` starts at the 3rd (state).
  const ticks = Number(rest[11]) + Number(rest[12]);
  const id = Number.parseInt(text, 10);
  return Number.isFinite(ticks) && Number.isInteger(id) ? { id, cpuMs: ticks * MS_PER_TICK } : undefined;
}

/**
 * CPU time (ms) of every thread of this process now, by thread id: empty off Linux, and a thread
 * that ends meanwhile is left out.
 */
export function threadsCpuMs(): Map<number, number> {
  let ids: string[];
  try {
    ids = readdirSync("/proc/self/task");
  } catch {
    return new Map();
  }
  const out = new Map<number, number>();
  for (const id of ids.map(Number)) {
    const ms = threadCpuMs(id);
    if (ms !== undefined) out.set(id, ms);
  }
  return out;
}

/** One thread's CPU time from a start: what a run used, read when the caller's wall clock says it may matter. */
export class ThreadCpuSince {
  private readonly start: number | undefined;
  /** Before this (performance.now()) the thread cannot have used the limit asked: /proc is not read. */
  private nextRead = 0;

  /** From now, for the thread `id` (default: the calling thread). */
  constructor(private readonly id?: number) {
    this.start = threadCpuMs(id);
  }

  /** CPU time used since the start in ms; Infinity when /proc does not say (nothing can be shown to be left). */
  used(): number {
    const now = this.start === undefined ? undefined : threadCpuMs(this.id);
    return now === undefined ? Number.POSITIVE_INFINITY : now - this.start!;
  }

  /**
   * Whether more than `limitMs` (the same at every call) was used. CPU time grows no faster than the
   * wall clock, so after a read /proc is read again only when what was left could be gone; meanwhile
   * the answer is no.
   */
  over(limitMs: number, now = performance.now()): boolean {
    if (now < this.nextRead) return false;
    const left = limitMs - this.used();
    if (left < 0) return true;
    this.nextRead = now + Math.max(left, 1);
    return false;
  }
}
