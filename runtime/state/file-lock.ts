/**
 * An exclusive lock on a file across processes on one machine, with proper-lockfile (an atomic
 * `mkdir` of `<file>.lock`, its mtime refreshed while held, taken over once it is older than
 * `staleMs`, so a process that died holding it blocks the others for seconds, not forever).
 * Callers in one process queue on a promise chain first, so they do not poll each other.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { importPeer } from "../internal/package-bin.js";

export interface FileLockOptions {
  /** Give up waiting after this long (default 10 s). */
  timeoutMs?: number | undefined;
  /** A lock not refreshed for this long belongs to a dead process (default 5 s; proper-lockfile's minimum is 2 s). */
  staleMs?: number | undefined;
  /**
   * Keep the step's result even if another process took the lock over while it ran (the step's
   * own writes must then check what they overwrite). Default: the step fails.
   */
  tolerateTakeover?: boolean | undefined;
}

export class FileLockTimeoutError extends Error {
  constructor(
    readonly path: string,
    timeoutMs: number,
  ) {
    super(
      `could not lock ${path} within ${timeoutMs} ms: another process holds it (a lock left ` +
        `by a dead process is taken over after a few seconds)`,
    );
    this.name = "FileLockTimeoutError";
  }
}

const chains = new Map<string, Promise<unknown>>();

/** Runs `step` while holding the lock on `path` (the file itself need not exist). */
export function withFileLock<T>(path: string, step: () => Promise<T> | T, options: FileLockOptions = {}): Promise<T> {
  const previous = chains.get(path) ?? Promise.resolve();
  const run = previous.then(
    () => lockedStep(path, step, options),
    () => lockedStep(path, step, options),
  );
  const settled = run.catch(() => undefined);
  chains.set(path, settled);
  void settled.then(() => {
    if (chains.get(path) === settled) chains.delete(path);
  });
  return run;
}

async function lockedStep<T>(path: string, step: () => Promise<T> | T, options: FileLockOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = Math.max(2000, options.staleMs ?? 5000);
  const deadline = Date.now() + timeoutMs;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // An optional peer, loaded on first use: a bundle that never locks a file does not carry it.
  type Lockfile = { default: typeof import("proper-lockfile") };
  const lockfile = (await importPeer<Lockfile>("proper-lockfile", "state or connections kept in a folder")).default;
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  for (let pause = 1; ; pause = Math.min(pause * 2, 16)) {
    try {
      release = await lockfile.lock(path, {
        realpath: false,
        stale: staleMs,
        retries: 0,
        // The default throws from a timer and ends the process; note it and fail the step instead.
        onCompromised: (error) => {
          compromised = error;
        },
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      if (Date.now() >= deadline) throw new FileLockTimeoutError(path, timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    }
  }
  try {
    const result = await step();
    if (compromised && !options.tolerateTakeover)
      throw new Error(
        `the lock on ${path} was taken over while held (${compromised.message}); the step's result is not trusted`,
      );
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
