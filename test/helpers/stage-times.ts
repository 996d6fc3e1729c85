/** The seconds each stage of a long flow test took, printed at its end (pack, install, start…). */

export interface StageTimes {
  /** Seconds per stage, one decimal: what the test prints. */
  times: Record<string, number>;
  /** Runs `work` and records its time under `stage`, whether it succeeds or throws. */
  timed<T>(stage: string, work: () => Promise<T>): Promise<T>;
}

export function stageTimes(): StageTimes {
  const times: Record<string, number> = {};
  return {
    times,
    async timed(stage, work) {
      const started = performance.now();
      try {
        return await work();
      } finally {
        times[stage] = Math.round((performance.now() - started) / 100) / 10;
      }
    },
  };
}
