/**
 * The explicit opt-in for "keep working when the shared state is down": operations go to the
 * shared store, and while it is unreachable they go to a per-process memory store instead (limits
 * then hold per process only, so several processes together may exceed a service's limit; the
 * `onFallback` hook says when that starts and stops). Without this wrapper an unreachable store is
 * a StateUnavailableError, and nothing is sent.
 */
import { MemoryStateStore } from "./memory.js";
import { type StateStore, StateUnavailableError } from "./types.js";

export interface FallbackOptions {
  /** Called with true when operations start going to the local store, false when they return. */
  onFallback?: ((local: boolean, error?: StateUnavailableError) => void) | undefined;
  /** After a failure, try the shared store again after this long (default 5 s). */
  retrySharedAfterMs?: number | undefined;
}

type Method = Exclude<keyof StateStore, "backend" | "clock" | "close">;

export function withLocalFallback(shared: StateStore, options: FallbackOptions = {}): StateStore {
  const local = new MemoryStateStore(shared.clock);
  const retryAfter = options.retrySharedAfterMs ?? 5000;
  let downUntil = 0;
  let usingLocal = false;

  const route = <M extends Method>(method: M) =>
    (async (...args: unknown[]) => {
      const call = (store: StateStore) => (store[method] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
      if (Date.now() < downUntil) return call(local);
      try {
        const result = await call(shared);
        if (usingLocal) {
          usingLocal = false;
          options.onFallback?.(false);
        }
        return result;
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        downUntil = Date.now() + retryAfter;
        if (!usingLocal) {
          usingLocal = true;
          options.onFallback?.(true, error);
        }
        return call(local);
      }
    }) as StateStore[M];

  return {
    backend: shared.backend,
    clock: shared.clock,
    get: route("get"),
    set: route("set"),
    delete: route("delete"),
    keys: route("keys"),
    lock: route("lock"),
    renewLock: route("renewLock"),
    unlock: route("unlock"),
    admit: route("admit"),
    hold: route("hold"),
    block: route("block"),
    slots: route("slots"),
    counter: route("counter"),
    addToCounter: route("addToCounter"),
    setCounter: route("setCounter"),
    firstSeen: route("firstSeen"),
    close: async () => {
      await shared.close();
      await local.close();
    },
  };
}
